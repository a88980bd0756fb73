/** The test run's PostgreSQL server is real, runs on a local port, and gives each test its own database. */
import { describe, expect, it } from "@effect/vitest"
import { freshDatabase, pgQuery, pgServerUrl } from "../support/pg.js"

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
