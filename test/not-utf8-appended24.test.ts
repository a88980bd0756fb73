/**
 * Session 24: UTF-16 lines appended to a UTF-8 Claude Code log (Windows PowerShell 5's `>>`): the UTF-8 lines
 * before them are imported as ever, and the appended lines are a counted parse warning that names the real cause,
 * `not-utf8` (text in UTF-16, not UTF-8: as `SOURCE_NOT_UTF8` says of a whole file), not `zeroed-bytes` (blocks a
 * crash zeroed). docs/providers.md, "Sources in another encoding than UTF-8".
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { collect, tempDir, withAdapter as withClaude } from "./claude-code/helpers.js"

const SID = "99999999-0000-4000-8000-000000000024"
const line = (uuid: string, text: string, eol = "\n") =>
  JSON.stringify({ type: "user", sessionId: SID, uuid, timestamp: "2026-11-18T10:00:00.000Z", message: { role: "user", content: text } }) + eol
const utf16be = (text: string) => Buffer.from(text, "utf16le").swap16()

const root = (appended: Buffer) => {
  const r = tempDir("si-utf16-appended-")
  const dir = nodePath.join(r, "-e")
  fs.mkdirSync(dir, { recursive: true })
  const file = nodePath.join(dir, `${SID}.jsonl`)
  fs.writeFileSync(file, Buffer.concat([Buffer.from(line("u0", "UTF8FIRST prompt") + line("u1", "UTF8SECOND prompt")), appended]))
  return { root: r, file }
}

describe("claude-code: UTF-16 lines appended to a UTF-8 log", () => {
  for (
    const [name, appended] of [
      ["UTF-16LE, no byte order mark", Buffer.from(line("u2", "APPENDED one", "\r\n") + line("u3", "APPENDED two", "\r\n"), "utf16le")],
      ["UTF-16LE after its byte order mark", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(line("u2", "APPENDED one") + line("u3", "APPENDED two"), "utf16le")])],
      ["UTF-16BE", utf16be(line("u2", "APPENDED one") + line("u3", "APPENDED two"))]
    ] as const
  ) {
    it.effect(`${name}: the UTF-8 lines stream, the appended ones a not-utf8 warning (2 lines), no zeroed-bytes`, () =>
      Effect.gen(function*() {
        const c = root(appended)
        const locator = { locatorClass: "claude-code-session-log" as const, path: c.file }
        const events = yield* withClaude(c.root, (a) => collect(a.stream(locator)))
        const texts = JSON.stringify(events)
        expect(texts).toContain("UTF8FIRST prompt")
        expect(texts).toContain("UTF8SECOND prompt")
        const report = yield* withClaude(c.root, (a) => a.inspect(locator))
        const warnings = JSON.stringify(report)
        expect(warnings, name).not.toContain("zeroed")
        expect(warnings, name).not.toContain("power loss")
        const counted = report.diagnostics.filter((d) => d.code === "PARSE_WARNING").map((d) => d.details)
        expect(counted, name).toEqual([{ kind: "not-utf8", count: 2, firstLine: 3 }])
        expect(report.diagnostics.find((d) => d.code === "PARSE_WARNING")?.message, name).toContain("UTF-16, not UTF-8")
      }))
  }
})
