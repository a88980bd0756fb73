/**
 * The team index's roles and `index migrate` (tester18 F4, F11):
 * - a role that may only read (SELECT), or one that owns the database but
 *   not the tables `index migrate` made, reads the index; an import is
 *   refused with `STORE_UNAVAILABLE` (reason `permission-denied`) naming the
 *   role (never the password) and what to grant or which role to use, never
 *   "run the same command again" (it cannot help);
 * - `index migrate` with a read-only role on a current schema says
 *   "current" (it only reads the schema version);
 * - `index migrate`s run at once on a new database all succeed: one applies
 *   the migrations, the others find them applied (was: 23505 at times).
 */
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as IndexPostgres from "../../src/layers/index/postgres.js"
import { Index } from "../../src/services/Index.js"
import { agentsCorpus as corpus } from "../support/agents-lines.js"
import { importOnce, indexLayer } from "../support/index.js"
import { freshDatabase, migratedDatabase, pgQuery, pgServerUrl } from "../support/pg.js"
import { cli } from "../support/run.js"

/** A new login role on the test server (trust authentication: any password is taken), and `url` as that role with a password. */
const withRole = (url: string, setup: (role: string) => ReadonlyArray<string>) =>
  Effect.promise(async () => {
    const role = `ro_${randomBytes(4).toString("hex")}`
    await pgQuery(pgServerUrl(), `CREATE ROLE ${role} LOGIN`)
    for (const q of setup(role)) await pgQuery(url, q)
    const u = new URL(url)
    u.username = role
    u.password = "R0le-pw-secret"
    return { role, url: u.toString() }
  })

const expectPermissionDenied = (failed: unknown, role: string) => {
  expect(failed).toMatchObject({ code: "STORE_UNAVAILABLE", details: { reason: "permission-denied", code: "42501" } })
  const e = failed as { message: string; remediation: string }
  expect(e.message).toMatch(/^The PostgreSQL role /)
  expect(e.message).toContain(`role ${role} lacks a privilege`)
  expect(e.remediation).not.toMatch(/run the same command again/i)
  expect(e.remediation).toContain(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`)
  expect(e.remediation).toContain("index migrate")
  expect(JSON.stringify(failed)).not.toContain("R0le-pw-secret")
}

describe("team index (PostgreSQL): roles without write privileges", () => {
  for (const [kind, grants] of [
    ["a role that may only read (SELECT)", (role: string) => [`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`]],
    ["a role that owns the database, not the tables", (_role: string) => []]
  ] as const) {
    it.effect(`${kind}: import is refused naming the role and what to grant; index migrate on a current schema: current, or refused alike`, () =>
      Effect.gen(function*() {
        const owner = yield* migratedDatabase
        const database = new URL(owner).pathname.slice(1)
        const r = yield* withRole(owner, grants)
        if (kind.includes("owns the database")) yield* Effect.promise(() => pgQuery(owner, `ALTER DATABASE ${database} OWNER TO ${r.role}`))
        // Reading works (a read-only role's own use), or is refused the same way when it may not even read.
        const read = yield* Effect.either(Effect.flatMap(Index, (i) => i.sessions({})).pipe(Effect.provide(indexLayer(r.url))))
        if (kind.includes("only read")) expect(read._tag).toBe("Right")
        else if (read._tag === "Left") expectPermissionDenied(read.left, r.role)
        const c = corpus(2, 5)
        const failed = yield* Effect.flip(importOnce(c.policy, r.url, c.plan, undefined, "m"))
        expectPermissionDenied(failed, r.role)
        if (kind.includes("only read")) {
          const m = yield* IndexPostgres.migrate(r.url)
          expect(m).toMatchObject({ applied: [], version: IndexPostgres.SCHEMA_VERSION })
        } else {
          // It may not even read the schema version: refused the same way.
          expectPermissionDenied(yield* Effect.flip(IndexPostgres.migrate(r.url)), r.role)
        }
        // The CLI: exit 6, the role named, no password, the remedy as above.
        const run = cli(["import", "--index", r.url, "--machine", "m", "--agents-root", c.agents, "--claude-root", c.dir, "--json"])
        expect(run.code).toBe(6)
        expect(run.stdout + run.stderr).not.toContain("R0le-pw-secret")
        expectPermissionDenied(JSON.parse(run.stdout.trim().split("\n").pop()!).error, r.role)
      }))
  }
})

describe("team index (PostgreSQL): index migrate run at once", () => {
  it.effect("three at once on a new database, five times: all succeed, one applies the migrations, the others find them applied", () =>
    Effect.gen(function*() {
      for (let round = 0; round < 5; round++) {
        const url = yield* Effect.promise(freshDatabase)
        const results = yield* Effect.all([1, 2, 3].map(() => IndexPostgres.migrate(url)), { concurrency: "unbounded" })
        expect(results.map((r) => r.version)).toEqual([1, 2, 3].map(() => IndexPostgres.SCHEMA_VERSION))
        expect(results.map((r) => r.applied.length).sort()).toEqual([0, 0, IndexPostgres.SCHEMA_VERSION])
        const [{ n }] = yield* Effect.promise(() => pgQuery<{ n: number }>(url, "SELECT count(*)::int AS n FROM si_migrations"))
        expect(n).toBe(IndexPostgres.SCHEMA_VERSION)
      }
    }), 120_000)
})
