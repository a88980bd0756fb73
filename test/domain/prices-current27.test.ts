/**
 * The Claude 5 generation and Opus 4.8 in the bundled price table
 * (data/prices.json), from Anthropic's pricing page
 * (https://platform.claude.com/docs/en/about-claude/pricing, "Model pricing")
 * and each model's page for its API model id. Before, these models had no
 * price: their cost was unknown (`?`).
 *
 * By hand (µ$ = millionths of a dollar; tokens x $/M):
 *   claude-fable-5-1 ($10 in, $50 out, $0.25 cache hit, $12.50 5m / $20 1h write),
 *     2,000 in, 150,000 cache read, 10,000 cache write of which 4,000 1-hour, 3,000 out:
 *     2,000 x 10 + 150,000 x 0.25 + 6,000 x 12.5 + 4,000 x 20 + 3,000 x 50
 *     = 20,000 + 37,500 + 75,000 + 80,000 + 150,000 = 362,500 µ$ = $0.3625
 *   claude-fable-5 (the same but a $1 cache hit), the same tokens:
 *     20,000 + 150,000 + 75,000 + 80,000 + 150,000 = 475,000 µ$ = $0.475
 *   claude-opus-4-8 ($5, $25, $0.50, $6.25, $10), 1,000 in, 50,000 cache read, 8,000 5-minute write, 2,000 out:
 *     5,000 + 25,000 + 50,000 + 50,000 = 130,000 µ$ = $0.13
 *   claude-sonnet-5 ($2, $10, $0.20, $2.50, $4), 1,000 in, 100,000 cache read, 1,000 1-hour write, 500 out:
 *     2,000 + 20,000 + 4,000 + 5,000 = 31,000 µ$ = $0.031
 *   claude-opus-5 with 250,000 input tokens (a prompt over 200k): no long-context rate is
 *     published for it, so the cost is unknown and noted, never the standard rates.
 */
import { describe, expect, it } from "@effect/vitest"
import type { SessionEvent, TokenUsage } from "../../src/domain/model.js"
import { bundledPrices, priceOf } from "../../src/domain/prices.js"
import { usageSummary } from "../../src/domain/usage.js"
import { mk } from "../support/events.js"

const u = (i: number, o: number, r: number, w: number, w1h: number | null = null): TokenUsage => ({
  inputTokens: i,
  outputTokens: o,
  cacheReadTokens: r,
  cacheWriteTokens: w,
  cacheWrite1hTokens: w1h
})
const one = (model: string, usage: TokenUsage) => {
  const ev = mk("claude-code", `s-${model}`)
  const events: Array<SessionEvent> = [ev("message", { responseId: `${model}:1`, model, usage })]
  return usageSummary(events, bundledPrices)!
}

describe("the Claude 5 generation and Opus 4.8 are priced from the bundled table", () => {
  it("claude-fable-5-1: cache hits at $0.25 (0.025x input), 1-hour writes at $20", () => {
    const s = one("claude-fable-5-1", u(2_000, 3_000, 150_000, 10_000, 4_000))
    expect(s.unpriced).toEqual([])
    expect(s.costUsd).toBeCloseTo(0.3625, 12)
  })

  it("claude-mythos-5-1 has Fable 5.1's rates", () => {
    expect(one("claude-mythos-5-1", u(2_000, 3_000, 150_000, 10_000, 4_000)).costUsd).toBeCloseTo(0.3625, 12)
  })

  it("claude-fable-5 and claude-mythos-5: cache hits at $1", () => {
    expect(one("claude-fable-5", u(2_000, 3_000, 150_000, 10_000, 4_000)).costUsd).toBeCloseTo(0.475, 12)
    expect(one("claude-mythos-5", u(2_000, 3_000, 150_000, 10_000, 4_000)).costUsd).toBeCloseTo(0.475, 12)
  })

  it("claude-opus-4-8 and claude-opus-5 at $5 / $25, 5-minute writes at $6.25", () => {
    expect(one("claude-opus-4-8", u(1_000, 2_000, 50_000, 8_000)).costUsd).toBeCloseTo(0.13, 12)
    expect(one("claude-opus-5", u(1_000, 2_000, 50_000, 8_000)).costUsd).toBeCloseTo(0.13, 12)
  })

  it("claude-sonnet-5 at $2 / $10, cache hits $0.20, 1-hour writes $4", () => {
    expect(one("claude-sonnet-5", u(1_000, 500, 100_000, 1_000, 1_000)).costUsd).toBeCloseTo(0.031, 12)
  })

  it("a prompt over 200k tokens on one of them has no known cost (no published long-context rate), with a note", () => {
    const s = one("claude-opus-5", u(250_000, 1, 0, 0))
    expect(s.costUsd).toBeNull()
    expect(s.longContextUnpriced).toEqual([{ model: "claude-opus-5", responses: 1 }])
  })

  it("their ids are exact and undated (Anthropic gives these models no date suffix): nothing is guessed from a near name", () => {
    for (const id of ["claude-fable-5-1", "claude-mythos-5-1", "claude-fable-5", "claude-mythos-5", "claude-opus-5", "claude-opus-4-8", "claude-sonnet-5"]) {
      expect(priceOf(bundledPrices, id)).toBeDefined()
    }
    expect(priceOf(bundledPrices, "claude-fable-5-1-20260901")).toBeUndefined()
    // an older model's dated id and its alias both resolve, as before
    expect(priceOf(bundledPrices, "claude-opus-4-5-20251101")).toEqual(priceOf(bundledPrices, "claude-opus-4-5"))
  })
})
