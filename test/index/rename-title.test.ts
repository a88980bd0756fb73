/**
 * A title changed by an append that adds no event (tester33a F3): Claude Code's `/rename` appends a `custom-title`
 * record, and the session is titled by the latest one (docs/providers.md). A later import resumes at the cursor and
 * reads no new event, yet the index's session (its row, its title's search words) must take the new title, on both
 * engines, as a new index of the same files would.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { push } from "../../src/layers/index/push.js"
import { Index } from "../../src/services/Index.js"
import { dumpIndex, importOnce, indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines, migratedDatabase } from "../support/pg.js"

const SESSION = "88880000-0000-4000-8000-000000000001"

/** A two-line Claude Code log (first prompt "first prompt here") under a fresh root. */
const claudeLog = () => {
  const dir = tempDir()
  const root = path.join(dir, "claude")
  const project = path.join(root, "-srv-app")
  fs.mkdirSync(project, { recursive: true })
  const file = path.join(project, `${SESSION}.jsonl`)
  const base = { isSidechain: false, userType: "external", cwd: "/srv/app", sessionId: SESSION, version: "2.0.76" }
  fs.writeFileSync(
    file,
    JSON.stringify({ ...base, parentUuid: null, type: "user", message: { role: "user", content: "first prompt here" }, uuid: "u1", timestamp: "2026-11-20T10:00:00.000Z" }) + "\n" +
      JSON.stringify({
        ...base,
        parentUuid: "u1",
        type: "assistant",
        message: { model: "claude-sonnet-4-5", id: "msg_1", type: "message", role: "assistant", content: [{ type: "text", text: "ok" }] },
        requestId: "req_1",
        uuid: "a1",
        timestamp: "2026-11-20T10:00:01.000Z"
      }) + "\n"
  )
  const policy = { workspaceRoots: [path.join(dir, "no-workspace")], museRoots: [], agentsRoot: path.join(dir, "no-agents"), claudeRoot: root }
  return { dir, file, policy, plan: planFromPolicy(policy, { batchSize: 50 }) }
}

const rename = (file: string, title: string) =>
  fs.appendFileSync(file, JSON.stringify({ type: "custom-title", customTitle: title, sessionId: SESSION }) + "\n")

/** The session's title as listed, and the sessions a search of `word` finds by their title. */
const titleAndHits = (index: string, word: string) =>
  Effect.gen(function*() {
    const i = yield* Index
    const rows = yield* i.sessions({})
    const hits = yield* i.search(word, {})
    return {
      titles: rows.map((r) => r.title),
      titleHits: hits.filter((h) => h.eventUid === null).map((h) => h.title)
    }
  }).pipe(Effect.provide(indexLayer(index)))

describe.each(engines)("a /rename appended to an imported log ($engine)", ({ newIndex }) => {
  it.effect("re-titles the session on the next import (its row and its title's search words), and again on a second rename", () =>
    Effect.gen(function*() {
      const c = claudeLog()
      const index = yield* newIndex(c.dir)
      yield* importOnce(c.policy, index, c.plan)
      expect((yield* titleAndHits(index, "first")).titles).toEqual(["first prompt here"])

      rename(c.file, "my renamed session")
      const second = yield* importOnce(c.policy, index, c.plan)
      expect(second.eventsAdded).toBe(0)
      const renamed = yield* titleAndHits(index, "renamed")
      expect(renamed.titles).toEqual(["my renamed session"])
      expect(renamed.titleHits).toEqual(["my renamed session"])
      // The old title's words are gone with it.
      expect((yield* titleAndHits(index, "first")).titleHits).toEqual([])

      rename(c.file, "second rename")
      yield* importOnce(c.policy, index, c.plan)
      const again = yield* titleAndHits(index, "second")
      expect(again.titles).toEqual(["second rename"])
      expect(again.titleHits).toEqual(["second rename"])
      expect((yield* titleAndHits(index, "renamed")).titleHits).toEqual([])

      // Nothing changed since: unchanged, the title kept.
      yield* importOnce(c.policy, index, c.plan)
      expect((yield* titleAndHits(index, "second")).titles).toEqual(["second rename"])
    }))
})

describe("a /rename appended to an imported log, pushed (SQLite -> PostgreSQL)", () => {
  it.effect("the push carries the new title: the team index is what importing straight into it makes", () =>
    Effect.gen(function*() {
      const c = claudeLog()
      const local = path.join(c.dir, "local.db")
      const pushed = yield* migratedDatabase
      const direct = yield* migratedDatabase
      yield* importOnce(c.policy, local, c.plan)
      yield* push(local, pushed, "m1")
      for (const title of ["my renamed session", "second rename"]) {
        rename(c.file, title)
        yield* importOnce(c.policy, local, c.plan)
        yield* push(local, pushed, "m1")
        const word = title.split(" ")[1]
        const team = yield* titleAndHits(pushed, word)
        expect(team.titles).toEqual([title])
        expect(team.titleHits).toEqual([title])
        yield* importOnce(c.policy, direct, c.plan, undefined, "m1")
        expect(yield* dumpIndex(pushed)).toEqual(yield* dumpIndex(direct))
      }
    }))
})
