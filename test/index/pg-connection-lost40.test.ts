/**
 * `pgFailure` of a connection the server ended after it was made. `pg` reports
 * the same event (a postmaster killed inside a transaction) with no code
 * ("Connection terminated unexpectedly") or with an errno (ECONNRESET, EPIPE),
 * run to run; a shutdown says 57P01/57P02. Each must read "the connection to
 * the server was lost", never a bare errno (CI of d409d5b: "cannot be reached:
 * ECONNRESET."). A refused connection stays "cannot be reached: ECONNREFUSED".
 */
import { describe, expect, it } from "vitest"
import { SqlError } from "@effect/sql/SqlError"
import { pgFailure, WITHHELD_TEXT } from "../../src/layers/index/postgres.js"
import { targetOf } from "../../src/layers/index/pg-target.js"

const target = targetOf("postgres://u:Sekr1t-pw@db.example:5433/team")
const lostPrefix = "The PostgreSQL index at db.example:5433 (database team) cannot be reached: the connection to the server was lost ("
const coded = (message: string, code: string) => new SqlError({ cause: Object.assign(new Error(message), { code }), message: "Failed to execute statement" })

describe("pgFailure of a lost connection", () => {
  const cases: ReadonlyArray<[string, SqlError, string]> = [
    ["no code", new SqlError({ cause: new Error("Connection terminated unexpectedly"), message: "Failed to execute statement" }), "Connection terminated unexpectedly"],
    ["ECONNRESET", coded("read ECONNRESET", "ECONNRESET"), "ECONNRESET"],
    ["EPIPE", coded("write EPIPE", "EPIPE"), "EPIPE"],
    ["57P01", coded("terminating connection due to administrator command", "57P01"), "57P01: terminating connection due to administrator command"],
    ["57P02", coded("terminating connection because of crash of another server process", "57P02"), "57P02: terminating connection because of crash of another server process"]
  ]
  for (const [name, cause, inner] of cases) {
    it(`${name}: the connection to the server was lost, unreachable, run it again`, () => {
      const e = pgFailure(target, cause)
      expect(e.message).toBe(`${lostPrefix}${inner}).`)
      expect(e.details).toMatchObject({ host: "db.example", port: 5433, database: "team", reason: "unreachable" })
      expect(e.remediation).toMatch(/run the same command again/i)
    })
  }

  it("a lost connection's driver text holding the password is withheld, the code kept", () => {
    const e = pgFailure(target, coded("socket closed by sekr1t-PW", "ECONNRESET"))
    expect(e.message).toBe(`${lostPrefix}ECONNRESET: ${WITHHELD_TEXT}).`)
    expect(JSON.stringify(e)).not.toMatch(/sekr1t-pw/i)
  })

  it("a refused connection is not a lost one", () => {
    const e = pgFailure(target, coded("connect ECONNREFUSED 10.0.0.1:5433", "ECONNREFUSED"))
    expect(e.message).toBe("The PostgreSQL index at db.example:5433 (database team) cannot be reached: ECONNREFUSED.")
  })
})

/**
 * tester40 F3: a remedy about the URL names both places a URL is given:
 * `--index` (and the config file) and push's `--to` (push has no --index).
 */
describe("pgFailure's remedies name push's --to beside --index", () => {
  it("a server without SSL asked for it (sslmode=require)", () => {
    const e = pgFailure(target, new SqlError({ cause: new Error("The server does not support SSL connections"), message: "PgClient: Failed to connect" }))
    expect(e.details).toMatchObject({ reason: "ssl-not-supported" })
    expect(e.remediation).toContain("(--index; push's --to) asks for SSL")
  })
  it("a refused login", () => {
    const e = pgFailure(target, coded("password authentication failed for user \"u\"", "28P01"))
    expect(e.details).toMatchObject({ reason: "login-refused" })
    expect(e.remediation).toContain("push's --to")
  })
})
