/**
 * A Claude response whose prompt (input + cache read + cache write tokens)
 * is over 200,000 tokens is billed by Anthropic at the model's long-context
 * rates (https://platform.claude.com/docs/en/about-claude/pricing, "Long
 * context pricing": Sonnet 4 / 4.5 with the 1M context window, input $6,
 * output $22.50 per million, 2x and 1.5x the standard rates, the cache rates
 * with the same multipliers: $0.60 cache read, $7.50 5-minute and $12
 * 1-hour cache write). tester27a F6: a 250k-token prompt was priced at the
 * standard rates, silently ($0.117 for $0.2265). A model the table prices
 * without long-context rates gives such a response an unknown cost, said in a
 * note, never the standard rates.
 *
 * By hand (µ$ = millionths of a dollar; tokens x $/M):
 *   r1 claude-sonnet-4-5-20250929, 10,000 in, 240,000 cache read, 1,000 out (prompt 250,000 > 200k):
 *      10,000 x 6 + 240,000 x 0.6 + 1,000 x 22.5 = 60,000 + 144,000 + 22,500 = 226,500 µ$
 *   r2 the same model, 1,000 in, 200,000 cache write of which 100,000 to the 1-hour cache, 100 out (prompt 201,000):
 *      1,000 x 6 + 100,000 x 7.5 + 100,000 x 12 + 100 x 22.5 = 6,000 + 750,000 + 1,200,000 + 2,250 = 1,958,250 µ$
 *   r3 the same model, 200,000 in, 10 out (prompt exactly 200,000: not over, standard rates):
 *      200,000 x 3 + 10 x 15 = 600,000 + 150 = 600,150 µ$
 *   session L: $0.2265 + $1.95825 + $0.60015 = $2.7849
 *   session O: claude-opus-4-6 (priced, no long-context rates), 250,000 in, 1 out: cost unknown (null), 1 response noted.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { bundledPrices } from "../../src/domain/prices.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { usageBySession, usageReport } from "../../src/layers/index/queries.js"
import { Index } from "../../src/services/Index.js"
import { importOnce, indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"
import { cli } from "../support/run.js"

const L = "5a5a5a5a-1111-4222-8333-444444444444"
const O = "5b5b5b5b-1111-4222-8333-444444444444"
const CWD = "/home/dev/lc"

const assistant = (sid: string, n: number, model: string, usage: Record<string, unknown>) => ({
  type: "assistant", sessionId: sid, uuid: `a${n}`, parentUuid: "u0", timestamp: `2026-11-02T10:00:0${n}.000Z`, cwd: CWD, requestId: `req_${sid}_${n}`,
  message: { id: `msg_${sid}_${n}`, type: "message", role: "assistant", model, content: [{ type: "text", text: "x" }], usage }
})
const user = (sid: string) => ({ type: "user", sessionId: sid, uuid: "u0", parentUuid: null, timestamp: "2026-11-02T10:00:00.000Z", cwd: CWD, message: { role: "user", content: "big" } })

const corpus = () => {
  const dir = tempDir("si-long-context-")
  const root = path.join(dir, "projects")
  const folder = path.join(root, "-home-dev-lc")
  fs.mkdirSync(folder, { recursive: true })
  fs.mkdirSync(path.join(dir, "agents"), { recursive: true })
  const write = (sid: string, lines: ReadonlyArray<unknown>) => fs.writeFileSync(path.join(folder, `${sid}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  const S45 = "claude-sonnet-4-5-20250929"
  write(L, [
    user(L),
    assistant(L, 1, S45, { input_tokens: 10_000, cache_read_input_tokens: 240_000, cache_creation_input_tokens: 0, output_tokens: 1_000 }),
    assistant(L, 2, S45, {
      input_tokens: 1_000, cache_read_input_tokens: 0, cache_creation_input_tokens: 200_000,
      cache_creation: { ephemeral_5m_input_tokens: 100_000, ephemeral_1h_input_tokens: 100_000 }, output_tokens: 100
    }),
    assistant(L, 3, S45, { input_tokens: 200_000, output_tokens: 10 })
  ])
  write(O, [user(O), assistant(O, 1, "claude-opus-4-6", { input_tokens: 250_000, output_tokens: 1 })])
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root }
  return { dir, importAll: (index: string) => importOnce(policy, index, planFromPolicy(policy, { batchSize: 500 })) }
}

const usd = (x: number | null | undefined) => (x == null ? null : Math.round(x * 1e9) / 1e9)

describe.each(engines)("a response whose prompt is over 200k tokens ($engine)", ({ newIndex }) => {
  it.effect("is priced at its model's long-context rates; without them its cost is unknown and said", () =>
    Effect.gen(function*() {
      const c = corpus()
      const index = yield* newIndex(c.dir)
      yield* c.importAll(index)
      const got = yield* Effect.gen(function*() {
        const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
        const used = yield* usageBySession(bundledPrices)
        const uid = (sid: string) => sessions.find((s) => s.sessionId === sid)!.sessionUid
        const report = yield* usageReport({ by: "model" }, bundledPrices)
        return {
          L: [usd(used.get(uid(L))?.costUsd), used.get(uid(L))?.longContextUnpriced],
          O: [usd(used.get(uid(O))?.costUsd), used.get(uid(O))?.longContextUnpriced],
          byModel: report.rows.map((r) => [r.key, r.responses, usd(r.costUsd)]),
          total: usd(report.total.costUsd),
          notes: report.notes
        }
      }).pipe(Effect.provide(indexLayer(index)))
      expect(got).toEqual({
        L: [2.7849, undefined],
        O: [null, [{ model: "claude-opus-4-6", responses: 1 }]],
        byModel: [["claude-opus-4-6", 1, null], ["claude-sonnet-4-5-20250929", 3, 2.7849]],
        total: null,
        notes: [{ kind: "long-context-not-priced", model: "claude-opus-4-6", responses: 1 }]
      })
    }))
})

describe("a response whose prompt is over 200k tokens: the CLI", () => {
  it("usage and sessions price it at the long-context rates, and say which cost is unknown and why", () => {
    const c = corpus()
    const index = path.join(c.dir, "index.db")
    return Effect.runPromise(c.importAll(index)).then(() => {
      const u = cli(["usage", "--by", "session", "--index", index], { env: { NO_COLOR: "1" } })
      expect(u.code, u.stderr).toBe(0)
      expect(u.stdout).toContain("$2.7849")
      expect(u.stdout).toContain(
        "note: claude-opus-4-6: 1 response with a prompt over 200k tokens (input + cache read + cache write) and no long-context price in the price table: cost unknown, not priced at the standard rates"
      )
      const s = cli(["sessions", "--index", index], { env: { NO_COLOR: "1" } })
      expect(s.code, s.stderr).toBe(0)
      expect(s.stdout).toContain("? cost unknown: claude-opus-4-6 (1 response) with a prompt over 200k tokens and no long-context price in the price table")
    })
  })
})

describe("a response whose prompt is over 200k tokens: ATIF and show name the model (session 28)", () => {
  it("export --format atif and show carry the note usage gives", () => {
    const c = corpus()
    const index = path.join(c.dir, "index.db")
    const NOTE =
      "claude-opus-4-6: 1 response with a prompt over 200k tokens (input + cache read + cache write) and no long-context price in the price table: cost unknown, not priced at the standard rates"
    return Effect.runPromise(c.importAll(index)).then(() => {
      const a = cli(["export", O, "--format", "atif", "--index", index])
      expect(a.code, a.stderr).toBe(0)
      const t = JSON.parse(a.stdout)
      expect(t.final_metrics.total_cost_usd).toBeUndefined()
      expect(t.final_metrics.extra.long_context_unpriced_models).toEqual(["claude-opus-4-6"])
      expect(t.notes).toContain(NOTE.replace("claude-opus-4-6", "\"claude-opus-4-6\""))
      // the priced session has neither
      const l = JSON.parse(cli(["export", L, "--format", "atif", "--index", index]).stdout)
      expect(l.final_metrics.total_cost_usd).toBe(2.7849)
      expect(l.notes).toBeUndefined()
      expect(l.final_metrics.extra.long_context_unpriced_models).toBeUndefined()
      const s = cli(["show", O, "--format", "transcript", "--index", index], { env: { NO_COLOR: "1" } })
      expect(s.code, s.stderr).toBe(0)
      expect(s.stdout).toContain(`cost unknown · note: ${NOTE}`)
      const j = JSON.parse(cli(["show", O, "--format", "events", "--json", "--index", index]).stdout)
      expect(j.data.session.usage.longContextUnpriced).toEqual([{ model: "claude-opus-4-6", responses: 1 }])
    })
  })
})
