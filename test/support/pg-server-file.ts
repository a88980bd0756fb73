/**
 * A PostgreSQL server for the tests of one file (see `./pg-server.ts`),
 * kept apart from it: the bench starts servers with `./pg-server.ts` too,
 * and must not load vitest.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { type PgServer, type PgServerOptions, startPgServer } from "./pg-server.js"

/**
 * A server of one test file's own: started before its tests (`beforeAll`),
 * stopped after them (`afterAll`). `current` is the server, undefined
 * outside the tests; a test that restarts it (`restart`) stores the new one
 * there.
 */
export const pgServerOfFile = (options: PgServerOptions = {}): { current: PgServer | undefined } => {
  const holder: { current: PgServer | undefined } = { current: undefined }
  beforeAll(async () => {
    holder.current = await startPgServer(options)
  }, 120_000)
  afterAll(() => {
    holder.current?.stop()
    holder.current = undefined
  })
  return holder
}

