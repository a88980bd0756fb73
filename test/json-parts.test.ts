/**
 * `jsonParts` (src/cli/json-parts.ts): the texts a large `--json` envelope
 * is encoded from, in parts (issue 13, figure c). Joined, they must be
 * exactly `JSON.stringify` of the value, whatever it holds: `toJSON` (with
 * the key ECMA-262 passes), values without JSON text, holes, boxed
 * primitives, class instances, getters (called once each, in the same
 * order), text above U+00FF and lone surrogates; what it cannot part
 * (a cycle, a BigInt, a throwing getter, a `toJSON` giving a `toJSON`) is
 * left to `JSON.stringify` (undefined).
 */
import { describe, expect, it } from "vitest"
import { jsonParts } from "../src/cli/json-parts.js"

class Point {
  constructor(readonly x: number, readonly y: number) {}
}

class Keyed {
  toJSON(key: string) {
    return { key, kind: "keyed" }
  }
}

/** Values covering what `JSON.stringify` does on each level. */
const samples = (): Array<[string, unknown]> => {
  const nullProto = Object.create(null) as Record<string, unknown>
  nullProto.a = 1
  nullProto.b = [1, "two"]
  const holes: Array<unknown> = [1]
  holes[3] = 4
  return [
    ["an envelope of a discovery", {
      contractVersion: "1.3.0",
      command: "discover",
      status: "ok",
      data: {
        provider: "muse-code",
        sourceCount: 2,
        sources: [{ sourceId: "sha256:ab", locator: { path: "/a/session.jsonl" } }, { sourceId: "sha256:cd", overview: null }],
        receipts: { museSourceInspections: [{ locator: "21be69ac8e68\u2026/session.jsonl" }], museEnumeration: { roots: 1 } },
        roots: ["/a"],
        omitted: {}
      },
      error: null
    }],
    ["values without JSON text: left out of objects, null in arrays", {
      a: undefined,
      b: () => 1,
      c: Symbol("s"),
      d: [undefined, () => 1, Symbol("t"), null],
      e: { f: undefined, g: 1 },
      h: 2
    }],
    ["toJSON with the key it is under, on every level", {
      top: new Keyed(),
      nested: { deeper: new Keyed(), list: [new Keyed(), { k: new Keyed() }] },
      date: new Date(0),
      gone: { toJSON: () => undefined },
      kept: 1
    }],
    ["holes, boxed primitives, non-finite numbers, class instances, a null prototype", {
      holes,
      boxed: [Object(1), Object("s"), Object(true)],
      numbers: [NaN, Infinity, -0, 1e21, 0.1],
      point: new Point(1, 2),
      points: [new Point(3, 4)],
      nullProto
    }],
    ["text above U+00FF, emoji, a lone surrogate and controls", {
      a: "plain",
      b: "\u2026 \u00e9 \u{1F389} \ud800 \u0085 \u202e \n \t \"q\" \\",
      c: ["\u4e2d\u6587", "ascii"],
      "k\u2026y": { "\ud83c": 1 }
    }],
    ["an empty object and array, and a top-level array", [{}, [], [[]], { a: {} }]],
    ["a top-level primitive", "text \u2026"],
    ["a top-level toJSON", new Keyed()],
    ["integer-like keys first, as JSON.stringify orders them", { b: 1, 2: "two", a: 3, 1: "one" }],
    ["an object with a getter", Object.defineProperty({ a: 1 }, "g", { get: () => "got", enumerable: true })]
  ]
}

describe("jsonParts", () => {
  for (const [what, value] of samples()) {
    it(`joined, is JSON.stringify's text: ${what}`, () => {
      for (const levels of [0, 1, 2, 3, 5]) {
        const parts = jsonParts(value, levels)
        expect(parts).toBeDefined()
        expect(parts!.join("")).toBe(JSON.stringify(value))
      }
      expect(jsonParts(value)!.join("")).toBe(JSON.stringify(value))
    })
  }

  it("parts each field of an envelope's data on its own: text above U+00FF in one leaves the others one byte a character", () => {
    const value = { status: "ok", data: { sources: [{ id: "a" }], receipts: { locator: "x\u2026" } } }
    const parts = jsonParts(value)!
    expect(parts).toContain(JSON.stringify([{ id: "a" }]))
    expect(parts).toContain(JSON.stringify({ locator: "x\u2026" }))
    expect(parts.join("")).toBe(JSON.stringify(value))
  })

  it("calls getters and toJSON once each, in JSON.stringify's order", () => {
    const make = (log: Array<string>) => ({
      get a() {
        log.push("a")
        return { get b() {
          log.push("b")
          return [{ toJSON: (k: string) => (log.push(`t${k}`), 1) }]
        } }
      },
      c: { toJSON: (k: string) => (log.push(`t${k}`), { get d() {
        log.push("d")
        return 2
      } }) }
    })
    const theirs: Array<string> = []
    const ours: Array<string> = []
    const text = JSON.stringify(make(theirs))
    expect(jsonParts(make(ours), 5)!.join("")).toBe(text)
    expect(ours).toEqual(theirs)
    expect(ours).toEqual(["a", "b", "t0", "tc", "d"])
  })

  it("leaves to JSON.stringify what it cannot part: no JSON text, a cycle, a BigInt, a throwing getter, a toJSON giving a toJSON", () => {
    expect(jsonParts(undefined)).toBeUndefined()
    expect(jsonParts(() => 1)).toBeUndefined()
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = { back: cyclic }
    expect(jsonParts(cyclic)).toBeUndefined()
    expect(() => JSON.stringify(cyclic)).toThrow(TypeError)
    expect(jsonParts({ data: { n: BigInt(1) } })).toBeUndefined()
    expect(jsonParts(Object.defineProperty({}, "x", { get: () => { throw new Error("no") }, enumerable: true }))).toBeUndefined()
    const twice = { data: { toJSON: () => ({ toJSON: (k: string) => `inner ${k}` }) } }
    expect(jsonParts(twice)).toBeUndefined()
    // What JSON.stringify makes of it (ECMA-262 calls toJSON once a property): the result as an object, whose
    // toJSON, a function, has no JSON text. A JSON.stringify of that result alone would call its toJSON.
    expect(JSON.stringify(twice)).toBe(`{"data":{}}`)
  })
})
