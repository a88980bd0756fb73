/**
 * usageTotals (contract 1.1.0): each response counted once with its last
 * usage, loose usage counted each, unknown counts stay null, no usage at all
 * is null (not zeros).
 */
import { describe, expect, it } from "@effect/vitest"
import type { TokenUsage } from "../../src/domain/model.js"
import { usageTotals } from "../../src/domain/usage.js"
import { mk } from "../support/events.js"

const u = (i: number | null, o: number | null, r: number | null, w: number | null): TokenUsage => ({
  inputTokens: i,
  outputTokens: o,
  cacheReadTokens: r,
  cacheWriteTokens: w,
  cacheWrite1hTokens: null
})

describe("usageTotals", () => {
  it("no usage anywhere is null, never zeros", () => {
    const ev = mk("muse-agents", "s")
    expect(usageTotals([ev("message", { role: "assistant", text: "hi" })])).toBeNull()
    expect(usageTotals([])).toBeNull()
  })

  it("a response's partials count once, with the last; another source's same response id is another response", () => {
    const ev = mk("claude-code", "s")
    const events = [
      ev("message", { responseId: "m1:r1", usage: u(1, 5, 10, 2) }),
      ev("tool-call", { responseId: "m1:r1", usage: u(1, 9, 10, 2) }),
      ev("message", { responseId: "m2:r2", usage: u(4, 3, null, 0) }),
      ev("message", { responseId: null, usage: u(1, 1, 1, 1) }),
      ev("message", { responseId: null, usage: u(1, 1, 1, 1) }),
      { ...ev("message", { responseId: "m1:r1", usage: u(100, 100, 100, 100) }), sourceId: "sha256:other" }
    ]
    expect(usageTotals(events)).toEqual({ inputTokens: 107, outputTokens: 114, cacheReadTokens: 112, cacheWriteTokens: 104, cacheWrite1hTokens: null, responses: 5 })
  })

  it("a count no response reports stays null", () => {
    const ev = mk("agentmux", "s")
    expect(usageTotals([ev("message", { responseId: "a", usage: u(3, 4, null, null) })])).toEqual({
      inputTokens: 3,
      outputTokens: 4,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      cacheWrite1hTokens: null,
      responses: 1
    })
  })
})
