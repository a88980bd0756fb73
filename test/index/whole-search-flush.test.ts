/**
 * New small sources written whole (`IndexWriter.whole`, issue 13: first
 * import) share a transaction; FTS5 writes its pending words to disk at every
 * statement savepoint, and a `sources` row's insert opens one (its push-journal
 * triggers). What must hold:
 * - the words of the sources of one transaction reach the disk once, at its
 *   commit: no FTS5 segment is written per source (`search_data` gains no row
 *   before the commit);
 * - each source's row is there before any other statement reads it: through
 *   the writer (a source seen again), through `@effect/sql` on the same
 *   connection (`Index.checkpoint`), and after the commit, complete with all its events.
 */
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { emptySourceSummary } from "../../src/domain/model.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import type { Driver } from "../../src/layers/index/sqlite-connection.js"
import { IndexWriter } from "../../src/layers/index/sqlite-writer.js"
import { Index, type SourceInfo, type WholeSource } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { importOnce, indexLayer } from "../support/index.js"
import { museWorkspace } from "../support/source-roots.js"

const sourceId = (k: number) => `sha256:${String(k).repeat(64).slice(0, 64)}`

/** Source `k`: `n` events, each with words of its own. */
const whole = (k: number, n: number): WholeSource => {
  const source: SourceInfo = {
    sourceKey: `muse-code:/logs/${k}/session.jsonl`,
    provider: "muse-code",
    locator: { locatorClass: "muse-native-session-log", path: `/logs/${k}/session.jsonl` },
    summary: {},
    overview: emptySourceSummary(`s-${k}`)
  }
  const ev = mk("muse-code", `s-${k}`)
  const events = Array.from({ length: n }, (_, i) =>
    ev("message", {
      sourceId: sourceId(k),
      role: "user",
      occurredAt: "2026-01-01T00:00:00.000Z",
      text: `source${k} word${i} hello`,
      rawReference: { locatorClass: "muse-native-session-log", sequence: i, offset: i * 100 }
    }))
  return { source, batches: [{ events }], groupCommit: 1_000_000, fingerprint: `f${k}`, parts: {}, diagnostics: [] }
}

/** A migrated index file with nothing in it. */
const emptyIndex = Effect.gen(function*() {
  const { dir, policy } = museWorkspace()
  const file = path.join(dir, "index.db")
  yield* importOnce(policy, file, planFromPolicy(policy, {}))
  return file
})

describe("sources written whole in one transaction (issue 13: first import)", () => {
  it.effect("their search words reach the disk once, at the commit, not once per source", () =>
    Effect.gen(function*() {
      const file = yield* emptyIndex
      const db = new Database(file)
      try {
        const writer = new IndexWriter(db as unknown as Driver)
        const segments = () => (db.prepare("SELECT count(*) AS n FROM search_data").get() as { n: number }).n
        // The first source opens the transaction; its words may meet what FTS5 keeps from before.
        writer.whole(whole(0, 3), () => 1, () => {})
        const before = segments()
        for (let k = 1; k <= 10; k++) writer.whole(whole(k, 3), () => 1 + k, () => {})
        expect(segments()).toBe(before)
        writer.commit()
        expect(segments()).toBeGreaterThan(before)
        const rows = db.prepare("SELECT source_key, status, event_count FROM sources ORDER BY source_key").all()
        expect(rows).toEqual(Array.from({ length: 11 }, (_, k) => ({ source_key: `muse-code:/logs/${k}/session.jsonl`, status: "complete", event_count: 3 })).sort((a, b) => a.source_key.localeCompare(b.source_key)))
        expect(db.prepare("SELECT count(*) AS n FROM search WHERE search MATCH 'source7'").get()).toEqual({ n: 3 })
      } finally {
        db.close()
      }
    }))

  it.effect("a source's row is there for what reads it before the commit: the writer, and a query on the same connection", () =>
    Effect.gen(function*() {
      const file = yield* emptyIndex
      const db = new Database(file)
      try {
        const writer = new IndexWriter(db as unknown as Driver)
        writer.whole(whole(1, 2), () => 1, () => {})
        // The same source again in the transaction: not new any more, so its row is read (and found) first.
        writer.whole({ ...whole(1, 2), fingerprint: "f1-again" }, () => 2, () => {})
        writer.commit()
        // (Taken for new, its row would be inserted twice at the commit, which fails on the source's key.)
        expect(db.prepare("SELECT fingerprint, status FROM sources").all()).toEqual([{ fingerprint: "f1-again", status: "complete" }])
      } finally {
        db.close()
      }
      // Through the index service: `importWhole`, then `checkpoint` (an `@effect/sql` query) before any commit.
      const checkpoint = yield* Effect.gen(function*() {
        const index = yield* Index
        yield* index.importWhole!(whole(2, 4), () => Effect.void)
        return yield* index.checkpoint(whole(2, 4).source.sourceKey)
      }).pipe(Effect.provide(indexLayer(file)))
      expect(Option.map(checkpoint, (c) => [c.status, c.fingerprint])).toEqual(Option.some(["complete", "f2"]))
    }))
})
