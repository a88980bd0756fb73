/**
 * Two steps of an AgentMux rescan made cheaper (issue 13, session 28: the
 * rescan after a 1 MiB append < 60 ms) answer exactly what they answered:
 * - a sidecar part is "all usual records" (read in one `JSON.parse`) exactly
 *   when the text is matched by `^(?:R\r?\n)*R\r?$`, R = `{"off":N,"ms":M}`
 *   with N and M of 1 to 15 digits (the single match that was used before);
 * - the discovery entries after a rescan are ordered as a stable sort of the
 *   kept entries followed by the derived ones, latest activity first (ties:
 *   the later zone, then the later run end, first; no activity last), whether
 *   or not the kept ones were saved in that order.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { type Kept, withItems } from "../../src/layers/agentmux/scan.js"
import { isUsualRecords } from "../../src/layers/agentmux/zone-reader.js"

/** The pattern a part's text was matched with before (zone-reader.ts before session 28). */
const WHOLE_MATCH = /^(?:\{"off":\d{1,15},"ms":\d{1,15}\}\r?\n)*\{"off":\d{1,15},"ms":\d{1,15}\}\r?$/

/** Digits: usual (1-15, leading zeros too), too many (16), none. */
const digits = fc.oneof(
  fc.stringMatching(/^[0-9]{1,15}$/),
  fc.constant("0000000000000001"),
  fc.constant(""),
  fc.constant("1.5")
)
/** One line: a usual record or something near it. */
const line = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(digits, digits).map(([o, m]) => `{"off":${o},"ms":${m}}`) },
  { weight: 1, arbitrary: fc.tuple(digits, digits).map(([o, m]) => `{"ms":${m},"off":${o}}`) },
  { weight: 1, arbitrary: fc.tuple(digits, digits).map(([o, m]) => `{"off": ${o},"ms":${m}}`) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "not a record", "{}", "\r", "{\"off\":1,\"ms\":2}{\"off\":3,\"ms\":4}") }
)
const ending = fc.constantFrom("\n", "\r\n", "\r\r\n", "", " \n", "\n\n")

describe("a sidecar part's lines are all usual records", () => {
  it("exactly when the whole-text pattern matches (generated texts)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(line, ending), { maxLength: 12 }), fc.boolean(), (ls, cut) => {
        let text = ls.map(([l, e]) => l + e).join("")
        if (cut && text.length > 0) text = text.slice(0, -1)
        expect(isUsualRecords(text)).toBe(WHOLE_MATCH.test(text))
      }),
      { numRuns: 3000 }
    )
  })

  it("known cases", () => {
    const r = (o: number | string, m: number | string) => `{"off":${o},"ms":${m}}`
    expect(isUsualRecords(r(1, 2))).toBe(true)
    expect(isUsualRecords(`${r(1, 2)}\r\n${r(3, 4)}\r`)).toBe(true)
    expect(isUsualRecords(`${r(1, 2)}\n${r(3, 4)}\n`)).toBe(false) // the last line ends in its `\n`
    expect(isUsualRecords(`${r(1, 2)}\n\n${r(3, 4)}`)).toBe(false) // a blank line between
    expect(isUsualRecords(`${r(1, 2)}${r(3, 4)}`)).toBe(false) // two records on one line
    expect(isUsualRecords(`x${r(1, 2)}`)).toBe(false)
    expect(isUsualRecords(r("1234567890123456", 2))).toBe(false) // 16 digits
    expect(isUsualRecords(r("007", 2))).toBe(true) // leading zeros: the shape (JSON.parse then refuses it)
    expect(isUsualRecords("")).toBe(false)
  })
})

/** An item as `scan.ts` keeps it: `[sessionId, lastMs, zone rank, last run's end, saved]`. */
const kept = (id: string, lastMs: number | null, rank: number, end: number): Kept => ({
  item: [id, lastMs, rank, end, null],
  text: null,
  entry: id
})

/** The order the entries must have, written out: latest activity first, no activity last, then rank, then end, both larger first. */
const expected = (items: ReadonlyArray<Kept>): Array<string> =>
  items
    .map((k, i) => ({ k, i }))
    .sort((x, y) => {
      const [, la, ra, ea] = x.k.item
      const [, lb, rb, eb] = y.k.item
      if (la !== lb) {
        if (la === null) return 1
        if (lb === null) return -1
        return lb - la
      }
      if (ra !== rb) return rb - ra
      if (ea !== eb) return eb - ea
      return x.i - y.i // stable: kept before added, each in its own order
    })
    .map(({ k }) => k.entry as string)

const item = fc.tuple(fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 4 }))

describe("the discovery entries after a rescan", () => {
  it("are a stable sort of the kept entries then the derived ones (kept saved sorted, or not)", () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), fc.array(item, { maxLength: 6 }), fc.boolean(), (ks, as, presort) => {
        let keptItems = ks.map(([l, r, e], i) => kept(`k${i}`, l, r, e))
        if (presort) {
          const order = expected(keptItems)
          keptItems = order.map((id) => keptItems.find((k) => k.entry === id)!)
        }
        const added = as.map(([l, r, e], i) => kept(`a${i}`, l, r, e))
        const want = expected([...keptItems, ...added])
        expect(withItems([...keptItems], added).map((k) => k.entry)).toEqual(want)
      }),
      { numRuns: 2000 }
    )
  })
})
