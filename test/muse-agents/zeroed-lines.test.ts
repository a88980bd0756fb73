/**
 * A Muse agents transcript whose tail was zeroed in place (a power loss):
 * `inspect` counts the line as the parse warning `zeroed-bytes`, not as a
 * `truncated-line`, and does not call the file one still being written
 * (found by a fresh user: the zeroed tail inspected as one truncated line).
 */
import * as fs from "node:fs"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Diagnostic } from "../../src/domain/model.js"
import { collect, copyFixtures, locatorOf, removeDir, transcriptPath, withAdapter } from "./helpers.js"

const temps: Array<string> = []
afterAll(() => temps.forEach(removeDir))

describe("muse-agents: a zeroed tail", () => {
  it.effect("inspect: one zeroed-bytes line at the line the zeroing began in; no UNTERMINATED_LAST_LINE", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      temps.push(root)
      const file = transcriptPath("cron-first", root)
      const bytes = fs.readFileSync(file)
      const from = bytes.length - Math.floor(bytes.length / 2)
      const line = bytes.subarray(0, from).toString("utf8").split("\n").length
      bytes.fill(0, from)
      fs.writeFileSync(file, bytes)
      const i = yield* withAdapter(root, (a) => a.inspect(locatorOf("cron-first", root)))
      expect(i.diagnostics.filter((d) => d.code === "PARSE_WARNING").map((d) => d.details)).toEqual([
        { kind: "zeroed-bytes", count: 1, firstLine: line }
      ])
      expect(i.diagnostics.map((d) => d.code)).not.toContain("UNTERMINATED_LAST_LINE")
      // stream: the same warning, once, after the events (the CLI writes it on stderr).
      const warnings: Array<Diagnostic> = []
      yield* withAdapter(root, (a) => collect(a.stream(locatorOf("cron-first", root), { onWarning: (d) => warnings.push(d) })))
      expect(warnings.map((d) => [d.code, d.details])).toEqual([["PARSE_WARNING", { kind: "zeroed-bytes", count: 1, firstLine: line }]])
      expect(warnings[0].message).toContain(`the transcript ${file}`)
      expect(warnings[0].message).toContain("zeroed by a crash or a power loss")
    }))
})
