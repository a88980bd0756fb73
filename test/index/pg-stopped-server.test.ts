/**
 * A PostgreSQL server that stops answering mid-run (README: never a hang;
 * Ctrl-C / SIGTERM at any moment). A server of its own (the run's shared one
 * serves the other test files), stopped with SIGSTOP (every process of it:
 * what a frozen server or a network partition looks like to the client: TCP
 * still accepts, nothing answers) and resumed with SIGCONT.
 * - An import whose server freezes inside a batch's transaction fails with
 *   `STORE_UNAVAILABLE` (reason `unreachable`) within the timeout
 *   (`SESSION_INGEST_PG_TIMEOUT`, short here), and the next import, the
 *   server back, converges to what one clean import makes.
 * - `push` against a server frozen mid-push: Ctrl-C (SIGINT) ends it at once
 *   (exit 130); with no Ctrl-C it gives up after the timeout (exit 6, host and
 *   port named, no password). Either way the next push, the server back,
 *   brings everything.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { ImportFaults } from "../../src/services/Importer.js"
import { agentsCorpus as corpus } from "../support/agents-lines.js"
import { dumpIndex, importOnce } from "../support/index.js"
import { tempDir, repoRoot } from "../support/paths.js"
import { pgQuery, withDatabase } from "../support/pg.js"
import { type PgServer, startPgServer } from "../support/pg-server.js"
import { cli } from "../support/run.js"

let server: PgServer

beforeAll(async () => {
  server = await startPgServer()
}, 120_000)

afterAll(() => {
  thaw()
  server?.stop()
})

let stopped: Array<number> = []

/** SIGSTOP every process of the server: its postmaster and its backends. */
const freeze = () => {
  const children = spawnSync("ps", ["-o", "pid=", "--ppid", String(server.pid)], { encoding: "utf8" }).stdout.split("\n").map((l) => Number(l.trim())).filter((n) => n > 0)
  stopped = [server.pid, ...children]
  for (const pid of stopped) process.kill(pid, "SIGSTOP")
}

/** SIGCONT what {@link freeze} stopped. */
const thaw = () => {
  for (const pid of stopped) {
    try {
      process.kill(pid, "SIGCONT")
    } catch {
      // gone
    }
  }
  stopped = []
}

let databases = 0
/** A new migrated database on this file's server. */
const migrated = async (): Promise<string> => {
  const name = `f_${process.pid}_${++databases}`
  await pgQuery(server.url, `CREATE DATABASE ${name}`)
  const url = withDatabase(server.url, name)
  await Effect.runPromise(IndexPostgres.migrate(url))
  return url
}


const TIMEOUT = 2

/** Run the CLI in the background; answers its exit code and when it exited (ms since the epoch). */
const background = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = "", stderr = ""
  child.stdout.on("data", (d) => (stdout += d))
  child.stderr.on("data", (d) => (stderr += d))
  const done = new Promise<{ code: number | null; at: number; stdout: string; stderr: string }>((resolve) =>
    child.once("exit", (code) => resolve({ code, at: Date.now(), stdout, stderr }))
  )
  return { child, done }
}

