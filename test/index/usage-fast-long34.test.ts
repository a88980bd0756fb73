/**
 * A fast-mode response whose prompt is over 200k tokens. Sessions 33-36 left its cost unknown (tester33c F7: no table
 * then gave fast-mode rates for such a prompt). Anthropic's fast-mode page now says fast mode "is priced at a
 * multiplier on standard rates across the full context window, including requests over 200k input tokens"
 * (https://platform.claude.com/docs/en/build-with-claude/fast-mode; docs/usage-and-cost.md "Fast mode"), so since
 * session 37 it is priced at its model's `fast` rates, never at the long-context or standard ones.
 *
 * The response: claude-opus-4-6 (fast rates in the table: input $30, cache read $3, output $150 per million), input
 * 1,000 + cache read 250,000 = a 251,000-token prompt, output 100, `speed: "fast"`:
 * 1,000 x 30/M + 250,000 x 3/M + 100 x 150/M = $0.03 + $0.75 + $0.015 = $0.795. A standard response of 100 input and
 * 10 output tokens in the same session: 100 x 5/M + 10 x 25/M = $0.00075. The session: $0.79575, with or without a
 * config that gives the model `longContext` (the fast rates come first). A config whose `fast` rates are
 * $60 / $225 (cache read $6) prices the fast response at 0.06 + 1.5 + 0.0225 = $1.5825: $1.58325 in all.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent, TokenUsage } from "../../src/domain/model.js"
import { bundledPrices } from "../../src/domain/prices.js"
import { usageSummary } from "../../src/domain/usage.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { mk } from "../support/events.js"
import { importOnce } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const SID = "34343434-1111-4222-8333-444444444444"
const CWD = "/home/dev/fastlong"
const LONG = { input_tokens: 1_000, cache_read_input_tokens: 250_000, output_tokens: 100, speed: "fast" }

const assistant = (n: number, usage: Record<string, unknown>) => ({
  type: "assistant", sessionId: SID, uuid: `a${n}`, parentUuid: "u0", timestamp: `2026-11-02T10:00:0${n}.000Z`, cwd: CWD, requestId: `req_${n}`,
  message: { id: `msg_${n}`, type: "message", role: "assistant", model: "claude-opus-4-6", content: [{ type: "text", text: "x" }], usage }
})

const corpus = () => {
  const dir = tempDir("si-fastlong-")
  const root = path.join(dir, "projects")
  const folder = path.join(root, "-home-dev-fastlong")
  fs.mkdirSync(folder, { recursive: true })
  fs.mkdirSync(path.join(dir, "agents"), { recursive: true })
  const lines = [
    { type: "user", sessionId: SID, uuid: "u0", parentUuid: null, timestamp: "2026-11-02T10:00:00.000Z", cwd: CWD, message: { role: "user", content: "go" } },
    assistant(1, LONG),
    assistant(2, { input_tokens: 100, output_tokens: 10 })
  ]
  fs.writeFileSync(path.join(folder, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  // The config gives claude-opus-4-6 both long-context and fast rates (tester33c's cfg2.json).
  const config = path.join(dir, "config.json")
  fs.writeFileSync(config, JSON.stringify({
    prices: {
      "claude-opus-4-6": {
        input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, cacheWrite1h: 10,
        longContext: { input: 10, output: 37.5, cacheRead: 1, cacheWrite: 12.5, cacheWrite1h: 20 },
        fast: { input: 30, output: 150, cacheRead: 3, cacheWrite: 37.5, cacheWrite1h: 60 }
      }
    }
  }))
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root }
  return { dir, config, importAll: (index: string) => importOnce(policy, index, planFromPolicy(policy, { batchSize: 500 })) }
}

const BUNDLED = 0.795 + 0.00075
const OVER = 0.06 + 1.5 + 0.0225 + 0.00075

describe("a fast-mode response whose prompt is over 200k tokens (session 37: the fast rates, full context window)", () => {
  it("is priced at the model's fast rates: no unknown cost, no note", () => {
    const ev = mk("claude-code", "s-fast-long")
    const usage: TokenUsage = { inputTokens: 1_000, outputTokens: 100, cacheReadTokens: 250_000, cacheWriteTokens: 0, cacheWrite1hTokens: null, speed: "fast" }
    const events: Array<SessionEvent> = [ev("message", { responseId: "fl:1", model: "claude-opus-4-6", usage })]
    const s = usageSummary(events, bundledPrices)!
    expect(s.costUsd).toBeCloseTo(0.795, 12)
    expect(s.longContextUnpriced).toBeUndefined()
    expect(s.fastUnpriced).toBeUndefined()
  })

  it("usage (text and --json) and sessions give the cost, with the bundled table, a config giving longContext, and other fast rates", () => {
    const c = corpus()
    const index = path.join(c.dir, "index.db")
    const other = path.join(c.dir, "other.json")
    fs.writeFileSync(other, JSON.stringify({
      prices: { "claude-opus-4-6": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, fast: { input: 60, output: 225, cacheRead: 6, cacheWrite: 75 } } }
    }))
    return Effect.runPromise(c.importAll(index)).then(() => {
      for (const [config, cost] of [[[], BUNDLED], [["--config", c.config], BUNDLED], [["--config", other], OVER]] as const) {
        const j = cli(["usage", "--by", "model", "--json", "--index", index, ...config])
        expect(j.code, j.stderr).toBe(0)
        const data = JSON.parse(j.stdout).data
        expect(data.rows.map((r: { key: string; responses: number }) => [r.key, r.responses])).toEqual([["claude-opus-4-6", 2]])
        expect(data.rows[0].costUsd).toBeCloseTo(cost, 12)
        expect(data.notes).toEqual([])
        const t = cli(["usage", "--by", "model", "--index", index, ...config], { env: { NO_COLOR: "1" } })
        expect(t.code, t.stderr).toBe(0)
        expect(t.stdout).not.toContain("cost unknown")
        expect(t.stdout).not.toContain("note:")
        const st = cli(["sessions", "--index", index, ...config], { env: { NO_COLOR: "1" } })
        expect(st.code, st.stderr).toBe(0)
        expect(st.stdout).not.toContain("? cost unknown")
        expect(st.stdout).toContain(cost === BUNDLED ? "$0.7958" : "$1.583")
      }
    })
  })
})
