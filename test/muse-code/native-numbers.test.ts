/**
 * Numbers JSON does not carry exactly (`1e400`, `-0`, `1E-400`, 30 digits):
 * the events hold what `JSON.parse` made of them, and the source's one
 * `NUMBER_NOT_EXACT` diagnostic says so, counted, with the first, through
 * `inspect`, `stream` (stderr) and the import report.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fc from "effect/FastCheck"
import { canonicalMember, canonicalMemberAndNumbers, inexactNumbers, numberNotExact } from "../../src/domain/json.js"
import type { Diagnostic } from "../../src/domain/model.js"
import { cli } from "../support/run.js"
import { adapterWith, end, metadata, opened, record, tempDir, writeLog } from "./native-helpers.js"

describe("inexactNumbers", () => {
  it("finds the numbers whose parsed value writes back as another value, and only those", () => {
    for (const t of ["1e400", "-1E400", "-0", "-0.0", "-0e5", "1E-400", "123456789012345678901234567890", "9007199254740993", "0.12345678901234567891", "4.9e-324"]) {
      expect(numberNotExact(t), t).toBe(true)
    }
    for (const t of ["0", "1", "-1", "0.1", "-0.5", "1.50000000000000000000", "5e-324", "1e308", "9007199254740992", "1e21", "2.5E+3", "0e5", "123456789012345"]) {
      expect(numberNotExact(t), t).toBe(false)
    }
    expect(inexactNumbers(`{"a":1e400,"b":[-0, 1E-400],"c":{"d":123456789012345678901234567890},"e":1.5}`)).toEqual({ count: 4, first: "1e400" })
    // Numbers inside strings are text: never counted (escaped quotes included).
    expect(inexactNumbers(`{"a":"x:1e400, [-0 \\":1e999","t":"2026-01-01T00:00:00.000Z","id":"3e4f-0a"}`)).toBeUndefined()
    expect(inexactNumbers(`{"a":"\\\\",  "b" : -0}`)).toEqual({ count: 1, first: "-0" })
    expect(inexactNumbers(`{"a":1,"b":[0.5,-2,1e5]}`)).toBeUndefined()
    // Spaced JSON (a writer's ", " and ": "), and epoch microseconds (16 digits, below 2^53: exact).
    expect(inexactNumbers(`{"a": 1e400, "b": [ -0 ], "c": 9007199254740993}`)).toEqual({ count: 3, first: "1e400" })
    expect(inexactNumbers(`{"recorded_at":1790349213894901,"n":[-1,0.25]}`)).toBeUndefined()
  })
})

/** JSON number tokens (the grammar's every part), weighted to the edges: long mantissas, big and small exponents, `-0`, 16 digits. */
const numberToken: fc.Arbitrary<string> = fc.oneof(
  fc.record({
    neg: fc.boolean(),
    int: fc.oneof(fc.constant("0"), fc.tuple(fc.integer({ min: 1, max: 9 }), fc.stringMatching(/^[0-9]{0,24}$/)).map(([d, r]) => `${d}${r}`)),
    frac: fc.option(fc.stringMatching(/^[0-9]{1,24}$/), { nil: undefined }),
    exp: fc.option(fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 280, max: 420 }))), { nil: undefined })
  }).map(({ neg, int, frac, exp }) => `${neg ? "-" : ""}${int}${frac !== undefined ? `.${frac}` : ""}${exp !== undefined ? `${exp[0]}${exp[1]}${exp[2]}` : ""}`),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }).map(String),
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.stringMatching(/^[0-9]{15}$/)).map(([d, r]) => `${d}${r}`),
  fc.constantFrom("-0", "-0.0", "-0e5", "0e-999", "1e400", "1E-400", "4.9e-324", "5e-324", "9007199254740993", "9007199254740992", "0.10000000000000000001", "100000.00000000000000001", "100000000000000001e-12")
)

/** A string's JSON text that looks like numbers, structure and escapes (`":1e400`, `\\"`, a UUID `3e4f`). */
const hostileString: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.constantFrom(":1e400", ", -0", "[9007199254740993", "\\", "\"", "3e4f-0a", "0e0001", " ", "é", "\u2028"), numberToken, fc.string({ maxLength: 6 })), { maxLength: 6 })
  .map((parts) => JSON.stringify(parts.join("")))

