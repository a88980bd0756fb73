/**
 * One I/O path: the AgentMux store's own bytes (its SQLite header) and the
 * `-wal` beside it are looked at through SourceAccess, so its rules (no
 * symlink followed, the authorized file's identity re-checked) and its test
 * layer cover them; a store SourceAccess cannot read is STORE_UNAVAILABLE.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import { SourceNotAuthorized } from "../../src/domain/errors.js"
import { openStore } from "../../src/layers/agentmux/transcript-store-sqlite.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import type { SourceAccessShape } from "../../src/services/SourceAccess.js"
import { tempDir } from "../support/paths.js"
import { createStore } from "./store-helper.js"

const recording = (log: Array<string>, refuse = false): SourceAccessShape => ({
  ...sourceAccessNode,
  readHead: (file, length) =>
    Effect.suspend(() => {
      log.push(`head:${nodePath.basename(file.path)}:${length}`)
      return refuse
        ? Effect.fail(new SourceNotAuthorized({ message: `${file.path} is not readable (test layer).` }))
        : sourceAccessNode.readHead(file, length)
    }),
  probe: (path) =>
    Effect.suspend(() => {
      log.push(`probe:${nodePath.basename(path)}`)
      return sourceAccessNode.probe(path)
    })
})

describe("the AgentMux store is read through SourceAccess", () => {
  for (const wal of [false, true]) {
    it.effect(`its header and -wal (${wal ? "WAL" : "rollback"} store)`, () =>
      Effect.gen(function*() {
        const dir = tempDir()
        const store = nodePath.join(dir, "filestore.db")
        createStore(store, [], { wal })
        const log: Array<string> = []
        const opened = yield* Effect.scoped(Effect.map(openStore(recording(log), store, null), (o) => o._tag))
        expect(opened).toBe("open")
        expect(log).toEqual(["head:filestore.db:100", "probe:filestore.db-wal"])
        expect(fs.readdirSync(dir).sort()).toEqual(["filestore.db"])
      }))
  }

  it.effect("a WAL store read through its cache: the -wal's header is read through SourceAccess, after its copy", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const store = nodePath.join(dir, "filestore.db")
      createStore(store, [], { wal: true })
      const writer = new Database(store)
      try {
        writer.pragma("wal_autocheckpoint = 0")
        writer.exec("INSERT INTO db_wave_file VALUES ('z', 'n', 0, 0, 0, '{}', '{}')")
        expect(fs.existsSync(`${store}-wal`)).toBe(true)
        const log: Array<string> = []
        const mode = yield* Effect.scoped(
          Effect.map(openStore(recording(log), store, tempDir()), (o) => (o._tag === "open" ? o.connection.mode : o._tag))
        )
        expect(mode).toBe("snapshot")
        expect(log).toEqual(["head:filestore.db:100", "probe:filestore.db-wal", "head:filestore.db-wal:32"])
      } finally {
        writer.close()
      }
    }))

  it.effect("a store the access layer refuses to read is STORE_UNAVAILABLE", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const store = nodePath.join(dir, "filestore.db")
      createStore(store, [])
      const code = yield* Effect.scoped(openStore(recording([], true), store, null)).pipe(
        Effect.match({ onFailure: (e) => e.code, onSuccess: (o) => o._tag })
      )
      expect(code).toBe("STORE_UNAVAILABLE")
    }))
})
