/**
 * Claude Opus 4.7 (`claude-opus-4-7`) in the bundled price table (tester33c F3:
 * it was missing, so its responses cost `?` "not in the price table", while the
 * table's own source text quoted its fast-mode rate).
 *
 * Rates: Anthropic's pricing page (https://platform.claude.com/docs/en/about-claude/pricing,
 * "Model pricing", row "Claude Opus 4.7"): $5 input, $6.25 5-minute cache write,
 * $10 1-hour cache write, $0.50 cache hit, $25 output per million tokens. Fast
 * mode: Claude Code's fast mode page (https://code.claude.com/docs/en/fast-mode):
 * "$30/$150 MTok on Opus 4.7 and Opus 4.6", caching's multipliers on top
 * (0.1x, 1.25x, 2x the fast input rate: $3, $37.50, $60).
 *
 * By hand (µ$ = millionths of a dollar; tokens x $/M):
 *   standard, 1,000 in, 50,000 cache read, 8,000 5-minute write, 2,000 out:
 *     5,000 + 25,000 + 50,000 + 50,000 = 130,000 µ$ = $0.13
 *   standard, 1,000 1-hour write, 100 out: 10,000 + 2,500 = 12,500 µ$ = $0.0125
 *   fast, 100,000 in, 10,000 out: 3,000,000 + 1,500,000 = 4,500,000 µ$ = $4.50
 *   fast, 1,000 in, 20,000 cache read, 4,000 cache write of which 1,000 1-hour, 500 out:
 *     30,000 + 60,000 + 3,000 x 37.5 + 1,000 x 60 + 75,000 = 30,000 + 60,000 + 112,500 + 60,000 + 75,000 = 337,500 µ$ = $0.3375
 */
import { describe, expect, it } from "@effect/vitest"
import type { SessionEvent, TokenUsage } from "../../src/domain/model.js"
import { bundledPrices, priceOf } from "../../src/domain/prices.js"
import { usageSummary } from "../../src/domain/usage.js"
import { mk } from "../support/events.js"

const u = (i: number, o: number, r: number, w: number, w1h: number | null = null, speed?: string): TokenUsage => ({
  inputTokens: i,
  outputTokens: o,
  cacheReadTokens: r,
  cacheWriteTokens: w,
  cacheWrite1hTokens: w1h,
  ...(speed === undefined ? {} : { speed })
})
const one = (usage: TokenUsage) => {
  const ev = mk("claude-code", "s-opus-4-7")
  const events: Array<SessionEvent> = [ev("message", { responseId: "opus47:1", model: "claude-opus-4-7", usage })]
  return usageSummary(events, bundledPrices)!
}

describe("claude-opus-4-7 is priced from the bundled table (tester33c F3)", () => {
  it("is in the table under its exact id", () => {
    expect(priceOf(bundledPrices, "claude-opus-4-7")).toBeDefined()
  })

  it("standard: $5 / $25, cache hits $0.50, 5-minute writes $6.25, 1-hour writes $10", () => {
    const s = one(u(1_000, 2_000, 50_000, 8_000))
    expect(s.unpriced).toEqual([])
    expect(s.costUsd).toBeCloseTo(0.13, 12)
    expect(one(u(0, 100, 0, 1_000, 1_000)).costUsd).toBeCloseTo(0.0125, 12)
  })

  it("fast mode: $30 / $150, cache rates on the fast input rate", () => {
    const s = one(u(100_000, 10_000, 0, 0, null, "fast"))
    expect(s.fastUnpriced).toBeUndefined()
    expect(s.costUsd).toBeCloseTo(4.5, 12)
    expect(one(u(1_000, 500, 20_000, 4_000, 1_000, "fast")).costUsd).toBeCloseTo(0.3375, 12)
  })
})
