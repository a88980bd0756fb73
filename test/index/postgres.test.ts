/**
 * The team index on PostgreSQL, as users run it: `index migrate`, `--index
 * postgres://…` (or the config file's `index`) for import, sessions, show and
 * export; an empty, outdated or newer schema stops an import with the remedy
 * and no DDL; an unreachable server is STORE_UNAVAILABLE (exit 6) naming host
 * and port, never the password; sources keyed by machine; four imports at
 * once from two machines; a SIGKILL mid-import, then convergence.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { SCHEMA_VERSION } from "../../src/layers/index/postgres.js"
import { Index } from "../../src/services/Index.js"
import { dumpIndex, importOnce, indexLayer } from "../support/index.js"
import { fixturesDir, repoRoot, tempDir } from "../support/paths.js"
import { freshDatabase, migratedDatabase, pgQuery } from "../support/pg.js"
import { cli } from "../support/run.js"

const item = (seq: number, text: string) =>
  JSON.stringify({
    type: "item",
    seq,
    source: "runtime",
    item: { type: "message", role: "user", text },
    created_at: `2025-04-01T10:${String(Math.floor(seq / 60) % 60).padStart(2, "0")}:${String(seq % 60).padStart(2, "0")}Z`
  }) + "\n"

/** The bundled Muse agents fixtures, plus agent `big` with one transcript of `n` messages. */
const corpus = (n = 5) => {
  const dir = tempDir()
  const agents = path.join(dir, "agents")
  fs.cpSync(path.join(fixturesDir, "muse-agents", "agents"), agents, { recursive: true })
  const sessions = path.join(agents, "big", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const file = path.join(sessions, "big.jsonl")
  const parts = [JSON.stringify({ type: "session_header", session_id: "s-big", agent_id: "big", created_at: "2025-04-01T10:00:00Z" }) + "\n"]
  for (let i = 1; i <= n; i++) parts.push(item(i, `message number ${i} ${"lorem ipsum ".repeat(8)}`))
  fs.writeFileSync(file, parts.join(""))
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: agents }
  return { dir, agents, file, policy, plan: planFromPolicy(policy, { batchSize: 3 }) }
}

const json = (args: ReadonlyArray<string>, env?: Record<string, string>) => {
  const r = cli([...args, "--json"], env !== undefined ? { env } : {})
  return { ...r, body: JSON.parse(r.stdout.trim().split("\n").pop()!) }
}

