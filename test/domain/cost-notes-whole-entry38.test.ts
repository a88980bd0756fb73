/**
 * The cost notes' remedy "add "longContext" (or "fast") to its price under "prices" in the config file" did not say
 * that a configured price replaces the bundled one whole: a user who followed it lost the bundled fast rates of the
 * model, and its fast responses went from priced to `?` (tester37 F6). docs/usage-and-cost.md: "a configured model
 * price replaces the bundled entry whole, `fast` rates included". The remedy now says to copy the other rates.
 */
import { describe, expect, it } from "@effect/vitest"
import { costNotes } from "../../src/domain/render.js"

const WHOLE = `(a price there replaces the bundled one whole: copy its other rates into it, "fast" and "longContext" included)`

describe("cost notes: the remedy says a configured price replaces the bundled one whole (tester37 F6)", () => {
  it("long context and fast mode", () => {
    expect(costNotes.longContext("claude-opus-4-8", 2)).toBe(
      `claude-opus-4-8: 2 responses with a prompt over 200k tokens (input + cache read + cache write) and no long-context price in the price table: cost unknown, not priced at the standard rates; add "longContext" to its price under "prices" in the config file ${WHOLE}.`
    )
    expect(costNotes.fast("claude-opus-5", 1)).toBe(
      `claude-opus-5: 1 response in fast mode (usage speed "fast") and no fast-mode price in the price table: cost unknown, not priced at the standard rates; add "fast" to its price under "prices" in the config file ${WHOLE}.`
    )
  })
})
