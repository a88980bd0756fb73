/**
 * A long-running process holding the PostgreSQL index (`mcp`, `import
 * --watch`) outlives a restart of the server (tester18 F1): an operation made
 * while the server is down fails with `STORE_UNAVAILABLE` (reason
 * `unreachable`, host and port named), and once the server is back the next
 * operations succeed through a new connection of the same pool, with no
 * restart of the process; `import --watch` waits the outage out (told on
 * stderr) and goes on once the server is back (tester18 F3: it stopped,
 * exit 6). A server of this file's own (the run's shared one
 * serves the other files), stopped with an immediate shutdown and started
 * again on the same port and data folder.
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import { Index } from "../../src/services/Index.js"
import { connect } from "../mcp/helpers.js"
import { pgQuery, withDatabase } from "../support/pg.js"
import { pgServerOfFile } from "../support/pg-server-file.js"
import { item, setup, startWatch, stop, until } from "../support/watch-cli.js"

const pg = pgServerOfFile()

let databases = 0
/** A new migrated database on this file's server. */
const migrated = async (): Promise<string> => {
  const name = `r_${process.pid}_${++databases}`
  await pgQuery(pg.current!.url, `CREATE DATABASE ${name}`)
  const url = withDatabase(pg.current!.url, name)
  await Effect.runPromise(IndexPostgres.migrate(url))
  return url
}

/** Stop the server (immediate shutdown, as `pg_ctl -m immediate stop`) and wait until it is gone. */
const stopServer = async () => {
  const pid = pg.current!.pid
  process.kill(pid, "SIGQUIT")
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0)
    } catch {
      return
    }
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Start the stopped server again on its port. */
const startServer = async () => {
  const before = pg.current!.port
  pg.current = await pg.current!.restart({ samePort: true })
  expect(pg.current!.port).toBe(before)
}

describe("a PostgreSQL server restarted under a long-running process", () => {
  it.live("the Index layer: a call while the server is down fails (unreachable); calls once it is back succeed", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(migrated)
      yield* Effect.gen(function*() {
        const index = yield* Index
        expect((yield* index.sessions({})).length).toBe(0)
        yield* Effect.promise(stopServer)
        const down = yield* Effect.flip(index.sessions({}))
        expect(down).toMatchObject({ code: "STORE_UNAVAILABLE", details: { host: "127.0.0.1", port: pg.current!.port, reason: "unreachable" } })
        yield* Effect.promise(startServer)
        for (let i = 0; i < 3; i++) expect((yield* index.sessions({})).length).toBe(0)
        expect((yield* index.search("anything", {})).length).toBe(0)
      }).pipe(Effect.provide(IndexPostgres.layer({ url })))
    }), 120_000)

  it.live("mcp --index postgres://…: the tool call while the server is down is STORE_UNAVAILABLE; later calls succeed", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(migrated)
      const c = yield* Effect.promise(() => connect(["--index", url], { [IndexPostgres.TIMEOUT_ENV]: "20" }))
      try {
        const call = (name: string, args: Record<string, unknown>) =>
          Effect.promise(() => c.client.callTool({ name, arguments: args }).then((r) => ({ ok: true as const, r }), (e: Error) => ({ ok: false as const, e })))
        const first = yield* call("list_sessions", { limit: 1 })
        expect(first.ok).toBe(true)
        yield* Effect.promise(stopServer)
        const down = yield* call("search_sessions", { query: "invoice", limit: 1 })
        const downText = down.ok ? JSON.stringify(down.r) : down.e.message
        expect(downText).toContain("STORE_UNAVAILABLE")
        expect(downText).toContain(`127.0.0.1:${pg.current!.port}`)
        yield* Effect.promise(startServer)
        for (const [name, args] of [["search_sessions", { query: "invoice", limit: 1 }], ["list_sessions", { limit: 1 }], ["list_sessions", { limit: 1 }]] as const) {
          const back = yield* call(name, args)
          expect(back.ok ? "" : back.e.message, name).toBe("")
          expect(back.ok && (back.r as { isError?: boolean }).isError !== true, name).toBe(true)
        }
      } finally {
        yield* Effect.promise(() => c.close())
      }
    }), 120_000)

  it.live("import --watch --index postgres://…: an outage is waited out (told on stderr); the rounds go on once the server is back", () =>
    Effect.gen(function*() {
      const url = yield* Effect.promise(migrated)
      const events = () => pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM events").then((r) => r[0].n)
      const s = setup(1)
      const w = startWatch([...s.args(url), "--machine", "w"], { [IndexPostgres.TIMEOUT_ENV]: "20" })
      try {
        yield* until(() => w.rounds.length >= 1)
        yield* Effect.sleep("700 millis") // the follow-up round once the folders are watched
        const before = yield* Effect.promise(events)
        yield* Effect.promise(stopServer)
        fs.appendFileSync(s.file, item(2, "written while the server is down"))
        yield* until(() => w.stderr().includes("STORE_UNAVAILABLE"), 15_000)
        expect(w.stderr()).toContain(`127.0.0.1:${pg.current!.port}`)
        expect(w.stderr()).toMatch(/The watch goes on/)
        // Longer than the retries a passing failure gets (5, from 100 ms: about 3 s).
        yield* Effect.sleep("5 seconds")
        expect(w.child.exitCode).toBeNull()
        yield* Effect.promise(startServer)
        fs.appendFileSync(s.file, item(3, "written once the server is back"))
        yield* until(() => w.rounds.reduce((n, r) => n + r.eventsAdded, 0) >= before + 2, 30_000)
        expect(yield* Effect.promise(events)).toBe(before + 2)
        expect(w.errors).toEqual([])
        expect(yield* stop(w.child, w.exited)).toBe(130)
      } finally {
        w.child.kill("SIGKILL")
      }
    }), 120_000)
})
