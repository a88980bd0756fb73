/**
 * AgentMux runs and their stated costs in the index, on both engines and on
 * an index from before the usage table (docs/usage-and-cost.md, "Tokens and
 * cost"). Claude's `result.total_cost_usd` is the cost of the process that
 * printed it, and each `system/init` line starts a new process: a `result`
 * covers only the responses of its own run (since its `init`); a run killed
 * before its `result` is priced from the table, also once a later run of the
 * session ends with one (tester22a F3: the killed runs' cost vanished under
 * the resumed run's $0.9). A run's stated total is booked, by model, where
 * its responses are: under the run's model (its `init` line's) when one of
 * its responses has it, else under its latest response's model (tester22a
 * F3, LOW: init model "x", response "unknown-model-x" gave a row `x` with no
 * tokens, 0 responses and $0.05).
 *
 * By hand (data/prices.json, per million tokens: claude-haiku-4-5 $1 in, $5
 * out, $0.10 cache read, $1.25 cache write; claude-opus-4-5 $5 / $25;
 * claude-sonnet-4-5 $3 / $15):
 *   S1 run 1 (sonnet, m1 + m2): stated $0.123
 *   S1 killed run (haiku m3, 1/2/3/4 tokens): 1 + 10 + 0.3 + 5 = 16.3 µ$
 *   S1 killed run (opus m6, 1,000 in, 2,000 out): 5,000 + 50,000 = 55,000 µ$
 *   S1 resumed run (opus m7, 10 in, 20 out): stated $0.9
 *   S1 before the resumed run lands: 0.123 + 0.0000163 + 0.055 = $0.1780163; after: $1.0780163
 *   S2 (init "x", unknown-model-x 10/10): stated $0.05
 *   S3 (sonnet, killed and resumed several times, its last run still going):
 *     r1 1,000 in 100 out 4,500 µ$ + r2 2,000 in 6,000 µ$ (killed), r3 in a run stated $0.3,
 *     r4 1,000 out 15,000 µ$ (killed), r5 in a run stated $0.2, r6 100 in 10 out 450 µ$ (going):
 *     0.0045 + 0.006 + 0.3 + 0.015 + 0.2 + 0.00045 = $0.52595
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import Database from "better-sqlite3"
import { bundledPrices } from "../../src/domain/prices.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { usageReport } from "../../src/layers/index/queries.js"
import { layout } from "../agentmux/fixture.js"
import { appendBytes, createStore, tsidxRecord } from "../agentmux/store-helper.js"
import { importOnce, indexLayer } from "../support/index.js"
import { toLegacyLayout } from "../support/legacy-index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

const j = (v: unknown) => JSON.stringify(v)
const U = (i: number, o: number, r: number, w: number) => ({ input_tokens: i, output_tokens: o, cache_read_input_tokens: r, cache_creation_input_tokens: w })
const user = (text: string) => j({ type: "user", message: { role: "user", content: text } })
const init = (sid: string, model: string) => j({ type: "system", subtype: "init", cwd: "/home/dev/am", session_id: sid, model, tools: [] })
const asst = (sid: string, id: string, model: string, u: unknown) =>
  j({ type: "assistant", message: { id, type: "message", role: "assistant", model, content: [{ type: "text", text: `text of ${id}` }], usage: u }, session_id: sid })
const result = (sid: string, cost: number) => j({ type: "result", subtype: "success", is_error: false, result: "ok", session_id: sid, total_cost_usd: cost })

const SONNET = "claude-sonnet-4-5"
const HAIKU = "claude-haiku-4-5"
const OPUS = "claude-opus-4-5"

/** The store as the tester left it before the resumed run: S1's first run, two killed runs, S2 between them; S3. */
const first = [
  user("first prompt"),
  init("S1", SONNET),
  asst("S1", "m1", SONNET, U(100, 10, 0, 0)),
  asst("S1", "m1", SONNET, U(100, 40, 0, 0)),
  asst("S1", "m2", SONNET, U(5, 5, 1000, 2000)),
  result("S1", 0.123),
  user("second prompt"),
  init("S1", HAIKU),
  asst("S1", "m3", HAIKU, U(1, 2, 3, 4)),
  user("prompt for S2"),
  init("S2", "x"),
  asst("S2", "m4", "unknown-model-x", U(10, 10, 0, 0)),
  result("S2", 0.05),
  user("third prompt"),
  init("S1", OPUS),
  asst("S1", "m6", OPUS, U(1000, 2000, 0, 0)),
  init("S3", SONNET),
  asst("S3", "r1", SONNET, U(1000, 100, 0, 0)),
  init("S3", SONNET),
  asst("S3", "r2", SONNET, U(2000, 0, 0, 0)),
  init("S3", SONNET),
  asst("S3", "r3", SONNET, U(10, 10, 0, 0)),
  result("S3", 0.3),
  init("S3", SONNET),
  asst("S3", "r4", SONNET, U(0, 1000, 0, 0)),
  init("S3", SONNET),
  asst("S3", "r5", SONNET, U(20, 20, 0, 0)),
  result("S3", 0.2),
  init("S3", SONNET),
  asst("S3", "r6", SONNET, U(100, 10, 0, 0))
]