/** A JSON value's text with the tokens it holds, in text order; spaced or compact. */
const jsonWithNumbers: fc.Arbitrary<{ text: string; numbers: Array<string> }> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    numberToken.map((t) => ({ text: t, numbers: [t] })),
    hostileString.map((t) => ({ text: t, numbers: [] as Array<string> })),
    fc.constantFrom("true", "false", "null").map((t) => ({ text: t, numbers: [] as Array<string> })),
    fc.tuple(fc.array(tie("value"), { maxLength: 5 }), fc.constantFrom("", " ", "\n\t ")).map(([items, ws]) => ({
      text: `[${ws}${items.map((i) => (i as { text: string }).text).join(`${ws},${ws}`)}${ws}]`,
      numbers: items.flatMap((i) => (i as { numbers: Array<string> }).numbers)
    })),
    fc.tuple(fc.array(fc.tuple(hostileString, tie("value")), { maxLength: 5 }), fc.constantFrom("", " ", "\r\n")).map(([entries, ws]) => ({
      text: `{${ws}${entries.map(([k, v]) => `${k}${ws}:${ws}${(v as { text: string }).text}`).join(`,${ws}`)}${ws}}`,
      numbers: entries.flatMap(([, v]) => (v as { numbers: Array<string> }).numbers)
    }))
  )
})).value as fc.Arbitrary<{ text: string; numbers: Array<string> }>

describe("inexactNumbers skips no number JSON does not carry exactly (its cheap test is a superset)", () => {
  it("a token alone: counted exactly when numberNotExact says so", () => {
    fc.assert(
      fc.property(numberToken, fc.constantFrom("[%]", "{\"a\":%}", "[1, %]", "{\"a\" :\t%}", "%"), (t, at) => {
        expect(() => JSON.parse(at.replace("%", t))).not.toThrow()
        expect(inexactNumbers(at.replace("%", t))?.count ?? 0).toBe(numberNotExact(t) ? 1 : 0)
      }),
      { numRuns: 5000 }
    )
  })

  it("a generated document: the count and the first are those of its number tokens, strings never counted", () => {
    fc.assert(
      fc.property(jsonWithNumbers, ({ text, numbers }) => {
        expect(() => JSON.parse(text)).not.toThrow()
        const inexact = numbers.filter(numberNotExact)
        expect(inexactNumbers(text)).toEqual(inexact.length === 0 ? undefined : { count: inexact.length, first: inexact[0] })
      }),
      { numRuns: 1500 }
    )
  })
})

describe("canonicalMemberAndNumbers: a record line's payload text and inexact numbers in one pass", () => {
  it("counts every inexact number of the line (before, inside and after the payload) and answers only JSON.stringify of the payload", () => {
    let canonical = 0
    let counted = 0
    let canonicalCounted = 0
    fc.assert(
      fc.property(jsonWithNumbers, jsonWithNumbers, fc.boolean(), (around, payload, before) => {
        const line = before ? `{"n":${around.text},"payload":${payload.text}}` : `{"payload":${payload.text},"n":${around.text}}`
        const parsed = JSON.parse(line) as Record<string, unknown>
        const scan = canonicalMemberAndNumbers(line, "payload", parsed.payload)
        const inexact = (before ? [...around.numbers, ...payload.numbers] : [...payload.numbers, ...around.numbers]).filter(numberNotExact)
        expect(scan.inexact).toEqual(inexact.length === 0 ? undefined : { count: inexact.length, first: inexact[0] })
        if (scan.canonical !== undefined) {
          expect(scan.canonical.value).toBe(parsed.payload)
          expect(scan.canonical.text).toBe(JSON.stringify(parsed.payload))
          expect(line.slice(scan.canonical.at, scan.canonical.at + scan.canonical.text.length)).toBe(scan.canonical.text)
        }
        // the same as the two passes it stands for
        expect(scan.canonical).toEqual(canonicalMember(line, "payload", parsed.payload))
        if (scan.canonical !== undefined) canonical++
        if (inexact.length > 0) counted++
        if (scan.canonical !== undefined && inexact.length > 0) canonicalCounted++
      }),
      { numRuns: 3000 }
    )
    // not vacuous: lines with a canonical payload, with inexact numbers, and with both
    expect(canonical).toBeGreaterThan(50)
    expect(counted).toBeGreaterThan(50)
    expect(canonicalCounted).toBeGreaterThan(5)
  })

  it("a line whose payload is not canonical still has its numbers counted", () => {
    expect(canonicalMemberAndNumbers(`{"payload":{"a": 1e400},"b":-0}`, "payload", { a: Infinity })).toEqual({
      canonical: undefined,
      inexact: { count: 2, first: "1e400" }
    })
    const line = `{"recorded_at":1790349213894901,"payload":{"a":[1,2.5]},"b":123456789012345678901234567890}`
    expect(canonicalMemberAndNumbers(line, "payload", { a: [1, 2.5] })).toEqual({
      canonical: { value: { a: [1, 2.5] }, text: `{"a":[1,2.5]}`, at: line.indexOf(`{"a"`) },
      inexact: { count: 1, first: "123456789012345678901234567890" }
    })
  })
})

