/**
 * The test run's PostgreSQL server (started by `./pg-global-setup.ts`): its
 * URL, and a fresh empty database per test.
 */
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import pg from "pg"
import * as IndexPostgres from "../../src/layers/index/postgres.js"

/** The server's maintenance URL; throws why there is no server (the test then fails saying so). */
export const pgServerUrl = (): string => {
  const url = process.env.SI_TEST_PG_URL
  if (url !== undefined && url !== "") return url
  throw new Error(
    `No PostgreSQL test server: ${process.env.SI_TEST_PG_ERROR ?? "the global setup (test/support/pg-global-setup.ts) did not run"}`
  )
}

/** `url` with another database. */
export const withDatabase = (url: string, database: string): string => {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

/** A new empty database on the test server (dropped with the server at the end of the run); answers its URL. */
export const freshDatabase = async (): Promise<string> => {
  const url = pgServerUrl()
  const name = `t_${randomBytes(6).toString("hex")}`
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  return withDatabase(url, name)
}

/** Run `query` on the database at `url` (a fresh connection), answering its rows. */
export const pgQuery = async <A = Record<string, unknown>>(url: string, query: string, params: Array<unknown> = []): Promise<Array<A>> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(query, params)).rows as Array<A>
  } finally {
    await client.end()
  }
}

/** A fresh database on the test server with the index schema migrated (`session-ingest index migrate`): its URL. */
export const migratedDatabase = Effect.promise(freshDatabase).pipe(
  Effect.tap((url) => IndexPostgres.migrate(url))
)

/** The engines the contract tests run against: a new index of each (a SQLite file in `dir`, a migrated PostgreSQL database). */
export const engines = [
  { engine: "sqlite", newIndex: (dir: string) => Effect.succeed(path.join(dir, `index-${randomBytes(4).toString("hex")}.db`)) },
  { engine: "postgres", newIndex: (_dir: string) => migratedDatabase }
] as const
