/**
 * `get_session`'s transcripts over several sessions at once (tester39 F3). docs/mcp.md: calls that arrive together on
 * one session share the work it takes, computed once per session state and kept. With the latest 2 transcripts kept,
 * calls over 3 sessions at once dropped each other's renderings while in flight, and every call rendered its session
 * again (20 calls over 3 sessions 20.8 s, against 0.9 s over 2), and 200 calls over 36 sessions held 2 GB. The rules:
 * - a rendering in flight is never dropped: concurrent calls over more sessions than are kept render each once;
 * - the transcripts of the latest sessions used are kept (16), so paging a few sessions side by side renders each once;
 * - at most 2 renderings run at once (each holds a whole session while it runs).
 * Counted here, not timed: in process over a SQLite index, its Index counting whole-session loads.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { getSession } from "../../src/layers/mcp/answers.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type IndexShape } from "../../src/services/Index.js"
import { Redaction } from "../../src/services/Redaction.js"
import { claudeTurnsLog, importClaude } from "../support/claude-import.js"
import { tempDir } from "../support/paths.js"

const SESSIONS = 6
const sid = (i: number) => `5c0e0a23-3939-4339-8339-${String(i).padStart(12, "0")}`

/** Whole-session loads, and the most in flight at once. */
interface Loads {
  count: number
  inFlight: number
  most: number
}

const counting = (file: string, loads: Loads) =>
  Layer.effect(
    Index,
    Effect.map(Index, (shape): IndexShape => ({
      ...shape,
      events: (uid) =>
        Effect.suspend(() => {
          loads.count++
          loads.most = Math.max(loads.most, ++loads.inFlight)
          // a load that takes a while, so that renderings overlap
          return Effect.zipRight(Effect.sleep("20 millis"), shape.events(uid))
        }).pipe(Effect.ensuring(Effect.sync(() => loads.inFlight--)))
    }))
  ).pipe(Layer.provide(IndexSqlite.layerReadonly(file)), Layer.merge(Redaction.layer))

const makeIndex = (): string => {
  const dir = tempDir("si-rendered-kept39-")
  const root = path.join(dir, "claude", "projects")
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(root, "-srv-app"), { recursive: true })
  fs.mkdirSync(agents, { recursive: true })
  for (let i = 0; i < SESSIONS; i++) {
    const texts: Array<["user" | "assistant", string]> = Array.from({ length: 12 }, (_, n) => [n % 2 === 0 ? "user" : "assistant", `turn ${n} of session ${i}`])
    fs.writeFileSync(path.join(root, "-srv-app", `${sid(i)}.jsonl`), claudeTurnsLog(sid(i), texts, `2026-11-2${i}T10:00:00.000Z`))
  }
  const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const index = path.join(dir, "i.db")
  importClaude(index, root, agents, env)
  return index
}

describe("get_session over several sessions at once (tester39 F3)", () => {
  const index = makeIndex()

  it("concurrent calls over 6 sessions: each session rendered once, at most 2 at a time", async () => {
    const loads: Loads = { count: 0, inFlight: 0, most: 0 }
    const calls = Array.from({ length: 4 * SESSIONS }, (_, n) => getSession({ id: sid(n % SESSIONS), maxChars: 40 }))
    const pages = await Effect.runPromise(Effect.all(calls, { concurrency: "unbounded" }).pipe(Effect.provide(counting(index, loads))))
    for (let n = 0; n < pages.length; n++) {
      expect(pages[n].session.id).toBe(sid(n % SESSIONS))
      expect(pages[n].page.text).toBe(pages[n % SESSIONS].page.text)
    }
    expect(loads.count).toBe(SESSIONS)
    expect(loads.most).toBeLessThanOrEqual(2)
  })

  it("pages of 6 sessions in turn, A B C … A B C …: each session rendered once, its next pages from what was kept", async () => {
    const loads: Loads = { count: 0, inFlight: 0, most: 0 }
    const texts = await Effect.runPromise(Effect.gen(function*() {
      const cursors = new Map<number, string | null>()
      const got = new Map<number, string>()
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < SESSIONS; i++) {
          const cursor = cursors.get(i)
          if (cursor === null) continue
          const a = yield* getSession({ id: sid(i), maxChars: 60, ...(cursor === undefined ? {} : { cursor }) })
          got.set(i, (got.get(i) ?? "") + a.page.text)
          cursors.set(i, a.page.nextCursor)
        }
      }
      return got
    }).pipe(Effect.provide(counting(index, loads))))
    for (let i = 0; i < SESSIONS; i++) expect(texts.get(i)).toContain(`turn 0 of session ${i}`)
    expect(loads.count).toBe(SESSIONS)
  })
})
