/**
 * The index over explicit Muse Code exports: idempotency, rewritten sources
 * as new generations, crash points, coverage of a rejected source; the same
 * cases against each engine (SQLite, PostgreSQL).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { Index } from "../../src/services/Index.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { crashAt, dumpIndex, importOnce, indexLayer } from "../support/index.js"
import { engines } from "../support/pg.js"

const exportDir = path.join(fixturesDir, "muse-code", "export")

const sqliteSetup = () => {
  const dir = tempDir()
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws)
  for (const f of ["orderly.json", "abnormal.json"]) fs.copyFileSync(path.join(exportDir, f), path.join(ws, f))
  const policy = { workspaceRoots: [ws], museRoots: [], agentsRoot: path.join(dir, "no-agents") }
  const plan = planFromPolicy(policy, { exports: [path.join(ws, "orderly.json"), path.join(ws, "abnormal.json")], batchSize: 3 })
  return { dir, ws, policy, plan, index: path.join(dir, "index.db") }
}

describe.each(engines)("index ($engine): explicit exports", ({ newIndex }) => {
  const setup = Effect.gen(function*() {
    const s = sqliteSetup()
    return { ...s, index: yield* newIndex(s.dir), reference: yield* newIndex(s.dir) }
  })

  it.effect("import twice: the second run adds zero rows and finds both sources unchanged", () =>
    Effect.gen(function*() {
      const s = yield* setup
      const first = yield* importOnce(s.policy, s.index, s.plan)
      expect(first.sources).toMatchObject({ discovered: 2, accepted: 2, unchanged: 0, rejected: 0 })
      expect(first.eventsAdded).toBe(8 + 2)
      // orderly: sessions …aaaa and …bbbb; abnormal: one session
      expect(first.sessionsAdded).toBe(3)
      const dump1 = yield* dumpIndex(s.index)
      const second = yield* importOnce(s.policy, s.index, s.plan)
      expect(second.sources).toMatchObject({ discovered: 2, accepted: 0, unchanged: 2 })
      expect(second.eventsAdded).toBe(0)
      expect(second.sessionsAdded).toBe(0)
      expect(yield* dumpIndex(s.index)).toEqual(dump1)
    }))

  // session 28 (dd556c4, closing27's open finding): a touched export with the same bytes is hashed and counted
  // unchanged, as the native logs are since session 27 (was read again and counted imported with 0 events)
  it.effect("a touched but identical source is counted unchanged and inserts nothing", () =>
    Effect.gen(function*() {
      const s = yield* setup
      const first = yield* importOnce(s.policy, s.index, s.plan)
      const before = yield* dumpIndex(s.index)
      const f = path.join(s.ws, "orderly.json")
      fs.utimesSync(f, new Date(), new Date(Date.now() + 5000))
      const again = yield* importOnce(s.policy, s.index, s.plan)
      expect([again.sources.accepted, again.sources.unchanged]).toEqual([0, first.sources.accepted])
      expect(again.eventsAdded).toBe(0)
      expect((yield* dumpIndex(s.index)).events).toEqual(before.events)
    }))

  it.effect("a rewritten export is imported as a new generation; the old one is superseded, never mixed", () =>
    Effect.gen(function*() {
      const s = yield* setup
      yield* importOnce(s.policy, s.index, s.plan)
      const f = path.join(s.ws, "abnormal.json")
      const doc = JSON.parse(fs.readFileSync(f, "utf8"))
      doc.events = doc.events.slice(0, 1)
      doc.session_terminated_abnormally = false
      fs.writeFileSync(f, JSON.stringify(doc))
      const r = yield* importOnce(s.policy, s.index, s.plan)
      expect(r.sources.newGenerations).toBe(1)
      expect(r.eventsAdded).toBe(1)
      const dump = yield* dumpIndex(s.index)
      const gens = (dump.generations as Array<any>).filter((g) => g.superseded === 1)
      expect(gens.length).toBe(1)
      const sessions = yield* Effect.flatMap(Index, (i) => i.findSessions("6a2f0c2a-0000-4000-8000-00000000cccc")).pipe(
        Effect.provide(indexLayer(s.index))
      )
      expect(sessions.length).toBe(1)
      expect(sessions[0].generation).toBe(2)
      expect(sessions[0].eventCount).toBe(1)
    }))

  for (const point of ["mid-batch", "before-commit", "after-commit"] as const) {
    it.effect(`killed at ${point}: the next run reaches the same content, row by row`, () =>
      Effect.gen(function*() {
        const s = yield* setup
        // the reference: a clean import of the same sources into another index file
        const reference = s.reference
        yield* importOnce(s.policy, reference, s.plan)
        const expected = yield* dumpIndex(reference)
        // batch size 3: orderly has 8 events → batches of 3, 3, 2; crash in the second batch
        const crashed = yield* Effect.exit(importOnce(s.policy, s.index, s.plan, crashAt(point, 2)))
        expect(Exit.isFailure(crashed)).toBe(true)
        const mid = yield* dumpIndex(s.index)
        const committed = point === "after-commit" ? 6 : 3
        expect(mid.events.length).toBe(committed)
        const resumed = yield* importOnce(s.policy, s.index, s.plan)
        expect(resumed.eventsAdded).toBe(10 - committed)
        const got = yield* dumpIndex(s.index)
        expect(got.events).toEqual(expected.events)
        expect(got.sessions).toEqual(expected.sessions)
        expect(got.sources).toEqual(expected.sources)
        expect(got.sources.map((r: any) => r.status)).toEqual(["complete", "complete"])
      }))
  }

  it.effect("coverage: a rejected source makes the run partial, counted by error code, with a remediation", () =>
    Effect.gen(function*() {
      const s = yield* setup
      const bad = path.join(s.ws, "bad.json")
      fs.writeFileSync(bad, "{ not json")
      const plan = planFromPolicy(s.policy, { exports: [path.join(s.ws, "orderly.json"), bad] })
      const r = yield* importOnce(s.policy, s.index, plan)
      expect(r.coverage).toBe("partial")
      expect(r.sources).toMatchObject({ discovered: 2, accepted: 1, rejected: 1, rejectedByCode: { MALFORMED_SOURCE: 1 } })
      expect(r.rejected[0]).toMatchObject({ provider: "muse-code", path: bad, code: "MALFORMED_SOURCE" })
      expect(r.remediations.some((l) => l.includes("MALFORMED_SOURCE"))).toBe(true)
      // explicit files only: muse-code counts them and is partial through the rejected one; native logs are not included
      expect(r.providers.find((p) => p.provider === "muse-code")).toMatchObject({
        status: "checked",
        coverage: "partial",
        sourceCount: 2,
        reasonCode: "SOURCES_REJECTED"
      })
      expect(r.notIncluded.map((n) => n.provider)).toEqual(["muse-code", "agentmux"])
    }))

})

describe("index (sqlite): the file", () => {
  it.effect("a file that is not a database is STORE_UNAVAILABLE", () =>
    Effect.gen(function*() {
      const s = sqliteSetup()
      fs.writeFileSync(s.index, "this is not sqlite ".repeat(100))
      const e = yield* Effect.flip(importOnce(s.policy, s.index, s.plan))
      expect(e.code).toBe("STORE_UNAVAILABLE")
    }))
})
