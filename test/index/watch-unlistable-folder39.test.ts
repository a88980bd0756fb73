/**
 * `import --watch` and a folder under a root that cannot be listed for a while (tester39 F5). Node 20's recursive
 * watcher on Linux raises `error` (EACCES) when a folder it watches is made unreadable, and a watcher started while a
 * folder below its root cannot be listed leaves that folder out for good, in silence: not watched even once it can
 * be read again. The watch took the error, started the root's watcher again while the folder was still unreadable,
 * and said nothing was unwatched: every later append to that folder waited for the 60 s poll. Expected
 * (docs/import.md): a folder that cannot be watched counts as `unwatched` (a full round every 2 s), and once it can
 * be read again it is watched again, so an append is a targeted round at once.
 *
 * Run as `nobody` (root reads through `chmod 000`) when the tests run as root. No timed assertion: each step waits
 * for the round that says it (generous bounds, far under the 60 s poll only to fail rather than hang).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { item, setup, startWatch, stop, until } from "../support/watch-cli.js"

const NOBODY = 65534
/** The events of the setup's transcript of 3 messages. */
const EVENTS = 3
const asRoot = process.getuid?.() === 0

/** The setup's files, owned by the user the watch runs as, and the temporary folders above them enterable by it. */
const ownedSetup = (n: number) => {
  const s = setup(n)
  for (let d = path.dirname(s.dir); d !== path.dirname(d) && d.startsWith(os.tmpdir()); d = path.dirname(d)) {
    fs.chmodSync(d, fs.statSync(d).mode | 0o011)
  }
  if (asRoot) {
    const own = (p: string) => {
      fs.lchownSync(p, NOBODY, NOBODY)
      if (fs.lstatSync(p).isDirectory()) for (const e of fs.readdirSync(p)) own(path.join(p, e))
    }
    own(s.dir)
  }
  const env = { HOME: s.dir, XDG_CONFIG_HOME: path.join(s.dir, "xdg"), XDG_DATA_HOME: path.join(s.dir, "data") }
  return { ...s, env, uid: asRoot ? NOBODY : undefined, folder: path.dirname(s.file) }
}

type Watch = ReturnType<typeof startWatch>

/** Events added by the rounds so far. */
const added = (w: Watch) => w.rounds.reduce((n, r) => n + r.eventsAdded, 0)

/**
 * The folder made readable again: a round says it is watched again (no folder unwatched), then an append to the
 * transcript in it is imported by a targeted round (the watcher saw it), not by a full round.
 */
const readableAgain = (w: Watch, s: ReturnType<typeof ownedSetup>, seq: number) =>
  Effect.gen(function*() {
    fs.chmodSync(s.folder, 0o755)
    const from = w.rounds.length
    yield* until(() => w.rounds.slice(from).some((r) => r.unwatched === 0 && r.scope === "full"), 30_000)
    const before = added(w)
    const at = w.rounds.length
    fs.appendFileSync(s.file, item(seq, `appended ${seq} after the chmod back`))
    yield* until(() => added(w) > before, 30_000)
    const adding = w.rounds.slice(at).find((r) => r.eventsAdded > 0)!
    expect([adding.scope, adding.eventsAdded]).toEqual(["targeted", 1])
  })

describe("import --watch: a folder that could not be listed for a while (tester39 F5)", () => {
  it.live("made unreadable under the watch: counted unwatched while it is, watched again once readable (an append is a targeted round)", () =>
    Effect.gen(function*() {
      const s = ownedSetup(3)
      const w = startWatch(s.args(s.index), s.env, s.uid)
      try {
        // The first round, and its follow-up (the folders watched only then).
        yield* until(() => w.rounds.length >= 2, 30_000)
        expect(added(w)).toBe(EVENTS)
        // Before: an append is a targeted round (the control).
        fs.appendFileSync(s.file, item(4, "appended 4"))
        yield* until(() => added(w) === EVENTS + 1, 30_000)
        expect(w.rounds[w.rounds.length - 1].scope).toBe("targeted")
        fs.chmodSync(s.folder, 0o000)
        // The folder cannot be watched now: a round says so (and the transcript could not be read: partial).
        yield* until(() => w.rounds.some((r) => r.unwatched >= 1), 30_000)
        expect(w.rounds.filter((r) => r.unwatched >= 1).every((r) => r.coverage === "partial")).toBe(true)
        yield* readableAgain(w, s, 5)
      } finally {
        fs.chmodSync(s.folder, 0o755)
      }
      expect(yield* stop(w.child, w.exited)).toBe(130)
      expect(w.errors.map((e) => e.code)).toEqual(["INTERRUPTED"])
    }), 120_000)

  it.live("unreadable when the watch starts: counted unwatched from the first round, watched once readable", () =>
    Effect.gen(function*() {
      const s = ownedSetup(3)
      fs.chmodSync(s.folder, 0o000)
      const w = startWatch(s.args(s.index), s.env, s.uid)
      try {
        yield* until(() => w.rounds.length >= 1, 30_000)
        expect(w.rounds[0].unwatched).toBe(1)
        yield* readableAgain(w, s, 4)
        // The transcript's 3 messages and header came with the round that found it readable again; the append after.
        expect(added(w)).toBe(EVENTS + 1)
      } finally {
        fs.chmodSync(s.folder, 0o755)
      }
      expect(yield* stop(w.child, w.exited)).toBe(130)
      expect(w.errors.map((e) => e.code)).toEqual(["INTERRUPTED"])
    }), 120_000)
})
