/**
 * Where a session's copies of responses count, as people read it
 * (`sessions`' note, `show`'s usage line; tester23a F4): the rule the index
 * applies (docs/usage-and-cost.md "Copies of a response"): an AgentMux copy
 * of a Claude Code run counts in the Claude Code session, Claude Code's own
 * record of the run (not "another copy of it"); two AgentMux copies of one
 * run, or two copies of one Claude Code log, name the other copy's uid; a
 * resumed or forked session names the session it counts in.
 */
import { describe, expect, it } from "vitest"
import { countedElsewhereText, usageLine } from "../src/domain/render.js"

const S = "6a6a6a6a-0000-4000-8000-000000000006"
const R = "5c5c5c5c-0000-4000-8000-000000000005"
const at = (provider: "claude-code" | "agentmux", sessionId: string, responses = 2) => [{ provider, sessionId, sessionUid: "ses_other", responses }]

describe("countedElsewhereText", () => {
  it("names the Claude Code session as the run's own record for an AgentMux copy; another copy's uid otherwise", () => {
    expect(countedElsewhereText(at("claude-code", S), { provider: "agentmux", sessionId: S })).toBe(
      `2 responses counted in the Claude Code session ${S} (Claude Code's own record of this run)`
    )
    expect(countedElsewhereText(at("agentmux", S, 1), { provider: "agentmux", sessionId: S })).toBe(
      `1 response counted in the AgentMux session ${S} (another AgentMux copy of this run: ses_other)`
    )
    expect(countedElsewhereText(at("claude-code", S), { provider: "claude-code", sessionId: S })).toBe(
      `2 responses counted in session ${S} (another copy of the same log: ses_other)`
    )
    expect(countedElsewhereText(at("claude-code", R), { provider: "claude-code", sessionId: S })).toBe(`2 responses counted in session ${R}`)
  })

  it("show's usage line says they count once there, not 'where first seen'", () => {
    const none = { inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, costUsd: null }
    const line = usageLine({ ...none, countedElsewhere: at("claude-code", S) }, { provider: "agentmux", sessionId: S })
    expect(line).toBe(`tokens: 2 responses counted in the Claude Code session ${S} (Claude Code's own record of this run; the same responses, counted once, there)`)
  })
})