/** The resumed run of S1, appended later: a new process that ends with a result. */
const resumed = [user("fourth prompt"), init("S1", OPUS), asst("S1", "m7", OPUS, U(10, 20, 0, 0)), result("S1", 0.9)]

const ZONE = "agent:u1:current"
const stamp = (i: number) => Date.UTC(2026, 10, 1, 10, 0, i)

const corpus = () => {
  const dir = tempDir("si-am-runs-")
  const store = path.join(dir, "filestore.db")
  const laid = layout(first)
  createStore(store, [
    { zoneId: ZONE, name: "output", bytes: laid.bytes, createdTs: 1_700_000_000_000 },
    { zoneId: ZONE, name: "output.tsidx", bytes: Buffer.from(laid.lines.map((l, i) => tsidxRecord(l.start, stamp(i))).join("")) }
  ])
  fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
  const policy = { workspaceRoots: [], museRoots: [], agentsRoot: path.join(dir, "agents"), agentmuxStore: store, stateFile: path.join(dir, "state.db") }
  const importAll = (index: string, batchSize: number) => importOnce(policy, index, planFromPolicy(policy, { agents: ["u1"], batchSize }))
  /** AgentMux appends the resumed run to the zone's output (and its receive times to the sidecar). */
  const resume = () => {
    const more = layout(resumed)
    const db = new Database(store)
    appendBytes(db, ZONE, "output", more.bytes)
    appendBytes(db, ZONE, "output.tsidx", Buffer.from(more.lines.map((l, i) => tsidxRecord(laid.bytes.length + l.start, stamp(first.length + i))).join("")))
    db.close()
  }
  return { dir, importAll, resume }
}

const usd = (x: number | null | undefined) => (x == null ? null : Math.round(x * 1e9) / 1e9)

/** The report by session and by model: `[key, input, output, cache read, cache write, responses, cost]` rows, and the total. */
const reports = (index: string) =>
  Effect.gen(function*() {
    const rows = (by: "session" | "model") =>
      Effect.map(usageReport({ by }, bundledPrices), (r) => ({
        rows: r.rows.map((x) => [x.key, x.inputTokens, x.outputTokens, x.cacheReadTokens, x.cacheWriteTokens, x.responses, usd(x.costUsd)]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        total: usd(r.total.costUsd)
      }))
    return { bySession: yield* rows("session"), byModel: yield* rows("model") }
  }).pipe(Effect.provide(indexLayer(index)))

const S3_ROW = ["S3", 3130, 1140, 0, 0, 6, 0.52595]

const BEFORE = {
  bySession: {
    rows: [["S1", 1106, 2047, 1003, 2004, 4, 0.1780163], ["S2", 10, 10, 0, 0, 1, 0.05], S3_ROW],
    total: 0.7539663
  },
  byModel: {
    rows: [
      [HAIKU, 1, 2, 3, 4, 1, 0.0000163],
      [OPUS, 1000, 2000, 0, 0, 1, 0.055],
      [SONNET, 3235, 1185, 1000, 2000, 8, 0.64895],
      ["unknown-model-x", 10, 10, 0, 0, 1, 0.05]
    ],
    total: 0.7539663
  }
}

const AFTER = {
  bySession: {
    rows: [["S1", 1116, 2067, 1003, 2004, 5, 1.0780163], ["S2", 10, 10, 0, 0, 1, 0.05], S3_ROW],
    total: 1.6539663
  },
  byModel: {
    rows: [
      [HAIKU, 1, 2, 3, 4, 1, 0.0000163],
      [OPUS, 1010, 2020, 0, 0, 2, 0.955],
      [SONNET, 3235, 1185, 1000, 2000, 8, 0.64895],
      ["unknown-model-x", 10, 10, 0, 0, 1, 0.05]
    ],
    total: 1.6539663
  }
}

describe.each(engines)("AgentMux runs: each result covers its own run, killed runs keep their table price ($engine)", ({ newIndex }) => {
  for (const batchSize of [1, 500]) {
    it.effect(`the tester's session, then its resumed run appended and imported (batch size ${batchSize})`, () =>
      Effect.gen(function*() {
        const c = corpus()
        const index = yield* newIndex(c.dir)
        yield* c.importAll(index, batchSize)
        expect(yield* reports(index)).toEqual(BEFORE)
        c.resume()
        yield* c.importAll(index, batchSize)
        expect(yield* reports(index)).toEqual(AFTER)
      }))
  }
})

describe("AgentMux runs: an index from before the usage table", () => {
  it.effect("the rows derived from its events follow the same rules", () =>
    Effect.gen(function*() {
      const c = corpus()
      c.resume()
      const index = path.join(c.dir, "index.db")
      yield* c.importAll(index, 500)
      expect(yield* reports(index)).toEqual(AFTER)
      yield* toLegacyLayout(index)
      const db = new Database(index)
      db.exec("DROP TABLE usage")
      db.prepare("DELETE FROM si_migrations WHERE migration_id = 5").run()
      db.close()
      expect(yield* reports(index)).toEqual(AFTER)
    }))
})
