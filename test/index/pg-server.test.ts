/** The test run's PostgreSQL server is real, runs on a local port, and gives each test its own database. */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { freshDatabase, pgQuery, pgServerUrl, withDatabase } from "../support/pg.js"
import { type PgServer, startPgServer } from "../support/pg-server.js"

describe("PostgreSQL test server", () => {
  it("answers on 127.0.0.1 and creates isolated databases", async () => {
    const url = new URL(pgServerUrl())
    expect(url.hostname).toBe("127.0.0.1")
    const a = await freshDatabase()
    const b = await freshDatabase()
    expect(a).not.toBe(b)
    await pgQuery(a, "CREATE TABLE only_in_a (x int)")
    const [version] = await pgQuery<{ server_version_num: string }>(a, "SHOW server_version_num")
    expect(Number(version.server_version_num)).toBeGreaterThanOrEqual(120000)
    const seen = await pgQuery(b, "SELECT 1 FROM pg_tables WHERE tablename = 'only_in_a'")
    expect(seen).toEqual([])
  })
})

describe("a throwaway server of a test's own (test/support/pg-server.ts)", () => {
  /** Whether process `pid` runs. */
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  const waitFor = async (what: string, pred: () => boolean, ms = 15_000) => {
    for (const t0 = Date.now(); !pred(); await new Promise((r) => setTimeout(r, 100))) {
      if (Date.now() - t0 > ms) throw new Error(`timed out waiting: ${what}`)
    }
  }

  it("restarts on its data after a kill (the data kept, a new port); when its owner process dies, the server and its folder go", async () => {
    // The owner: a process of ours that we can end, as a killed test run ends.
    const owner = spawn("sleep", ["300"], { stdio: "ignore" })
    const first = await startPgServer({ owner: owner.pid! })
    let last: PgServer = first
    try {
      expect(first.base).toMatch(/^\/tmp\/si-pg-/)
      await pgQuery(first.url, "CREATE DATABASE kept")
      // Committed for good before the kill (the server runs with synchronous_commit off, a test server).
      await pgQuery(withDatabase(first.url, "kept"), "SET synchronous_commit = on; CREATE TABLE t (x int); INSERT INTO t VALUES (42)")
      process.kill(first.pid, "SIGKILL")
      await waitFor("the killed postmaster to go", () => !alive(first.pid))
      last = await first.restart()
      expect(last.pid).not.toBe(first.pid)
      expect(last.base).toBe(first.base)
      expect(await pgQuery(withDatabase(last.url, "kept"), "SELECT x FROM t")).toEqual([{ x: 42 }])

      owner.kill("SIGKILL")
      await waitFor("the server to stop once its owner is gone", () => !alive(last.pid))
      await waitFor("its folder to be removed", () => !fs.existsSync(first.base))
    } finally {
      owner.kill("SIGKILL")
      last.stop()
    }
  }, 120_000)
})
