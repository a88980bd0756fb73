/**
 * Claude Code's `<synthetic>` assistant line (tester33b F4): a line Claude Code
 * writes itself for an API error (`"model": "<synthetic>"`, `isApiErrorMessage:
 * true`, usage all 0) is no model response (fixtures/claude-code/README.md
 * "assistant": "lines Claude Code makes itself (API errors); CCU ignores those
 * for pricing"). It gave `usage --by model` a `(no model)` row of zeros
 * (`--json`: `key: null, responses: 1`); now it is no usage row at all. A
 * `<synthetic>` line that states tokens keeps them under no model, as ccusage
 * does (`adapter/claude/mod.rs`: model `<synthetic>` read as none, its usage
 * still summed).
 *
 * The tester's shape (session `…0007`): a prompt, the `<synthetic>` line
 * (msg_SY / req_SY, 0 in, 0 out), then a claude-haiku-4-5 response (msg_SY2,
 * 100,000 in, 0 out): by hand $1 per million input tokens = $0.10, one response.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { bundledPrices } from "../../src/domain/prices.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { usageReport } from "../../src/layers/index/queries.js"
import { importOnce, indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"
import { cli } from "../support/run.js"

const SYN = "a1a1a1a1-0000-4000-8000-000000000007"
const WITH_TOKENS = "a1a1a1a1-0000-4000-8000-000000000008"
const CWD = "/home/tess/code/pricing"

const base = (sid: string) => ({ sessionId: sid, cwd: CWD, isSidechain: false, userType: "external", version: "2.0.76" })
const user = (sid: string, uuid: string, ts: string) => ({ ...base(sid), type: "user", uuid, parentUuid: null, timestamp: ts, message: { role: "user", content: "synthetic prompt" } })
const assistant = (sid: string, uuid: string, ts: string, id: string, model: string, i: number, o: number, apiError = false) => ({
  ...base(sid),
  type: "assistant",
  uuid,
  parentUuid: "u0",
  timestamp: ts,
  requestId: `req_${id}`,
  ...(apiError ? { isApiErrorMessage: true } : {}),
  message: {
    id, type: "message", role: "assistant", model, content: [{ type: "text", text: apiError ? "API Error: 529 overloaded" : "ok" }],
    usage: { input_tokens: i, output_tokens: o, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
  }
})

/** The tester's session; with `withTokens`, also a session whose `<synthetic>` line states 50 input tokens. */
const corpus = (withTokens: boolean) => {
  const dir = tempDir("si-synthetic-")
  const root = path.join(dir, "projects")
  const folder = path.join(root, "-home-tess-code-pricing")
  fs.mkdirSync(folder, { recursive: true })
  fs.mkdirSync(path.join(dir, "agents"), { recursive: true })
  const write = (sid: string, lines: ReadonlyArray<unknown>) =>
    fs.writeFileSync(path.join(folder, `${sid}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  write(SYN, [
    user(SYN, "u0", "2026-11-24T09:00:00.000Z"),
    assistant(SYN, "a1", "2026-11-24T09:00:01.000Z", "msg_SY", "<synthetic>", 0, 0, true),
    assistant(SYN, "a2", "2026-11-24T09:00:02.000Z", "msg_SY2", "claude-haiku-4-5", 100000, 0)
  ])
  if (withTokens) {
    write(WITH_TOKENS, [
      user(WITH_TOKENS, "u0", "2026-11-25T09:00:00.000Z"),
      assistant(WITH_TOKENS, "a1", "2026-11-25T09:00:01.000Z", "msg_SYT", "<synthetic>", 50, 0, true)
    ])
  }
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root }
  return { dir, importAll: (index: string) => importOnce(policy, index, planFromPolicy(policy, { batchSize: 500 })) }
}

const byModel = (index: string) =>
  Effect.map(usageReport({ by: "model" }, bundledPrices), (r) => ({
    rows: r.rows.map((row) => [row.key, row.responses, row.inputTokens, row.outputTokens, row.costUsd]),
    total: [r.total.responses, r.total.inputTokens, r.total.costUsd]
  })).pipe(Effect.provide(indexLayer(index)))

describe.each(engines)("a <synthetic> API-error line ($engine)", ({ newIndex }) => {
  it.effect("with no tokens: no response, no (no model) row; the haiku response alone, $0.10", () =>
    Effect.gen(function*() {
      const c = corpus(false)
      const index = yield* newIndex(c.dir)
      yield* c.importAll(index)
      expect(yield* byModel(index)).toEqual({ rows: [["claude-haiku-4-5", 1, 100000, 0, 0.1]], total: [1, 100000, 0.1] })
    }))

  it.effect("with tokens: counted under no model (ccusage's rule), cost unknown", () =>
    Effect.gen(function*() {
      const c = corpus(true)
      const index = yield* newIndex(c.dir)
      yield* c.importAll(index)
      const got = yield* byModel(index)
      expect(got.rows).toEqual([["claude-haiku-4-5", 1, 100000, 0, 0.1], [null, 1, 50, 0, null]])
      expect(got.total).toEqual([2, 100050, null])
    }))
})

describe("a <synthetic> API-error line: the CLI", () => {
  it("usage --by model prints no (no model) row (text and --json)", () => {
    const c = corpus(false)
    const index = path.join(c.dir, "index.db")
    return Effect.runPromise(c.importAll(index)).then(() => {
      const u = cli(["usage", "--by", "model", "--index", index], { env: { NO_COLOR: "1" } })
      expect(u.code, u.stderr).toBe(0)
      expect(u.stdout).toContain("claude-haiku-4-5")
      expect(u.stdout).not.toContain("(no model)")
      const j = cli(["usage", "--by", "model", "--index", index, "--json"], { env: { NO_COLOR: "1" } })
      expect(j.code, j.stderr).toBe(0)
      const data = JSON.parse(j.stdout).data
      expect(data.rows.map((r: { key: string | null; responses: number }) => [r.key, r.responses])).toEqual([["claude-haiku-4-5", 1]])
    })
  })
})
