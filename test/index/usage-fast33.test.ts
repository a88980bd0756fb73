/**
 * A Claude response that ran in fast mode (`usage.speed: "fast"`, Claude Code
 * 2.1.36's `/fast`) is billed "at a multiplier on standard rates"
 * (https://platform.claude.com/docs/en/build-with-claude/fast-mode), prompt
 * caching's multipliers on top; Claude Code's fast mode page
 * (https://code.claude.com/docs/en/fast-mode): "$10/$50 MTok on Opus 4.8 and
 * $30/$150 MTok on Opus 4.7 and Opus 4.6". tester33b F1: such a response was
 * priced at the standard rates, silently ($0.75 for $4.50), and its `speed`
 * was dropped at import. A model the table prices without fast-mode rates
 * gives it an unknown cost, said in a note, never the standard rates.
 *
 * By hand (µ$ = millionths of a dollar; tokens x $/M):
 *   F1 claude-opus-4-6 fast, 100,000 in, 10,000 out: 100,000 x 30 + 10,000 x 150 = 3,000,000 + 1,500,000 = 4,500,000 µ$
 *      (at the standard $5 / $25: 750,000 µ$, what was printed)
 *   F2 claude-opus-4-8 fast, 1,000 in, 20,000 cache read, 4,000 cache write of which 1,000 1-hour, 500 out; fast rates
 *      $10 in, $50 out, cache read 0.1x = $1, 5-minute write 1.25x = $12.50, 1-hour write 2x = $20:
 *      1,000 x 10 + 20,000 x 1 + 3,000 x 12.5 + 1,000 x 20 + 500 x 50 = 10,000 + 20,000 + 37,500 + 20,000 + 25,000 = 112,500 µ$
 *   session F: $4.50 + $0.1125 = $4.6125
 *   session N: claude-opus-5 fast (no official fast-mode rate found: none in the table), 1,000 in, 100 out: unknown
 *   session S: claude-opus-4-6, speed "standard" and speed absent, each 100,000 in, 10,000 out at $5 / $25:
 *      2 x (500,000 + 250,000) = 1,500,000 µ$ = $1.50 (unchanged)
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

const F = "3f3f3f3f-1111-4222-8333-444444444444"
const N = "3e3e3e3e-1111-4222-8333-444444444444"
const S = "3d3d3d3d-1111-4222-8333-444444444444"
const CWD = "/home/dev/fast"

const assistant = (sid: string, n: number, model: string, usage: Record<string, unknown>) => ({
  type: "assistant", sessionId: sid, uuid: `a${n}`, parentUuid: "u0", timestamp: `2026-11-02T10:00:0${n}.000Z`, cwd: CWD, requestId: `req_${sid}_${n}`,
  message: { id: `msg_${sid}_${n}`, type: "message", role: "assistant", model, content: [{ type: "text", text: "x" }], usage }
})
const user = (sid: string) => ({ type: "user", sessionId: sid, uuid: "u0", parentUuid: null, timestamp: "2026-11-02T10:00:00.000Z", cwd: CWD, message: { role: "user", content: "go" } })

const corpus = () => {
  const dir = tempDir("si-fast-")
  const root = path.join(dir, "projects")
  const folder = path.join(root, "-home-dev-fast")
  fs.mkdirSync(folder, { recursive: true })
  fs.mkdirSync(path.join(dir, "agents"), { recursive: true })
  const write = (sid: string, lines: ReadonlyArray<unknown>) => fs.writeFileSync(path.join(folder, `${sid}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  write(F, [
    user(F),
    assistant(F, 1, "claude-opus-4-6", { input_tokens: 100_000, output_tokens: 10_000, speed: "fast" }),
    assistant(F, 2, "claude-opus-4-8", {
      input_tokens: 1_000, cache_read_input_tokens: 20_000, cache_creation_input_tokens: 4_000,
      cache_creation: { ephemeral_5m_input_tokens: 3_000, ephemeral_1h_input_tokens: 1_000 }, output_tokens: 500, speed: "fast"
    })
  ])
  write(N, [user(N), assistant(N, 1, "claude-opus-5", { input_tokens: 1_000, output_tokens: 100, speed: "fast" })])
  write(S, [
    user(S),
    assistant(S, 1, "claude-opus-4-6", { input_tokens: 100_000, output_tokens: 10_000, speed: "standard" }),
    assistant(S, 2, "claude-opus-4-6", { input_tokens: 100_000, output_tokens: 10_000 })
  ])
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root }
  return { dir, importAll: (index: string) => importOnce(policy, index, planFromPolicy(policy, { batchSize: 500 })) }
}

const usd = (x: number | null | undefined) => (x == null ? null : Math.round(x * 1e9) / 1e9)

describe.each(engines)("a response that ran in fast mode ($engine)", ({ newIndex }) => {
  it.effect("is priced at its model's fast-mode rates; without them its cost is unknown and said", () =>
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
          F: [usd(used.get(uid(F))?.costUsd), used.get(uid(F))?.fastUnpriced],
          N: [usd(used.get(uid(N))?.costUsd), used.get(uid(N))?.fastUnpriced],
          S: [usd(used.get(uid(S))?.costUsd), used.get(uid(S))?.fastUnpriced],
          byModel: report.rows.map((r) => [r.key, r.responses, usd(r.costUsd), r.fastUnpriced]),
          total: usd(report.total.costUsd),
          notes: report.notes
        }
      }).pipe(Effect.provide(indexLayer(index)))
      expect(got).toEqual({
        F: [4.6125, undefined],
        N: [null, [{ model: "claude-opus-5", responses: 1 }]],
        S: [1.5, undefined],
        byModel: [
          ["claude-opus-4-6", 3, 6, undefined],
          ["claude-opus-4-8", 1, 0.1125, undefined],
          ["claude-opus-5", 1, null, [{ model: "claude-opus-5", responses: 1 }]]
        ],
        total: null,
        notes: [{ kind: "fast-not-priced", model: "claude-opus-5", responses: 1 }]
      })
    }))
})

describe("a response that ran in fast mode: the CLI (tester33b F1)", () => {
  it("usage --json, sessions, show and ATIF final_metrics agree on the fast-mode price and name what is unknown", () => {
    const c = corpus()
    const index = path.join(c.dir, "index.db")
    const NOTE =
      "claude-opus-5: 1 response in fast mode (usage speed \"fast\") and no fast-mode price in the price table: cost unknown, not priced at the standard rates"
    return Effect.runPromise(c.importAll(index)).then(() => {
      const u = cli(["usage", "--by", "session", "--json", "--index", index])
      expect(u.code, u.stderr).toBe(0)
      const rows = JSON.parse(u.stdout).data.rows as Array<{ key: string; costUsd: number | null; fastUnpriced?: unknown }>
      const row = (sid: string) => rows.find((r) => r.key === sid)!
      expect([usd(row(F).costUsd), usd(row(N).costUsd), usd(row(S).costUsd)]).toEqual([4.6125, null, 1.5])
      expect(row(N).fastUnpriced).toEqual([{ model: "claude-opus-5", responses: 1 }])
      expect(JSON.parse(u.stdout).data.notes).toEqual([{ kind: "fast-not-priced", model: "claude-opus-5", responses: 1 }])
      const t = cli(["usage", "--index", index], { env: { NO_COLOR: "1" } })
      expect(t.stdout).toContain(`note: ${NOTE}`)
      const s = cli(["sessions", "--json", "--index", index])
      expect(s.code, s.stderr).toBe(0)
      const listed = JSON.parse(s.stdout).data.sessions ?? JSON.parse(s.stdout).data
      const cost = (sid: string) => usd((listed as Array<{ sessionId: string; usage: { costUsd: number | null } }>).find((x) => x.sessionId === sid)!.usage.costUsd)
      expect([cost(F), cost(N), cost(S)]).toEqual([4.6125, null, 1.5])
      const st = cli(["sessions", "--index", index], { env: { NO_COLOR: "1" } })
      expect(st.stdout).toContain("? cost unknown: claude-opus-5 (1 response) in fast mode (usage speed \"fast\") and no fast-mode price in the price table")
      const a = JSON.parse(cli(["export", F, "--format", "atif", "--index", index]).stdout)
      expect(a.final_metrics.total_cost_usd).toBe(4.6125)
      const an = JSON.parse(cli(["export", N, "--format", "atif", "--index", index]).stdout)
      expect(an.final_metrics.total_cost_usd).toBeUndefined()
      expect(an.final_metrics.extra.fast_unpriced_models).toEqual(["claude-opus-5"])
      expect(an.notes).toContain(NOTE.replace("claude-opus-5:", "\"claude-opus-5\":"))
      const j = JSON.parse(cli(["show", N, "--format", "events", "--json", "--index", index]).stdout)
      expect(j.data.session.usage.fastUnpriced).toEqual([{ model: "claude-opus-5", responses: 1 }])
      // the speed is kept on the event's usage (and in the native record), so it can be priced again
      const fe = JSON.parse(cli(["show", F, "--format", "events", "--json", "--index", index]).stdout).data.events as Array<{ usage: { speed?: string } | null }>
      expect(fe.filter((e) => e.usage !== null).map((e) => e.usage!.speed)).toEqual(["fast", "fast"])
      const sh = cli(["show", N, "--format", "transcript", "--index", index], { env: { NO_COLOR: "1" } })
      expect(sh.stdout).toContain(`cost unknown · note: ${NOTE}`)
    })
  })
})
