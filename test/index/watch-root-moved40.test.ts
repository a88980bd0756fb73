/**
 * `import --watch --claude-root w1/root --agents-root w1/root`, then `mv w1/root w1/root-real && ln -s
 * $PWD/w1/root-real w1/root` (tester39 F8): the watch followed the new real path and imported every session again
 * under it, so `sessions` listed each twice, the old copies neither gone nor superseded. A watched root is not
 * followed to another place (session-ingest follows no symlink below a root; a source replaced by a symlink is kept
 * and the link not read): the round says the root now resolves elsewhere (`WATCHED_ROOT_MOVED`, partial, naming
 * both places), reads nothing there, and keeps what it imported; once the folder is put back, rounds go on as before.
 * Nothing is timed: each step waits for the round that reports it (bounded at 30 s).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { claudeTurnsLog } from "../support/claude-import.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { item, startWatch, stop, until } from "../support/watch-cli.js"

const SID = "40404040-0000-4000-8000-0000000000f8"
const PROJECT = "-home-me-f8"

describe("a watched root swapped for a symlink to its moved folder (tester39 F8)", () => {
  it.live("is not followed: the round says where it resolves now, no session is imported twice, and the folder put back is read again", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-root-moved40-")
      const w1 = path.join(dir, "w1")
      const root = path.join(w1, "root")
      // One folder holds both layouts, as the tester's: a Claude Code project and a Muse agents agent.
      fs.mkdirSync(path.join(root, PROJECT), { recursive: true })
      fs.writeFileSync(path.join(root, PROJECT, `${SID}.jsonl`), claudeTurnsLog(SID, [["user", "hello"], ["assistant", "hi"]], "2026-01-02T10:00:00Z"))
      fs.mkdirSync(path.join(root, "a1", "sessions"), { recursive: true })
      const transcript = path.join(root, "a1", "sessions", "a1.jsonl")
      fs.writeFileSync(transcript, JSON.stringify({ type: "session_header", session_id: "s-1", agent_id: "a1", created_at: "2025-04-01T10:00:00Z" }) + "\n" + item(1, "one"))
      const index = path.join(dir, "index.db")
      const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
      const w = startWatch(["import", "--index", index, "--claude-root", root, "--agents-root", root, "--workspace", dir, "--json"], env)
      const listed = () => {
        const r = cli(["sessions", "--index", index, "--json"], { env })
        return (JSON.parse(r.stdout).data as Array<{ provider: string; sessionId: string }>).map((s) => `${s.provider} ${s.sessionId}`).sort()
      }
      const once = [`claude-code ${SID}`, "muse-agents s-1"]
      yield* Effect.gen(function*() {
        yield* until(() => w.rounds.length >= 1 && w.rounds[0].eventsAdded > 0, 30_000)
        yield* Effect.sleep("1500 millis") // past the first import's follow-up round
        expect(listed()).toEqual(once)
        const real = path.join(w1, "root-real")
        fs.renameSync(root, real)
        fs.symlinkSync(real, root)
        const seen = w.rounds.length
        yield* until(() => w.rounds.slice(seen).some((r) => r.causes.includes("WATCHED_ROOT_MOVED")), 30_000)
        const moved = w.rounds.slice(seen).find((r) => r.causes.includes("WATCHED_ROOT_MOVED"))!
        expect(moved.coverage).toBe("partial")
        expect(moved.eventsAdded).toBe(0)
        // Its message names the root as named, where it resolved, and where it resolves now.
        const line = w.stdout().split("\n").find((l) => l.includes("WATCHED_ROOT_MOVED"))!
        const round = JSON.parse(line).data
        const cause = round.report.causes.find((c: { code: string }) => c.code === "WATCHED_ROOT_MOVED")
        expect(cause.path).toBe(root)
        expect(cause.problem).toContain(`The watched root ${root} now resolves to ${fs.realpathSync(real)}, not to ${fs.realpathSync(dir)}/w1/root`)
        expect(round.report.causes.filter((c: { code: string }) => c.code === "WATCHED_ROOT_MOVED").map((c: { provider: string }) => c.provider).sort())
          .toEqual(["claude-code", "muse-agents"])
        // The new place is watched from the round that said it (its follow-up round: a folder newly watched). An append
        // there while it is linked makes a round of its own, which does not read it either.
        yield* until(() => w.rounds.slice(seen).filter((r) => r.causes.includes("WATCHED_ROOT_MOVED")).length >= 2, 30_000)
        const after = w.rounds.length
        fs.appendFileSync(path.join(real, "a1", "sessions", "a1.jsonl"), item(2, "two"))
        yield* until(() => w.rounds.length > after, 30_000)
        expect(w.rounds[after].causes).toContain("WATCHED_ROOT_MOVED")
        expect(w.rounds.slice(seen).reduce((n, r) => n + r.eventsAdded, 0)).toBe(0)
        expect(listed()).toEqual(once)
        // The folder put back where it was: read again there (the append imported), never twice.
        fs.rmSync(root)
        fs.renameSync(real, root)
        const back = w.rounds.length
        yield* until(() => w.rounds.slice(back).some((r) => r.eventsAdded > 0), 30_000)
        expect(w.rounds.slice(back).reduce((n, r) => n + r.eventsAdded, 0)).toBe(1)
        yield* until(() => w.rounds.length > back && !w.rounds[w.rounds.length - 1].causes.includes("WATCHED_ROOT_MOVED"), 30_000)
        expect(listed()).toEqual(once)
      }).pipe(Effect.ensuring(Effect.suspend(() => stop(w.child, w.exited))))
    }), 150_000)
})