/** Wait until the team index holds some events (a push under way), then freeze the server; answers when it froze. */
const freezeOnceEvents = async (url: string, exited: Promise<unknown>) => {
  let over = false
  void exited.then(() => (over = true))
  for (let i = 0; i < 600 && !over; i++) {
    const [{ n }] = await pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM events")
    if (n > 0) {
      freeze()
      return Date.now()
    }
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error("the push ended before any event was seen in the team index")
}

describe("a PostgreSQL server that stops answering", () => {
  it.live("import: frozen inside a batch's transaction, STORE_UNAVAILABLE within the timeout; the next import converges", () =>
    Effect.gen(function*() {
      const c = corpus(3, 120)
      const url = yield* Effect.promise(migrated)
      const reference = yield* Effect.promise(migrated)
      process.env[IndexPostgres.TIMEOUT_ENV] = String(TIMEOUT)
      let frozenAt = 0
      const freezeMidBatch = Layer.succeed(ImportFaults, {
        at: (p) => Effect.sync(() => {
          if (p === "mid-batch" && frozenAt === 0) {
            freeze()
            frozenAt = Date.now()
          }
        })
      })
      const failed = yield* Effect.flip(importOnce(c.policy, url, c.plan, freezeMidBatch, "m")).pipe(
        Effect.ensuring(Effect.sync(() => delete process.env[IndexPostgres.TIMEOUT_ENV]))
      )
      const waited = Date.now() - frozenAt
      thaw()
      expect(frozenAt).toBeGreaterThan(0)
      expect(failed).toMatchObject({ code: "STORE_UNAVAILABLE", details: { host: "127.0.0.1", port: server.port, reason: "unreachable" } })
      expect(waited).toBeLessThan((TIMEOUT + 8) * 1000)
      yield* importOnce(c.policy, url, c.plan, undefined, "m")
      yield* importOnce(c.policy, reference, c.plan, undefined, "m")
      const [got, want] = [yield* dumpIndex(url), yield* dumpIndex(reference)]
      expect(got.events.length).toBe(360)
      expect([got.sources, got.sessions, got.events.length]).toEqual([want.sources, want.sessions, want.events.length])
    }), 120_000)

  it.live("push: Ctrl-C while the server is frozen ends it at once (exit 130); the next push brings everything", () =>
    Effect.gen(function*() {
      const c = corpus(30, 300)
      yield* importOnce(c.policy, c.local, c.plan)
      const url = yield* Effect.promise(migrated)
      const run = background(["push", "--from", c.local, "--to", url, "--machine", "m"], { [IndexPostgres.TIMEOUT_ENV]: "60" })
      yield* Effect.promise(() => freezeOnceEvents(url, run.done))
      yield* Effect.sleep("500 millis")
      const signalled = Date.now()
      run.child.kill("SIGINT")
      const ended = yield* Effect.promise(() => Promise.race([run.done, new Promise<null>((r) => setTimeout(() => r(null), 15_000))]))
      thaw()
      expect(ended).not.toBeNull()
      expect(ended!.code).toBe(130)
      expect(ended!.at - signalled).toBeLessThan(3000)
      const again = cli(["push", "--from", c.local, "--to", url, "--machine", "m", "--json"])
      expect([again.code, again.stderr]).toEqual([0, ""])
      const [{ n }] = yield* Effect.promise(() => pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM events"))
      expect(n).toBe(30 * 300)
    }), 180_000)

  it.live("push: a server frozen mid-push is given up after the timeout: STORE_UNAVAILABLE, exit 6, host and port, no password", () =>
    Effect.gen(function*() {
      const c = corpus(30, 300)
      yield* importOnce(c.policy, c.local, c.plan)
      const url = yield* Effect.promise(migrated)
      const withPassword = url.replace("://si@", "://si:Fr0zen-pw-secret@")
      const run = background(["push", "--from", c.local, "--to", withPassword, "--machine", "m"], { [IndexPostgres.TIMEOUT_ENV]: String(TIMEOUT) })
      const frozenAt = yield* Effect.promise(() => freezeOnceEvents(url, run.done))
      const ended = yield* Effect.promise(() => Promise.race([run.done, new Promise<null>((r) => setTimeout(() => r(null), 30_000))]))
      thaw()
      expect(ended).not.toBeNull()
      expect(ended!.code).toBe(6)
      expect(ended!.at - frozenAt).toBeLessThan((TIMEOUT + 8) * 1000)
      expect(ended!.stderr).toContain("STORE_UNAVAILABLE")
      expect(ended!.stderr).toContain(`127.0.0.1:${server.port}`)
      expect(ended!.stdout + ended!.stderr).not.toContain("Fr0zen-pw-secret")
      const again = cli(["push", "--from", c.local, "--to", url, "--machine", "m"])
      expect([again.code, again.stderr]).toEqual([0, ""])
      const [{ n }] = yield* Effect.promise(() => pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM events"))
      expect(n).toBe(30 * 300)
    }), 180_000)
})
