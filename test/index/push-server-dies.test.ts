/**
 * `push` whose PostgreSQL server goes away mid-push (stopped with an
 * immediate shutdown, or its postmaster killed): the error names the
 * PostgreSQL index (host, port, database) as `import --index postgres://…`
 * does, `STORE_UNAVAILABLE`, exit 6, "run the same command again"; never "a
 * file session-ingest uses" nor --index/--state/--out (tester11 F3). A server
 * of this file's own (the run's shared one serves the other files), which
 * each case ends: the next case restarts it on its data folder (a real
 * server restart, no second `initdb`); stopped at the end.
 *
 * `import --index postgres://…` likewise (tester18 F2: it blamed "a file
 * session-ingest uses" and --index/--state/--out, details `{reason: other}`):
 * the server ended inside a batch's transaction, the import fails naming the
 * server, the connection lost, reason `unreachable`, no password.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { ImportFaults } from "../../src/services/Importer.js"
import { agentsCorpus as corpus } from "../support/agents-lines.js"
import { importOnce } from "../support/index.js"
import { repoRoot, tempDir } from "../support/paths.js"
import { pgQuery, withDatabase } from "../support/pg.js"
import type { PgServer } from "../support/pg-server.js"
import { pgServerOfFile } from "../support/pg-server-file.js"

const pg = pgServerOfFile()

/** This file's server, running: restarted when the case before ended it. */
const running = async (): Promise<PgServer> => {
  const s = pg.current!
  let up = true
  try {
    process.kill(s.pid, 0)
  } catch {
    up = false
  }
  pg.current = up ? s : await s.restart()
  return pg.current
}


const background = (args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args], {
    env: { ...process.env, [IndexPostgres.TIMEOUT_ENV]: "20" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = "", stderr = ""
  child.stdout.on("data", (d) => (stdout += d))
  child.stderr.on("data", (d) => (stderr += d))
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })))
}

/** Wait until the team index holds some events (a push under way), then end the server with `signal`. */
const endOnceEvents = async (s: PgServer, url: string, exited: Promise<unknown>, signal: NodeJS.Signals) => {
  let over = false
  void exited.then(() => (over = true))
  for (let i = 0; i < 2000 && !over; i++) {
    const [{ n }] = await pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM events")
    if (n > 0) {
      process.kill(s.pid, signal)
      return
    }
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error("the push ended before any event was seen in the team index")
}

describe("push whose PostgreSQL server goes away mid-push", () => {
  for (const [how, signal, json] of [
    ["immediate shutdown (pg_ctl -m immediate)", "SIGQUIT", false],
    ["postmaster killed", "SIGKILL", false],
    ["immediate shutdown, --json", "SIGQUIT", true]
  ] as const) {
    it.live(`${how}: the PostgreSQL index named (host, port, database), exit 6, never 'a file'`, () =>
      Effect.gen(function*() {
        const s = yield* Effect.promise(running)
        const c = corpus(30, 300)
        yield* importOnce(c.policy, c.local, c.plan)
        // A new empty database of that name (a case before may have left one).
        yield* Effect.promise(() => pgQuery(s.url, "DROP DATABASE IF EXISTS gone"))
        yield* Effect.promise(() => pgQuery(s.url, "CREATE DATABASE gone"))
        const url = withDatabase(s.url, "gone")
        yield* IndexPostgres.migrate(url)
        const done = background(["push", "--from", c.local, "--to", url, "--machine", "m", ...(json ? ["--json"] : [])])
        yield* Effect.promise(() => endOnceEvents(s, url, done, signal))
        const r = yield* Effect.promise(() => done)
        expect(r.code).toBe(6)
        const out = r.stdout + r.stderr
        expect(out).not.toMatch(/A file session-ingest uses/)
        expect(out).not.toMatch(/--index, --state and --out/)
        if (json) {
          const e = JSON.parse(r.stdout.trim().split("\n").pop()!).error
          expect(e.code).toBe("STORE_UNAVAILABLE")
          expect(e.details).toMatchObject({ host: "127.0.0.1", port: s.port, database: "gone" })
          expect(["unreachable", "server-error"]).toContain(e.details.reason)
          expect(e.message).toMatch(new RegExp(`^The PostgreSQL index at 127\\.0\\.0\\.1:${s.port} \\(database gone\\) (cannot be reached|failed|stopped answering)`))
          expect(e.remediation).toMatch(/run the same command again/i)
        } else {
          expect(r.stderr).toContain("STORE_UNAVAILABLE")
          expect(r.stderr).toMatch(new RegExp(`The PostgreSQL index at 127\\.0\\.0\\.1:${s.port} \\(database gone\\) (cannot be reached|failed|stopped answering)`))
          expect(r.stderr).toMatch(/run the same command again/i)
        }
      }), 180_000)
  }

  for (const [how, signal] of [["immediate shutdown", "SIGQUIT"], ["postmaster killed", "SIGKILL"]] as const) {
    it.live(`import, ${how} inside a batch's transaction: the PostgreSQL server named, the connection lost (unreachable), never 'a file'`, () =>
      Effect.gen(function*() {
        const s = yield* Effect.promise(running)
        const c = corpus(3, 120)
        yield* Effect.promise(() => pgQuery(s.url, "DROP DATABASE IF EXISTS gone_import"))
        yield* Effect.promise(() => pgQuery(s.url, "CREATE DATABASE gone_import"))
        const url = withDatabase(s.url, "gone_import")
        yield* IndexPostgres.migrate(url)
        let ended = false
        const endMidBatch = Layer.succeed(ImportFaults, {
          at: (p) => Effect.promise(async () => {
            if (p !== "mid-batch" || ended) return
            ended = true
            process.kill(s.pid, signal)
            // Until the server is gone (its sockets closed).
            for (let i = 0; i < 100; i++) {
              try {
                process.kill(s.pid, 0)
              } catch {
                return
              }
              await new Promise((r) => setTimeout(r, 20))
            }
          })
        })
        const withPassword = url.replace("://si@", "://si:G0ne-pw-secret@")
        const failed = yield* Effect.flip(importOnce(c.policy, withPassword, c.plan, endMidBatch, "m"))
        expect(ended).toBe(true)
        expect(failed).toMatchObject({
          code: "STORE_UNAVAILABLE",
          details: { host: "127.0.0.1", port: s.port, database: "gone_import", reason: "unreachable" }
        })
        expect(failed.message).toMatch(new RegExp(`^The PostgreSQL index at 127\\.0\\.0\\.1:${s.port} \\(database gone_import\\) cannot be reached: the connection to the server was lost`))
        expect(failed.remediation).toMatch(/run the same command again/i)
        expect(JSON.stringify(failed)).not.toMatch(/A file session-ingest uses|--index, --state and --out|G0ne-pw-secret/)
      }), 120_000)
  }
})
