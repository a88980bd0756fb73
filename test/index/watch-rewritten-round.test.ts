/**
 * `import --watch` without `--json` (tester32a F1, F4): a round that reads a
 * source rewritten after a prefix of what was imported prints its
 * `SOURCE_REWRITTEN` diagnostic, as a plain import does (it is said once, in
 * the run that read the file: no later run says it); a new generation of a
 * session already in the index is not "+1 session"; and a change that is no
 * growth (an in-place edit of the same size) goes to the importer's check at
 * once, not "1 unchanged".
 */
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { item, setup, startWatch, stop, until } from "../support/watch-cli.js"

/** The text after the round line that begins `round N `, up to the next round line. */
const roundText = (stdout: string, n: number): string => {
  const at = stdout.indexOf(`round ${n} `)
  if (at < 0) return ""
  const next = stdout.indexOf("\nround ", at + 1)
  return stdout.slice(at, next < 0 ? undefined : next + 1)
}

const header = JSON.stringify({ type: "session_header", session_id: "s-1", agent_id: "a1", created_at: "2025-04-01T10:00:00Z" }) + "\n"

describe("import --watch, human output (tester32a F1, F4)", () => {
  it.live("a rolled-back and written-on source: the round says SOURCE_REWRITTEN and no new session", () =>
    Effect.gen(function*() {
      const s = setup(6)
      const w = startWatch(s.args(s.index).filter((a) => a !== "--json"))
      yield* until(() => /round 1 .*\+1 session, \+6 events/.test(w.stdout()))
      // A rollback: the first 2 messages, then a new one.
      fs.writeFileSync(s.file, header + item(1, "message 1") + item(2, "message 2") + item(3, "new stuff"))
      yield* until(() => /new generation/.test(w.stdout()) && /SOURCE_REWRITTEN/.test(w.stdout()), 20_000)
      expect(yield* stop(w.child, w.exited)).toBe(130)
      const out = w.stdout()
      const n = Number(/round (\d+) [^\n]*new generation/.exec(out)![1])
      const text = roundText(out, n)
      // Said under that round's line, as the plain import's `diagnostics:` says it.
      expect(text).toMatch(/\n {2}diagnostics:\n {4}- muse-agents: SOURCE_REWRITTEN: [^\n]*no longer holds 4 of them/)
      expect(text).toContain("so those 4 imported events, with their usage and cost, are no longer shown")
      // Its session was in the index already: a new generation of it, not a new session.
      expect(text.split("\n")[0]).toMatch(/: \+0 sessions, \+3 events; 1 imported, 0 unchanged, 1 new generation; [a-z]+( \([A-Z_, ]+\))?; /)
    }), 60_000)

  it.live("an in-place edit of the same size: imported at that change as a new generation, said as SOURCE_REWRITTEN", () =>
    Effect.gen(function*() {
      const s = setup(60)
      const w = startWatch(s.args(s.index).filter((a) => a !== "--json"))
      yield* until(() => /round 1 .*\+60 events/.test(w.stdout()))
      // 7 bytes in the middle of message 30 overwritten in place: same inode, same size.
      const text = fs.readFileSync(s.file, "utf8")
      const at = text.indexOf("message 30") + 2
      const fd = fs.openSync(s.file, "r+")
      fs.writeSync(fd, "koalaxx", Buffer.byteLength(text.slice(0, at)))
      fs.closeSync(fd)
      expect(fs.statSync(s.file).size).toBe(Buffer.byteLength(text))
      yield* until(() => /new generation/.test(w.stdout()), 20_000)
      expect(yield* stop(w.child, w.exited)).toBe(130)
      const out = w.stdout()
      const n = Number(/round (\d+) [^\n]*new generation/.exec(out)![1])
      const round = roundText(out, n)
      expect(round.split("\n")[0]).toMatch(/: \+0 sessions, \+60 events; 1 imported, 0 unchanged, 1 new generation; [a-z]+( \([A-Z_, ]+\))?; /)
      expect(round).toMatch(/- muse-agents: SOURCE_REWRITTEN: [^\n]*no longer holds 1 of them/)
      // One event: said in the singular (not "those 1 imported events").
      expect(round).toContain("so that imported event, with its usage and cost, is no longer shown")
      // No round between called the edited file unchanged and complete.
      for (let k = 2; k < n; k++) expect(roundText(out, k)).not.toMatch(/0 imported, 1 unchanged/)
    }), 60_000)
})
