/**
 * A fast-mode response whose prompt is over 200k tokens (tester33c F7).
 * docs/usage-and-cost.md "Fast mode": it "has no cost: `?`, with a note
 * (`usage`: `notes: [{kind: "fast-not-priced", ...}]`)" since no table gives
 * fast-mode rates for a prompt over 200k tokens. Before, the long-context
 * check came first: the note was `long-context-not-priced` with the remedy
 * "add "longContext" to its price", printed even with a config that gives the
 * model `longContext`, where following it changes nothing.
 *
 * The response: claude-opus-4-6 (fast rates $30 / $150 in the table), input
 * 1,000 + cache read 250,000 = a 251,000-token prompt, output 100,
 * `speed: "fast"`: cost unknown, whatever the config says. A standard
 * response of 100 input and 10 output tokens in the same session is priced
 * (100 x $5/M + 10 x $25/M = $0.00075) but the session's total stays unknown.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent, TokenUsage } from "../../src/domain/model.js"
import { bundledPrices } from "../../src/domain/prices.js"
import { usageSummary } from "../../src/domain/usage.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { mk } from "../support/events.js"
import { importOnce } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const SID = "34343434-1111-4222-8333-444444444444"
const CWD = "/home/dev/fastlong"
const LONG = { input_tokens: 1_000, cache_read_input_tokens: 250_000, output_tokens: 100, speed: "fast" }

const assistant = (n: number, usage: Record<string, unknown>) => ({
  type: "assistant", sessionId: SID, uuid: `a${n}`, parentUuid: "u0", timestamp: `2026-11-02T10:00:0${n}.000Z`, cwd: CWD, requestId: `req_${n}`,
  message: { id: `msg_${n}`, type: "message", role: "assistant", model: "claude-opus-4-6", content: [{ type: "text", text: "x" }], usage }
})

const corpus = () => {
  const dir = tempDir("si-fastlong-")
  const root = path.join(dir, "projects")
  const folder = path.join(root, "-home-dev-fastlong")
  fs.mkdirSync(folder, { recursive: true })
  fs.mkdirSync(path.join(dir, "agents"), { recursive: true })
  const lines = [
    { type: "user", sessionId: SID, uuid: "u0", parentUuid: null, timestamp: "2026-11-02T10:00:00.000Z", cwd: CWD, message: { role: "user", content: "go" } },
    assistant(1, LONG),
    assistant(2, { input_tokens: 100, output_tokens: 10 })
  ]
  fs.writeFileSync(path.join(folder, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  // The config gives claude-opus-4-6 both long-context and fast rates (tester33c's cfg2.json).
  const config = path.join(dir, "config.json")
  fs.writeFileSync(config, JSON.stringify({
    prices: {
      "claude-opus-4-6": {
        input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, cacheWrite1h: 10,
        longContext: { input: 10, output: 37.5, cacheRead: 1, cacheWrite: 12.5, cacheWrite1h: 20 },
        fast: { input: 30, output: 150, cacheRead: 3, cacheWrite: 37.5, cacheWrite1h: 60 }
      }
    }
  }))
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root }
  return { dir, config, importAll: (index: string) => importOnce(policy, index, planFromPolicy(policy, { batchSize: 500 })) }
}

const NOTE = "claude-opus-4-6: 1 response in fast mode (usage speed \"fast\") with a prompt over 200k tokens (input + cache read + cache write): cost unknown"

describe("a fast-mode response whose prompt is over 200k tokens (tester33c F7)", () => {
  it("is unknown as a fast response (fast-not-priced, promptOver200k), never as a long prompt without a long-context price", () => {
    const ev = mk("claude-code", "s-fast-long")
    const usage: TokenUsage = { inputTokens: 1_000, outputTokens: 100, cacheReadTokens: 250_000, cacheWriteTokens: 0, cacheWrite1hTokens: null, speed: "fast" }
    const events: Array<SessionEvent> = [ev("message", { responseId: "fl:1", model: "claude-opus-4-6", usage })]
    const s = usageSummary(events, bundledPrices)!
    expect(s.costUsd).toBeNull()
    expect(s.longContextUnpriced).toBeUndefined()
    expect(s.fastUnpriced).toEqual([{ model: "claude-opus-4-6", responses: 1, promptOver200k: true }])
  })

  it("usage (text and --json) and sessions say so, with and without a config giving longContext, and offer no remedy that cannot work", () => {
    const c = corpus()
    const index = path.join(c.dir, "index.db")
    return Effect.runPromise(c.importAll(index)).then(() => {
      for (const config of [[], ["--config", c.config]]) {
        const j = cli(["usage", "--by", "model", "--json", "--index", index, ...config])
        expect(j.code, j.stderr).toBe(0)
        const data = JSON.parse(j.stdout).data
        expect(data.rows.map((r: { key: string; responses: number; costUsd: number | null }) => [r.key, r.responses, r.costUsd])).toEqual([
          ["claude-opus-4-6", 2, null]
        ])
        expect(data.notes).toEqual([{ kind: "fast-not-priced", model: "claude-opus-4-6", responses: 1, promptOver200k: true }])
        const t = cli(["usage", "--by", "model", "--index", index, ...config], { env: { NO_COLOR: "1" } })
        expect(t.code, t.stderr).toBe(0)
        expect(t.stdout).toContain(`note: ${NOTE}`)
        expect(t.stdout).toContain("no price table gives a fast-mode rate for a prompt over 200k tokens")
        expect(t.stdout).not.toContain("add \"longContext\"")
        expect(t.stdout).not.toContain("add \"fast\"")
        const st = cli(["sessions", "--index", index, ...config], { env: { NO_COLOR: "1" } })
        expect(st.code, st.stderr).toBe(0)
        expect(st.stdout).toContain("? cost unknown: claude-opus-4-6 (1 response) in fast mode (usage speed \"fast\") with a prompt over 200k tokens")
        expect(st.stdout).not.toContain("add \"longContext\"")
        expect(st.stdout).not.toContain("add \"fast\"")
      }
    })
  })
})
