/**
 * Session 28 (tester28a F12): a response that reports no tokens costs 0 whatever its model (docs/usage-and-cost.md),
 * so it is no response "with tokens but no model" and leaves nothing unpriced. A session with one response without
 * a model that reports tokens (100 in, 10 out) and one `<synthetic>` response (no model kept) with 0 / 0 tokens
 * said "2 responses with tokens but no model": the count was the group's rows, not its rows with tokens. Now 1, on
 * both engines, in `usage` and `sessions`; an unknown model's zero-token response is not counted unpriced either.
 *
 * By hand: the session's tokens are 100 + 0 in, 10 + 0 out (+ the priced sonnet response: 100 in, 20 out); the
 * cost is unknown (`?`) because of the one response with tokens and no model; unpriced: (no model) 1 response.
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

const SID = "5c5c5c5c-1111-4222-8333-444444444444"
const CWD = "/home/dev/zt"

const assistant = (n: number, model: string | null, usage: Record<string, unknown>) => ({
  type: "assistant", sessionId: SID, uuid: `a${n}`, parentUuid: "u0", timestamp: `2026-11-03T10:00:0${n}.000Z`, cwd: CWD, requestId: `req_${n}`,
  message: { id: `msg_${n}`, type: "message", role: "assistant", ...(model === null ? {} : { model }), content: [{ type: "text", text: "x" }], usage }
})

const corpus = () => {
  const dir = tempDir("si-zero-token-")
  const root = path.join(dir, "projects")
  const folder = path.join(root, "-home-dev-zt")
  fs.mkdirSync(folder, { recursive: true })
  fs.mkdirSync(path.join(dir, "agents"), { recursive: true })
  const lines = [
    { type: "user", sessionId: SID, uuid: "u0", parentUuid: null, timestamp: "2026-11-03T10:00:00.000Z", cwd: CWD, message: { role: "user", content: "go" } },
    assistant(1, null, { input_tokens: 100, output_tokens: 10 }),
    assistant(2, "<synthetic>", { input_tokens: 0, output_tokens: 0 }),
    assistant(3, "claude-unknown-9", { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }),
    assistant(4, "claude-sonnet-4-5", { input_tokens: 100, output_tokens: 20 })
  ]
  fs.writeFileSync(path.join(folder, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: path.join(dir, "agents"), claudeRoot: root }
  return { dir, importAll: (index: string) => importOnce(policy, index, planFromPolicy(policy, { batchSize: 500 })) }
}

describe.each(engines)("a response with no tokens is never unpriced ($engine)", ({ newIndex }) => {
  it.effect("only the response with tokens and no model is counted unpriced", () =>
    Effect.gen(function*() {
      const c = corpus()
      const index = yield* newIndex(c.dir)
      yield* c.importAll(index)
      const got = yield* Effect.gen(function*() {
        const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
        const used = (yield* usageBySession(bundledPrices)).get(sessions[0].sessionUid)!
        const report = yield* usageReport({ by: "session" }, bundledPrices)
        return {
          session: [used.inputTokens, used.outputTokens, used.costUsd, used.unpriced],
          total: [report.total.costUsd, report.notes]
        }
      }).pipe(Effect.provide(indexLayer(index)))
      expect(got).toEqual({
        session: [200, 30, null, [{ model: null, responses: 1 }]],
        total: [null, [{ kind: "model-not-priced", model: null, responses: 1 }]]
      })
    }))
})

describe("a response with no tokens is never unpriced: the CLI", () => {
  it("usage and sessions say 1 response with tokens but no model", () => {
    const c = corpus()
    const index = path.join(c.dir, "index.db")
    return Effect.runPromise(c.importAll(index)).then(() => {
      const u = cli(["usage", "--by", "model", "--index", index], { env: { NO_COLOR: "1" } })
      expect(u.code, u.stderr).toBe(0)
      expect(u.stdout).toContain("note: (no model): 1 response with tokens but no model and no stated cost")
      expect(u.stdout).not.toContain("claude-unknown-9: ")
      const s = cli(["sessions", "--index", index], { env: { NO_COLOR: "1" } })
      expect(s.code, s.stderr).toBe(0)
      expect(s.stdout).toContain("? cost unknown: 1 response with tokens but no model")
    })
  })
})
