/**
 * Lines holding NUL bytes (a tail or a block zeroed in place by a crash or a
 * power loss: JSON text never holds a NUL byte) are skipped and counted as
 * the parse warning `zeroed-bytes`, not as `truncated-line` (a write cut
 * mid-line) or `malformed-json`: `inspect` says what they are (found by a
 * fresh user: a zeroed tail inspected as one truncated line).
 */
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Diagnostic } from "../../src/domain/model.js"
import { lineObject } from "../../src/domain/jsonl-line.js"
import { collect, copyFixtures, locatorOf, S, sessionPath, withAdapter } from "./helpers.js"

describe("lines holding NUL bytes: parse warning zeroed-bytes", () => {
  it("lineObject: a line with NUL bytes to its end, or 512 in a row, terminated or not, is zeroed-bytes", () => {
    for (const text of ["\0\0\0\0", "{\"type\":\"user\",\"mess\0\0\0", `${"\0".repeat(512)}{"a":1}`, `{"a":"${"\0".repeat(512)}x"}`]) {
      for (const terminated of [true, false]) {
        expect(lineObject({ text, lineNumber: 1, terminated }, 64)).toEqual({ _tag: "Bad", kind: "zeroed-bytes" })
      }
    }
    // A short NUL run with more of the line after it (a raw control character in a string): a bad line, as before.
    expect(lineObject({ text: "{\"a\":\"x\0y\"}", lineNumber: 1, terminated: true }, 64)).toEqual({ _tag: "Bad", kind: "malformed-json" })
    expect(lineObject({ text: `${"\0".repeat(511)}{"a":1}`, lineNumber: 1, terminated: true }, 64)).toEqual({ _tag: "Bad", kind: "malformed-json" })
    // Without NUL bytes: as before.
    expect(lineObject({ text: "{\"type\":\"us", lineNumber: 1, terminated: false }, 64)).toEqual({ _tag: "Bad", kind: "truncated-line" })
    expect(lineObject({ text: "{nope", lineNumber: 1, terminated: true }, 64)).toEqual({ _tag: "Bad", kind: "malformed-json" })
  })

  it.effect("inspect of a Claude Code log whose last half is zeroed in place: one zeroed-bytes line, at the line the zeroing began in", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      const file = sessionPath(S.S1, root)
      const bytes = fs.readFileSync(file)
      const from = bytes.length - Math.floor(bytes.length / 2)
      const line = bytes.subarray(0, from).toString("utf8").split("\n").length
      bytes.fill(0, from)
      fs.writeFileSync(file, bytes)
      const i = yield* withAdapter(root, (a) => a.inspect(locatorOf(S.S1, root)))
      expect(i.diagnostics.filter((d) => d.code === "PARSE_WARNING").map((d) => d.details)).toEqual([
        { kind: "zeroed-bytes", count: 1, firstLine: line }
      ])
      // Not a file still written: no UNTERMINATED_LAST_LINE, not provisional (the fixture's log is otherwise complete).
      expect(i.diagnostics.map((d) => d.code)).not.toContain("UNTERMINATED_LAST_LINE")
      // stream: the same warning, once, after the events (the CLI writes it on stderr).
      const warnings: Array<Diagnostic> = []
      yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S1, root), { onWarning: (d) => warnings.push(d) })))
      expect(warnings.map((d) => [d.code, d.details])).toEqual([["PARSE_WARNING", { kind: "zeroed-bytes", count: 1, firstLine: line }]])
      expect(warnings[0].message).toContain(`the session file ${file}`)
      expect(warnings[0].message).toContain("zeroed by a crash or a power loss")
      expect(i.status).toBe("complete")
    }))
})