/** A native log whose payload holds the four numbers as their source text. */
const logWithNumbers = (root: string, id: string): string => {
  const lines = [
    JSON.stringify(metadata(0, "/workspace/demo", id)),
    JSON.stringify(opened(1, id)),
    JSON.stringify(record(2, "runtime.session", { kind: "run", event: { kind: "started", big: "@BIG", neg: "@NEG", tiny: "@TINY", long: "@LONG" } }, id))
      .replace(`"@BIG"`, "1e400").replace(`"@NEG"`, "-0").replace(`"@TINY"`, "1E-400").replace(`"@LONG"`, "123456789012345678901234567890"),
    JSON.stringify(record(3, "runtime.session", { kind: "run", event: { kind: "started", ok: 0.1 } }, id)),
    JSON.stringify(end(4, id))
  ]
  return writeLog(root, "2026/09/25", id, lines.join("\n") + "\n")
}

const ID = "33333333-3333-4333-8333-333333333333"

describe("a native log with numbers JSON does not carry exactly", () => {
  it.effect("inspect and stream (with onWarning) report one counted NUMBER_NOT_EXACT naming the first and its line; an exact log reports none", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const log = logWithNumbers(root, ID)
      const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: ["/workspace/demo"] } })
      const locator = { locatorClass: "muse-native-session-log" as const, path: log }
      const i = yield* adapter.inspect(locator)
      const d = i.diagnostics.filter((x) => x.code === "NUMBER_NOT_EXACT")
      expect(d.length).toBe(1)
      expect(d[0].details).toMatchObject({ count: 4, first: "1e400" })
      const offset = fs.readFileSync(log, "utf8").indexOf(`{"schema_version":1,"id":"rec-3333-2"`)
      expect(d[0].message).toContain(`line at byte ${offset}`)
      expect(d[0].remediation).toContain("rawReference")
      const warnings: Array<Diagnostic> = []
      const events = Chunk.toArray(yield* Stream.runCollect(adapter.stream(locator, { onWarning: (w) => warnings.push(w) })))
      expect(events.length).toBeGreaterThan(0)
      expect(warnings.map((w) => [w.code, w.details?.count])).toEqual([["NUMBER_NOT_EXACT", 4]])
      // The stream's values are unchanged: what JSON.parse made of them (the source keeps the exact text).
      expect(JSON.stringify(events)).toContain(`"big":null`)
      // Without onWarning nothing changes; a log of exact numbers reports nothing.
      const clean = writeLog(root, "2026/09/25", "44444444-4444-4444-8444-444444444444", [metadata(0, "/workspace/demo"), opened(1), end(2)].map((l) => JSON.stringify(l)).join("\n") + "\n")
      const none: Array<Diagnostic> = []
      yield* Stream.runDrain(adapter.stream({ ...locator, path: clean }, { onWarning: (w) => none.push(w) }))
      expect(none).toEqual([])
      const ci = yield* adapter.inspect({ ...locator, path: clean })
      expect(ci.diagnostics.map((x) => x.code)).not.toContain("NUMBER_NOT_EXACT")
    }))

  it("stream writes the warning on stderr, counted, stdout unchanged; import reports it", () => {
    const root = tempDir()
    const log = logWithNumbers(root, ID)
    const args = ["stream", "muse-code", log, "--locator-class", "muse-native-session-log", "--muse-root", root, "--workspace", "/workspace/demo"]
    for (const extra of [[], ["--lean"], ["--include-subagents"]]) {
      const r = cli([...args, ...extra])
      expect(r.code).toBe(0)
      expect(r.stderr).toMatch(/NUMBER_NOT_EXACT: 4 number\(s\)/)
      expect(r.stderr).toContain("1e400")
      expect(r.stdout.length).toBeGreaterThan(0)
    }
    const index = path.join(tempDir(), "index.db")
    const imp = cli(["import", "--json", "--index", index, "--muse-root", root, "--workspace", "/workspace/demo", "--state", path.join(tempDir(), "state.db")])
    const report = JSON.parse(imp.stdout) as { data: { providers: Array<{ provider: string; diagnostics: Array<Diagnostic> }> } }
    const diags = report.data.providers.flatMap((p) => p.diagnostics).filter((d) => d.code === "NUMBER_NOT_EXACT")
    expect(diags.map((d) => d.details?.count)).toEqual([4])
  })
})
