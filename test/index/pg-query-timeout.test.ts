/**
 * `pgFailure` of `pg`'s query_timeout ("Query read timeout"): the server took
 * the connection and the query and gave no answer in time, which a busy
 * server or a slow plan does as well as a frozen one. It said "cannot be
 * reached: timed out" with a remedy about the network only (tester22a F4: a
 * healthy server's slow query); it says the server stopped answering a query
 * and names the timeout's setting, as the operation's own timeout does.
 * A connection's timeout stays "cannot be reached".
 */
import { describe, expect, it } from "vitest"
import { SqlError } from "@effect/sql/SqlError"
import { DEFAULT_TIMEOUT_SECONDS, pgFailure, TIMEOUT_ENV } from "../../src/layers/index/postgres.js"
import { targetOf } from "../../src/layers/index/pg-target.js"

const target = targetOf("postgres://u@db.example:5433/team")

describe("pgFailure of a timeout", () => {
  it("a query's (Query read timeout): stopped answering a query, the timeout's setting in the remedy", () => {
    const e = pgFailure(target, new SqlError({ cause: new Error("Query read timeout"), message: "Failed to execute statement" }))
    expect(e.message).toBe("The PostgreSQL index at db.example:5433 (database team) stopped answering: no answer to a query in the time allowed (Query read timeout).")
    expect(e.remediation).toContain(`${TIMEOUT_ENV}=<seconds> (default ${DEFAULT_TIMEOUT_SECONDS})`)
    expect(e.remediation).toContain("not overloaded")
    expect((e.details as { reason: string }).reason).toBe("unreachable")
  })

  it("a connection's: cannot be reached, as before", () => {
    const e = pgFailure(target, new SqlError({ cause: new Error("Connection terminated due to connection timeout"), message: "PgClient: Failed to connect" }))
    expect(e.message).toMatch(/^The PostgreSQL index at db\.example:5433 \(database team\) cannot be reached: timed out/)
  })
})
