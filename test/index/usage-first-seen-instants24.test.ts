/**
 * Session 24: a response copied into two sessions counts in the session that began first by instant, not by the
 * text of its first time (docs/usage-and-cost.md, "Copies of a response"; `FIRST_SEEN_ORDER` in
 * src/layers/index/rows.ts). Stored times have 3 to 9 fraction digits (`normalizeTimestamp`), and as text
 * `…00.999Z` > `…00.9995Z` ('Z' > '5'), though `.999` is the earlier instant: ordered as text, the later session
 * took the response. Both engines, and on SQLite an index from before the usage table too (rows derived from the
 * stored events: the same order in code).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import Database from "better-sqlite3"
import { bundledPrices } from "../../src/domain/prices.js"
import type { UsageSummary } from "../../src/domain/usage.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { usageBySession, usageReport } from "../../src/layers/index/queries.js"
import { Index } from "../../src/services/Index.js"
import { importOnce, indexLayer } from "../support/index.js"
import { toLegacyLayout } from "../support/legacy-index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

// the session that began first has the higher id, so the tie-breaks after the times cannot pick it
const EARLIER = "9e9e9e9e-0000-4000-8000-00000000009e"
const LATER = "1a1a1a1a-0000-4000-8000-00000000001a"
const MODEL = "claude-sonnet-4-5-20250929"
const usage = { input_tokens: 10, output_tokens: 500, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 }
const base = (sid: string, ts: string) => ({ sessionId: sid, cwd: "/w", isSidechain: false, userType: "external", version: "2.0.76", timestamp: ts })

/** A session of one prompt and the copied response `msg_m1` / `req_r1`, every line at `ts`. */
const lines = (sid: string, ts: string) => [
  { ...base(sid, ts), type: "user", uuid: `u-${sid}`, parentUuid: null, message: { role: "user", content: "explain the parser" } },
  { ...base(sid, ts), type: "assistant", uuid: `a-${sid}`, parentUuid: null, requestId: "req_r1", message: { id: "msg_m1", role: "assistant", model: MODEL, content: [{ type: "text", text: "it reads lines" }], usage } }
]

const setup = (earlier: string, later: string) => {
  const dir = tempDir("si-first-seen-instants-")
  const root = nodePath.join(dir, "projects")
  const folder = nodePath.join(root, "-w")
  fs.mkdirSync(folder, { recursive: true })
  fs.mkdirSync(nodePath.join(dir, "agents"), { recursive: true })
  for (const [sid, ts] of [[EARLIER, earlier], [LATER, later]] as const) {
    fs.writeFileSync(nodePath.join(folder, `${sid}.jsonl`), lines(sid, ts).map((r) => JSON.stringify(r) + "\n").join(""))
  }
  return { dir, policy: { workspaceRoots: [dir], museRoots: [], agentsRoot: nodePath.join(dir, "agents"), claudeRoot: root } }
}

const tokens = (u: UsageSummary | null | undefined) => u == null ? null : [u.inputTokens, u.outputTokens, u.responses]
const split = (index: string) =>
  Effect.gen(function*() {
    const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
    const byUid = yield* usageBySession(bundledPrices)
    const total = yield* usageReport({ by: "provider" }, bundledPrices)
    return { bySession: new Map(sessions.map((s) => [s.sessionId, tokens(byUid.get(s.sessionUid))] as const)), total: total.total!.outputTokens }
  }).pipe(Effect.provide(indexLayer(index)))

/** Pairs of first times: the first is the earlier instant, and the later as text. */
const TIMES: ReadonlyArray<readonly [string, string]> = [
  ["2026-04-01T10:00:00.999Z", "2026-04-01T10:00:00.9995Z"],
  ["2026-04-01T10:00:00.25Z", "2026-04-01T10:00:00.250001Z"],
  // offsets are read as their instants (stored in UTC): 12:00:00.5+02:00 is 10:00:00.500Z
  ["2026-04-01T12:00:00.5+02:00", "2026-04-01T10:00:00.5000001Z"]
]

describe.each(engines)("usage: a copied response counts where it was seen first, by instant ($engine)", ({ engine, newIndex }) => {
  it.effect("the session whose first time is the earlier instant keeps the response; the other counts 0; the total once", () =>
    Effect.gen(function*() {
      for (const [earlier, later] of TIMES) {
        const c = setup(earlier, later)
        const index = yield* newIndex(c.dir)
        yield* importOnce(c.policy, index, planFromPolicy(c.policy, { batchSize: 500 }))
        const check = (r: { bySession: Map<string, ReadonlyArray<number | null> | null>; total: number | null }, what: string) => {
          expect(r.bySession.get(EARLIER), `${what} ${earlier}`).toEqual([10, 500, 1])
          expect(r.bySession.get(LATER)?.[1] ?? 0, `${what} ${later}`).toBe(0)
          expect(r.total, what).toBe(500)
        }
        check(yield* split(index), engine)
        if (engine === "sqlite") {
          // an index from before the usage table: the rows derived from the stored events, the same order
          yield* toLegacyLayout(index)
          const db = new Database(index)
          db.exec("DROP TABLE usage")
          db.prepare("DELETE FROM si_migrations WHERE migration_id = 5").run()
          db.close()
          check(yield* split(index), "legacy")
        }
      }
    }))
})
