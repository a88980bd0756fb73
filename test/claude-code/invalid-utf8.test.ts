/**
 * claude-code (tolerant): a line whose bytes are not valid UTF-8 is kept (its
 * bad bytes read as U+FFFD, as Claude Code's own readers do) and counted as a
 * parse warning `invalid-utf8` (first line, count), in the session file and
 * in a subagent file alike; a line already skipped for another cause (bad
 * JSON) is counted once, for that cause.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { cli } from "../support/run.js"
import { collect, tempDir, withAdapter } from "./helpers.js"

const SID = "eeeeeeee-2222-4333-8444-555555555555"
const rec = (i: number, text: string, extra: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      type: "user",
      cwd: "/home/mal/w",
      sessionId: SID,
      message: { role: "user", content: text },
      uuid: `00000000-0000-4000-9000-${String(i).padStart(12, "0")}`,
      timestamp: `2026-05-01T00:00:0${i}.000Z`,
      ...extra
    })
  )
/** `rec` with the bytes of `bad` where `@@` stands in its text. */
const withBytes = (b: Buffer, bad: Buffer) => {
  const at = b.indexOf("@@")
  return Buffer.concat([b.subarray(0, at), bad, b.subarray(at + 2)])
}

const setup = () => {
  const root = tempDir("si-claude-utf8-")
  const dir = nodePath.join(root, "-home-mal-w")
  fs.mkdirSync(nodePath.join(dir, SID, "subagents"), { recursive: true })
  const lines = [
    rec(1, "ok first"),
    withBytes(rec(2, "bad utf8 @@ here"), Buffer.from([0xff, 0xfe, 0xc3, 0x28])),
    withBytes(rec(3, "again @@"), Buffer.from([0xed, 0xa0, 0x80])), // an encoded surrogate: not UTF-8
    withBytes(Buffer.from('{"type":"user", broken @@'), Buffer.from([0xff])), // bad JSON too: one warning, its own
    rec(5, "ok last")
  ]
  fs.writeFileSync(nodePath.join(dir, `${SID}.jsonl`), Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")])))
  const sub = [rec(1, "sub ok", { isSidechain: true, agentId: "a1" }), withBytes(rec(2, "sub @@", { isSidechain: true, agentId: "a1" }), Buffer.from([0x80]))]
  fs.writeFileSync(nodePath.join(dir, SID, "subagents", "agent-a1.jsonl"), Buffer.concat(sub.flatMap((l) => [l, Buffer.from("\n")])))
  return { root, file: nodePath.join(dir, `${SID}.jsonl`) }
}

describe("claude-code: invalid UTF-8 inside a line", () => {
  it.effect("kept, with its bad bytes as U+FFFD, and counted as invalid-utf8 (session and subagent files)", () =>
    Effect.gen(function*() {
      const c = setup()
      const r = yield* withAdapter(c.root, (a) => a.discover({}))
      expect(r.sources).toHaveLength(1)
      const s = r.sources[0].summary
      const warnings = s.parseWarnings as Array<{ kind: string; count: number; firstLine: number | null }>
      expect(warnings.map((w) => [w.kind, w.count, w.firstLine]).sort()).toEqual([["malformed-json", 1, 4], ["invalid-utf8", 2, 2]].sort())
      expect(s.promptCount).toBe(4)
      const inspected = yield* withAdapter(c.root, (a) => a.inspect({ locatorClass: "claude-code-session-log", path: c.file }))
      const sub = (inspected.provenance as { subagentParseWarnings: Array<{ kind: string; count: number }> }).subagentParseWarnings
      expect(sub.map((w) => [w.kind, w.count])).toEqual([["invalid-utf8", 1]])
      expect(inspected.diagnostics.map((d) => d.message).join("\n")).toContain("invalid UTF-8")
      const events = yield* withAdapter(c.root, (a) => collect(a.stream({ locatorClass: "claude-code-session-log", path: c.file })))
      const texts = events.map((e) => JSON.stringify(e)).filter((t) => t.includes("bad utf8") || t.includes("again"))
      expect(texts.length).toBeGreaterThanOrEqual(2)
      expect(texts.join("")).toContain("\ufffd")
    }))

  it("the import report says those lines kept, the bad JSON line skipped", () => {
    const c = setup()
    const dir = tempDir("si-claude-utf8-idx-")
    const r = cli(["import", "--index", nodePath.join(dir, "idx.db"), "--claude-root", c.root, "--agents-root", nodePath.join(dir, "none"), "--muse-root", nodePath.join(dir, "none"), "--workspace", dir], {
      env: { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }
    })
    expect([0, 8]).toContain(r.code)
    const line = r.stdout.split("\n").find((l) => l.includes("parse warnings:"))!
    expect(line).toMatch(/1 line skipped in 1 source \(malformed-json 1\)/)
    expect(line).toMatch(/2 lines kept with invalid UTF-8 \(invalid-utf8 2: /)
  })
})
