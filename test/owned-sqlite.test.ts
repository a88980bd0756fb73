/**
 * session-ingest's own SQLite files are told apart by their `application_id`:
 * an index given as a scan state (or the reverse) is refused, and the refusal
 * says what the file is rather than calling it another program's database.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { checkOwnedSqlite, INDEX_APPLICATION_ID, SQLITE_MAGIC, STATE_APPLICATION_ID } from "../src/layers/owned-sqlite.js"
import { tempDir } from "./support/paths.js"

/** A file with a SQLite header (100 bytes) carrying `applicationId`. */
const sqliteHeader = (file: string, applicationId: number) => {
  const header = Buffer.alloc(100)
  SQLITE_MAGIC.copy(header, 0)
  header.writeUInt32BE(applicationId, 68)
  fs.writeFileSync(file, header)
}

describe("checkOwnedSqlite", () => {
  it.effect("an index given as the scan state is refused as session-ingest's index; a state given as the index likewise", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-owned-")
      const index = path.join(dir, "index.db")
      const state = path.join(dir, "state.db")
      sqliteHeader(index, INDEX_APPLICATION_ID)
      sqliteHeader(state, STATE_APPLICATION_ID)
      expect(yield* checkOwnedSqlite(index, INDEX_APPLICATION_ID, "index", "--index FILE")).toBe("owned")
      const asState = yield* Effect.flip(checkOwnedSqlite(index, STATE_APPLICATION_ID, "scan state", "--state FILE"))
      expect(asState.code).toBe("STORE_UNAVAILABLE")
      expect(asState.message).toBe(`Refusing to use ${index} as session-ingest's scan state: it is session-ingest's index, not its scan state.`)
      const asIndex = yield* Effect.flip(checkOwnedSqlite(state, INDEX_APPLICATION_ID, "index", "--index FILE"))
      expect(asIndex.message).toContain("is session-ingest's scan state, not its index")
      const foreign = path.join(dir, "other.db")
      sqliteHeader(foreign, 0x12345678)
      expect((yield* Effect.flip(checkOwnedSqlite(foreign, INDEX_APPLICATION_ID, "index", "--index FILE"))).message)
        .toContain("a SQLite database that session-ingest did not create")
    }))
})
