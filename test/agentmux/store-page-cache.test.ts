/**
 * The AgentMux store's connection runs with a small page cache (issue 13:
 * a rescan's 1 MiB append, read once through a default 2 MB cache, grew it
 * page by page into fresh memory, a page fault each), whichever way the store
 * is read: in place (rollback journal), through its cached copy (WAL), or
 * from a private whole copy (WAL, no cache folder). The setting is the
 * connection's: the store's files are left as they were.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import { openStore, PAGE_CACHE_KIB } from "../../src/layers/agentmux/transcript-store-sqlite.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import { tempDir } from "../support/paths.js"
import { createStore } from "./store-helper.js"

/** A connection as better-sqlite3 makes it (the test typings name only what the helpers use). */
type Connection = Database.Database & { readonly name: string }

/** The connections that prepared a statement while `f` ran. */
const connectionsDuring = <A, E, R>(f: Effect.Effect<A, E, R>) => {
  const seen = new Set<Connection>()
  const proto = (Database as unknown as { prototype: { prepare: (...args: Array<unknown>) => unknown } }).prototype
  const prepare = proto.prepare
  vi.spyOn(proto, "prepare").mockImplementation(function(this: Connection, ...args: Array<unknown>) {
    seen.add(this)
    return prepare.apply(this, args)
  })
  return Effect.map(f, () => seen)
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("the AgentMux store's connection has a small page cache", () => {
  const cases = [
    { name: "rollback-journal store, read in place", wal: false, cache: true, mode: "direct" },
    { name: "WAL store, read through its cached copy", wal: true, cache: true, mode: "snapshot" },
    { name: "WAL store, no cache folder: a private whole copy", wal: true, cache: false, mode: "snapshot" }
  ] as const
  for (const c of cases) {
    it.effect(c.name, () =>
      Effect.gen(function*() {
        const dir = tempDir()
        const store = nodePath.join(dir, "store", "filestore.db")
        fs.mkdirSync(nodePath.dirname(store))
        createStore(store, [], { wal: c.wal })
        const before = fs.readdirSync(nodePath.dirname(store)).sort()
        const sizes = yield* Effect.scoped(
          Effect.gen(function*() {
            let mode = ""
            const seen = yield* connectionsDuring(
              Effect.map(openStore(sourceAccessNode, store, c.cache ? nodePath.join(dir, "cache") : null), (o) => {
                if (o._tag === "open") mode = o.connection.mode
              })
            )
            expect(mode).toBe(c.mode)
            // Read while the connection is open (the scope closes it).
            return [...seen].filter((db) => nodePath.basename(db.name) === "filestore.db").map((db) =>
              (db.pragma("cache_size") as Array<{ cache_size: number }>)[0].cache_size
            )
          })
        )
        // One connection to the store (or its copy), its cache in KiB (a negative cache_size is KiB).
        expect(sizes).toEqual([-256])
        expect(PAGE_CACHE_KIB).toBe(256)
        expect(fs.readdirSync(nodePath.dirname(store)).sort()).toEqual(before)
      }))
  }
})