const tables = (url: string) =>
  Effect.promise(() => pgQuery<{ tablename: string }>(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"))
    .pipe(Effect.map((rows) => rows.map((r) => r.tablename)))

/** A local port nothing listens on. */
const closedPort = () =>
  Effect.promise(() =>
    new Promise<number>((resolve) => {
      const s = net.createServer()
      s.listen(0, "127.0.0.1", () => {
        const port = (s.address() as net.AddressInfo).port
        s.close(() => resolve(port))
      })
    })
  )

describe("team index (PostgreSQL): the CLI", () => {
  it.effect("index migrate, then import, sessions, show and export through --index postgres://…", () =>
    Effect.gen(function*() {
      const c = corpus(4)
      const url = yield* Effect.promise(freshDatabase)
      const m = json(["index", "migrate", "--index", url])
      expect(m.code).toBe(0)
      expect(m.body.data).toMatchObject({ applied: ["0001_initial", "0002_search", "0003_usage", "0004_push_marks", "0005_push_journal", "0006_push_change", "0007_search_pairs", "0008_search_facets", "0009_usage_cache_write_1h", "0010_meta", "0011_search_marks", "0012_search_syllables", "0013_usage_speed"], version: SCHEMA_VERSION })
      const again = json(["index", "migrate", "--index", url])
      expect(again.body.data).toMatchObject({ applied: [], version: SCHEMA_VERSION })
      const imp = json(["import", "--index", url, "--agents-root", c.agents, "--workspace", c.dir, "--machine", "laptop-a"])
      expect([imp.code, imp.body.status]).toEqual([0, "ok"])
      expect(imp.body.data).toMatchObject({ machine: "laptop-a", coverage: "complete" })
      expect(imp.body.data.sessionsAdded).toBeGreaterThan(3)
      const listed = json(["sessions", "--index", url])
      expect(listed.code).toBe(0)
      expect(listed.body.data.map((s: { sessionId: string }) => s.sessionId)).toContain("s-big")
      expect(listed.body.data.length).toBe(imp.body.data.sessionsAdded)
      const shown = cli(["show", "s-big", "--index", url, "--format", "events"])
      expect(shown.code).toBe(0)
      expect(shown.stdout.trim().split("\n").length).toBe(4)
      const out = path.join(c.dir, "big.atif.json")
      const exported = cli(["export", "s-big", "--index", url, "--out", out])
      expect(exported.code).toBe(0)
      expect(JSON.parse(fs.readFileSync(out, "utf8")).session_id).toBe("s-big")
      // Tokens and cost come from the team index too (the corpus reports none: one group, no tokens).
      const used = json(["usage", "--index", url, "--by", "provider"])
      expect([used.code, used.body.status]).toEqual([0, "ok"])
      // unchanged: nothing added
      const re = json(["import", "--index", url, "--agents-root", c.agents, "--workspace", c.dir, "--machine", "laptop-a"])
      expect([re.body.data.eventsAdded, re.body.data.sources.accepted]).toEqual([0, 0])
    }))

  it.effect("the config file's index may be a postgres:// URL (kept as it is, not read as a path)", () =>
    Effect.gen(function*() {
      const c = corpus(2)
      const url = yield* migratedDatabase
      const config = path.join(c.dir, "config.json")
      fs.writeFileSync(config, JSON.stringify({ index: url, agentsRoot: c.agents, workspaces: [c.dir] }))
      const imp = json(["import", "--config", config, "--machine", "m1"])
      expect(imp.code).toBe(0)
      expect(imp.body.data.index).toBe(url)
      const listed = json(["sessions", "--config", config])
      expect(listed.body.data.map((s: { sessionId: string }) => s.sessionId)).toContain("s-big")
    }))

  it.effect("an empty database: import stops with STORE_UNAVAILABLE and the migrate remedy, and creates nothing", () =>
    Effect.gen(function*() {
      const c = corpus(2)
      const url = yield* Effect.promise(freshDatabase)
      const r = json(["import", "--index", url, "--agents-root", c.agents, "--workspace", c.dir])
      expect(r.code).toBe(6)
      expect(r.body.error.code).toBe("STORE_UNAVAILABLE")
      expect(r.body.error.message).toMatch(/no session-ingest index/)
      expect(r.body.error.remediation).toContain(`session-ingest index migrate --index ${url}`)
      expect(r.body.error.details).toMatchObject({ reason: "schema-outdated", have: 0, want: SCHEMA_VERSION })
      expect(yield* tables(url)).toEqual([])
      const s = cli(["sessions", "--index", url])
      expect(s.code).toBe(6)
      expect(s.stderr).toContain("index migrate")
      expect(yield* tables(url)).toEqual([])
    }))

  it.effect("an outdated schema (an earlier build's) and a newer one: typed errors with their remedies, no DDL", () =>
    Effect.gen(function*() {
      const c = corpus(2)
      const url = yield* migratedDatabase
      // as an earlier build left it: the last migration not applied
      yield* Effect.promise(() => pgQuery(url, "DELETE FROM si_migrations WHERE migration_id = $1", [SCHEMA_VERSION]))
      const before = yield* tables(url)
      const old = json(["import", "--index", url, "--agents-root", c.agents, "--workspace", c.dir])
      expect(old.code).toBe(6)
      expect(old.body.error.details).toMatchObject({ reason: "schema-outdated", have: SCHEMA_VERSION - 1, want: SCHEMA_VERSION })
      expect(old.body.error.remediation).toContain("index migrate")
      expect(yield* tables(url)).toEqual(before)
      expect((yield* Effect.promise(() => pgQuery(url, "SELECT count(*)::int AS n FROM sources")))[0]).toEqual({ n: 0 })
      // a newer build migrated it further
      yield* Effect.promise(() => pgQuery(url, "INSERT INTO si_migrations (migration_id, name) VALUES ($1, 'initial'), ($2, 'from_the_future')", [SCHEMA_VERSION, SCHEMA_VERSION + 1]))
      const newer = json(["import", "--index", url, "--agents-root", c.agents, "--workspace", c.dir])
      expect(newer.code).toBe(6)
      expect(newer.body.error.details).toMatchObject({ reason: "schema-newer", have: SCHEMA_VERSION + 1 })
      expect(newer.body.error.remediation).toMatch(/Upgrade session-ingest/)
      const migrate = json(["index", "migrate", "--index", url])
      expect(migrate.code).toBe(6)
      expect(migrate.body.error.details).toMatchObject({ reason: "schema-newer" })
    }))

  it.effect("an unreachable server: STORE_UNAVAILABLE, exit 6, host and port named, the password never printed", () =>
    Effect.gen(function*() {
      const c = corpus(1)
      const port = yield* closedPort()
      const url = `postgres://alice:Sup3r-s3cret-pw@127.0.0.1:${port}/team`
      for (const args of [
        ["import", "--index", url, "--agents-root", c.agents, "--workspace", c.dir],
        ["sessions", "--index", url],
        ["show", "s-big", "--index", url],
        ["index", "migrate", "--index", url],
        // Every command that reads an index takes the URL as a server, never as a file path (which would print it).
        ["search", "message", "--index", url],
        ["usage", "--index", url],
        ["replay", "s-big", "--index", url]
      ]) {
        const text = cli(args)
        expect(text.code).toBe(6)
        expect(text.stderr).toContain("STORE_UNAVAILABLE")
        expect(text.stderr).toContain(`127.0.0.1:${port}`)
        expect(text.stderr).toMatch(/remedy: /)
        expect(text.stdout + text.stderr).not.toContain("Sup3r-s3cret-pw")
        const j = json(args)
        expect(j.code).toBe(6)
        expect(j.body.error).toMatchObject({ code: "STORE_UNAVAILABLE", details: { host: "127.0.0.1", port, reason: "unreachable" } })
        expect(j.stdout + j.stderr).not.toContain("Sup3r-s3cret-pw")
      }
      const served = cli(["mcp", "--index", url])
      expect(served.code).toBe(6)
      expect(served.stderr).toContain(`127.0.0.1:${port}`)
      expect(served.stdout + served.stderr).not.toContain("Sup3r-s3cret-pw")
    }))
})

/** Per session: native id, event count and the events' text, without the machine-keyed uids. */
const sessionsOf = (url: string) =>
  Effect.gen(function*() {
    const i = yield* Index
    const rows = yield* i.sessions({})
    return rows.map((s) => ({ sourceKey: s.sourceKey, sessionId: s.sessionId, eventCount: s.eventCount }))
  }).pipe(Effect.provide(indexLayer(url)))

describe("team index (PostgreSQL): many machines", () => {
  it.effect("the same path on two machines is two sources; each machine's import sees only its own checkpoints", () =>
    Effect.gen(function*() {
      const c = corpus(5)
      const url = yield* migratedDatabase
      const a = yield* importOnce(c.policy, url, c.plan, undefined, "laptop-a")
      const b = yield* importOnce(c.policy, url, c.plan, undefined, "laptop-b")
      expect(b.sources.accepted).toBe(a.sources.accepted)
      expect([b.eventsAdded, b.sessionsAdded]).toEqual([a.eventsAdded, a.sessionsAdded])
      const rows = yield* sessionsOf(url)
      expect(rows.length).toBe(2 * a.sessionsAdded)
      expect(new Set(rows.map((r) => r.sourceKey)).size).toBe(2 * a.sources.accepted)
      const machines = yield* Effect.promise(() => pgQuery<{ machine: string; n: number }>(url, "SELECT machine, count(*)::int AS n FROM sources GROUP BY machine ORDER BY machine"))
      expect(machines).toEqual([{ machine: "laptop-a", n: a.sources.accepted }, { machine: "laptop-b", n: a.sources.accepted }])
      // a rewrite seen by laptop-a supersedes laptop-a's source only
      fs.writeFileSync(c.file, fs.readFileSync(c.file, "utf8").replace("message number 1 ", "MESSAGE NUMBER 1 "))
      const again = yield* importOnce(c.policy, url, c.plan, undefined, "laptop-a")
      expect(again.sources).toMatchObject({ accepted: 1, newGenerations: 1 })
      const gens = yield* Effect.promise(() =>
        pgQuery<{ machine: string; generation: number }>(url, "SELECT machine, generation FROM sources s JOIN (SELECT source_key FROM events WHERE session_id = 's-big' GROUP BY 1) e USING (source_key) ORDER BY machine")
      )
      expect(gens).toEqual([{ machine: "laptop-a", generation: 2 }, { machine: "laptop-b", generation: 1 }])
    }))

  it.live("four imports at once from two machines: nothing lost, nothing duplicated, the checkpoints right", () =>
    Effect.gen(function*() {
      const c = corpus(400)
      const url = yield* migratedDatabase
      const reference = yield* migratedDatabase
      const runs = ["m-one", "m-two", "m-one", "m-two"].map((m) => importOnce(c.policy, url, c.plan, undefined, m))
      const reports = yield* Effect.all(runs, { concurrency: "unbounded" })
      for (const r of reports) expect(r.sources.rejected).toBe(0)
      // what each machine's two runs added together is one import's worth
      const single = yield* importOnce(c.policy, reference, c.plan, undefined, "m-one")
      for (const m of ["m-one", "m-two"]) {
        const mine = reports.filter((_, i) => i % 2 === (m === "m-one" ? 0 : 1))
        expect(mine[0].eventsAdded + mine[1].eventsAdded).toBe(single.eventsAdded)
        expect(mine[0].sessionsAdded + mine[1].sessionsAdded).toBe(single.sessionsAdded)
      }
      const want = yield* dumpIndex(reference)
      const got = yield* dumpIndex(url)
      expect(got.events.length).toBe(2 * want.events.length)
      expect(got.sessions.length).toBe(2 * want.sessions.length)
      // m-one's rows are exactly a clean single import's (same machine, same keys and uids)
      const oneKeys = new Set((want.sources as Array<{ source_key: string }>).map((s) => s.source_key))
      const onlyOne = (rows: ReadonlyArray<any>) => rows.filter((r) => oneKeys.has(r.source_key))
      expect(onlyOne(got.events)).toEqual(want.events)
      expect(onlyOne(got.sessions)).toEqual(want.sessions)
      expect(onlyOne(got.sources)).toEqual(want.sources)
      expect(onlyOne(got.generations)).toEqual(want.generations)
      // and each source's checkpoint: complete, every event counted, the cursor at its last event
      for (const s of got.sources as Array<any>) {
        expect(s.status).toBe("complete")
        const n = (got.events as Array<any>).filter((e) => e.source_key === s.source_key).length
        expect(s.event_count).toBe(n)
      }
      for (const m of ["m-one", "m-two"]) {
        const again = yield* importOnce(c.policy, url, c.plan, undefined, m)
        expect([again.sources.accepted, again.eventsAdded]).toEqual([0, 0])
      }
      // an append after the concurrent runs resumes from the right cursor on both machines
      fs.appendFileSync(c.file, item(401, "appended"))
      for (const m of ["m-one", "m-two"]) {
        const more = yield* importOnce(c.policy, url, c.plan, undefined, m)
        expect([more.sources.accepted, more.eventsAdded, more.sources.newGenerations]).toEqual([1, 1, 0])
      }
    }), 120_000)

  it.live("SIGKILL of the CLI mid-import into PostgreSQL; the next run reaches the clean import's content", () =>
    Effect.gen(function*() {
      // 20,000 events: the kill (at 2,000, polled every 20 ms) lands with most of the import still to come.
      const c = corpus(20_000)
      const args = (url: string) => [
        path.join(repoRoot, "bin", "session-ingest.mjs"),
        "import", "--index", url, "--agents-root", c.agents, "--workspace", c.dir, "--machine", "killed-box", "--json"
      ]
      const count = (url: string) => pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM events").then((r) => r[0].n)
      const run = (url: string, killMidway = false) =>
        Effect.async<number | null>((resume) => {
          const child = spawn(process.execPath, args(url), { stdio: "ignore" })
          let polling = false
          const poll = killMidway
            ? setInterval(() => {
              if (polling) return
              polling = true
              count(url).then((n) => {
                polling = false
                if (n >= 2000) child.kill("SIGKILL")
              }, () => (polling = false))
            }, 20)
            : undefined
          child.on("exit", (code) => {
            if (poll !== undefined) clearInterval(poll)
            resume(Effect.succeed(code))
          })
        })
      const reference = yield* migratedDatabase
      expect(yield* run(reference)).toBe(0)
      const killed = yield* migratedDatabase
      expect(yield* run(killed, true)).toBeNull()
      const mid = yield* Effect.promise(() => count(killed))
      expect(mid).toBeGreaterThan(0)
      const want = yield* dumpIndex(reference)
      expect(mid).toBeLessThan(want.events.length)
      expect(mid % 500).toBe(0) // whole batches only
      expect(yield* run(killed)).toBe(0)
      const got = yield* dumpIndex(killed)
      expect(got.events).toEqual(want.events)
      expect(got.sessions).toEqual(want.sessions)
      expect(got.sources).toEqual(want.sources)
      expect(got.generations).toEqual(want.generations)
    }), 180_000)
})

// The host name is the default machine.
describe("team index (PostgreSQL): the default machine", () => {
  it.effect("without --machine, an import's sources are keyed by the host name", () =>
    Effect.gen(function*() {
      const c = corpus(1)
      const url = yield* migratedDatabase
      const imp = json(["import", "--index", url, "--agents-root", c.agents, "--workspace", c.dir])
      expect(imp.body.data.machine).toBe(os.hostname())
      const machines = yield* Effect.promise(() => pgQuery<{ machine: string }>(url, "SELECT DISTINCT machine FROM sources"))
      expect(machines).toEqual([{ machine: os.hostname() }])
    }))
})
