/**
 * A Muse Code native log written on after its `session.end` (`muse resume`,
 * seed 001, writes on in the same log; tester34a F1). One rule for what
 * follows the end: a whole line is read like any other, and a torn
 * (unterminated) last line is an append in progress wherever it is: left
 * out, the source accepted, and the line imported once it is whole
 * (docs/import.md "A partial last line ... is held back as an append in
 * progress"). Before, a torn line after `session.end` rejected the whole
 * source (`MALFORMED_SOURCE`), under `import` and in a watch round.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { nativeSessionPath } from "../../bench/generate/native.js"
import { cliJson } from "../support/run.js"
import { museNativeRoot } from "../support/source-roots.js"
import { startWatch, stop, until } from "../support/watch-cli.js"

/** The log's last record again under the next `sequence` (a whole line, newline included). */
const nextRecordLine = (file: string): string => {
  const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n")
  const last = JSON.parse(lines[lines.length - 1]) as { sequence: number; payload_type: string }
  return JSON.stringify({ ...last, sequence: last.sequence + 1 }) + "\n"
}

const fixture = () => {
  const m = museNativeRoot(1)
  const file = nativeSessionPath(m.root, 0)
  const last = fs.readFileSync(file, "utf8").trimEnd().split("\n").pop()!
  // The generator ends each log with `session.end`: what this test writes after.
  expect(JSON.parse(last).payload_type).toBe("session.end")
  const empty = path.join(m.dir, "empty")
  fs.mkdirSync(empty)
  const args = ["import", "--index", path.join(m.dir, "idx.db"), "--muse-root", m.root, "--agents-root", empty, "--claude-root", empty, "--workspace", m.ws]
  return { ...m, file, args }
}

const rejected = (report: any): number => report.sources.rejected

describe("Muse Code native: what follows session.end (tester34a F1)", () => {
  it("import: a torn last line after session.end is held back, not a rejection; whole, it is imported", () => {
    const f = fixture()
    const first = cliJson(f.args)
    expect(first.status).toBe("ok")
    expect(first.data.sources.accepted).toBe(1)
    const events = first.data.eventsAdded as number
    expect(events).toBeGreaterThan(0)
    const line = nextRecordLine(f.file)
    fs.appendFileSync(f.file, line.slice(0, 40)) // a write cut mid-line
    const torn = cliJson(f.args)
    expect(torn.status).toBe("ok")
    expect(rejected(torn.data)).toBe(0)
    expect(torn.data.sources.accepted).toBe(1)
    expect(torn.data.eventsAdded).toBe(0)
    expect(torn.data.causes.map((c: any) => c.code)).not.toContain("MALFORMED_SOURCE")
    fs.appendFileSync(f.file, line.slice(40)) // the write completed
    const whole = cliJson(f.args)
    expect(whole.status).toBe("ok")
    expect(rejected(whole.data)).toBe(0)
    expect(whole.data.eventsAdded).toBe(1)
  }, 120_000)

  it("import: a whole line after session.end is imported (the same rule)", () => {
    const f = fixture()
    expect(cliJson(f.args).data.sources.accepted).toBe(1)
    fs.appendFileSync(f.file, nextRecordLine(f.file))
    const r = cliJson(f.args)
    expect(rejected(r.data)).toBe(0)
    expect(r.data.eventsAdded).toBe(1)
  }, 120_000)

  it.live("import --watch: the round that sees the torn line rejects nothing; the completed line is its event", () =>
    Effect.gen(function*() {
      const f = fixture()
      const w = startWatch([...f.args, "--json"])
      const events = () => w.rounds.reduce((n, r) => n + r.eventsAdded, 0)
      yield* until(() => w.rounds.length >= 1 && events() > 0)
      yield* Effect.sleep("1500 millis") // past the follow-up round of a first import, if any
      const imported = events()
      const before = w.rounds.length
      const line = nextRecordLine(f.file)
      fs.appendFileSync(f.file, line.slice(0, 40))
      yield* until(() => w.rounds.length > before, 30_000)
      const tornRounds = w.rounds.slice(before)
      expect(tornRounds.flatMap((r) => r.causes)).not.toContain("MALFORMED_SOURCE")
      // The same causes as the first round's (the empty agents and Claude Code roots): nothing of the Muse log's.
      for (const r of tornRounds) expect([...r.causes].sort()).toEqual([...w.rounds[0].causes].sort())
      expect(events()).toBe(imported)
      fs.appendFileSync(f.file, line.slice(40))
      yield* until(() => events() >= imported + 1, 30_000)
      expect(events()).toBe(imported + 1)
      expect(w.rounds.flatMap((r) => r.causes)).not.toContain("MALFORMED_SOURCE")
      expect(yield* stop(w.child, w.exited)).toBe(130)
    }), 100_000)
})
