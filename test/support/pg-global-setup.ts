/**
 * Vitest global setup: one throwaway PostgreSQL server for the whole run
 * (see `./pg-server.ts`), stopped at the end. Its URL goes to the workers as
 * `SI_TEST_PG_URL`; when it cannot start (no binaries, …) the reason goes as
 * `SI_TEST_PG_ERROR` and every PostgreSQL test fails with it (the other
 * tests run as usual).
 */
import { startPgServer } from "./pg-server.js"

export default async function setup() {
  try {
    const server = await startPgServer()
    process.env.SI_TEST_PG_URL = server.url
    return () => server.stop()
  } catch (e) {
    process.env.SI_TEST_PG_ERROR = e instanceof Error ? e.message : String(e)
    return () => undefined
  }
}
