/**
 * The per-session split of a Claude Code response copied into a resumed
 * session (tester report after session 10). Resuming writes a new log that
 * repeats the earlier conversation's lines (`message.id` + `requestId` and
 * usage kept, their own timestamps). The response counts once, in the session
 * where it was seen first: ccusage's rule (`createUniqueHash` = message id +
 * request id, files read oldest first by their earliest timestamp, the first
 * line of a hash counts), docs/providers.md "claude-code ... counts once, in the session
 * where it was seen first". The session resumed began first, so it keeps the
 * response's tokens and cost, even when the copy holds only the response's
 * first streamed line (a time earlier than the original's last line, which
 * is the original row's time); the copy counts 0.
 * Checked on SQLite with the usage table and with an index from before it
 * (rows derived from stored events): both orders agree.
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

const ORIGINAL = "1a1a1a1a-0000-4000-8000-00000000001a"
const RESUMING = "2b2b2b2b-0000-4000-8000-00000000002b"
const MODEL = "claude-sonnet-4-5-20250929"
const usage = { input_tokens: 10, output_tokens: 500, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 }
const base = (sid: string) => ({ sessionId: sid, cwd: "/w", isSidechain: false, userType: "external", version: "2.0.76" })
const prompt = (sid: string, uuid: string, ts: string, text: string) =>
  ({ ...base(sid), type: "user", uuid, parentUuid: null, timestamp: ts, message: { role: "user", content: text } })
/** One streamed line of response `id` / `req`: a content block and the response's usage. */
const part = (sid: string, uuid: string, ts: string, id: string, req: string, block: unknown, u: unknown) =>
  ({ ...base(sid), type: "assistant", uuid, parentUuid: null, timestamp: ts, requestId: req, message: { id, role: "assistant", model: MODEL, content: [block], usage: u } })

const setup = () => {
  const dir = tempDir("si-usage-resumed-")
  const root = nodePath.join(dir, "projects")
  const folder = nodePath.join(root, "-w")
  fs.mkdirSync(folder, { recursive: true })
  fs.mkdirSync(nodePath.join(dir, "agents"), { recursive: true })
  const write = (sid: string, rows: ReadonlyArray<unknown>) =>
    fs.writeFileSync(nodePath.join(folder, `${sid}.jsonl`), rows.map((r) => JSON.stringify(r) + "\n").join(""))
  // The original: a prompt, then response m1 streamed over three lines (10:00:01 to 10:00:09).
  write(ORIGINAL, [
    prompt(ORIGINAL, "u1", "2026-04-01T10:00:00.000Z", "explain the parser"),
    part(ORIGINAL, "a1", "2026-04-01T10:00:01.000Z", "msg_m1", "req_r1", { type: "thinking", thinking: "hmm", signature: "s" }, usage),
    part(ORIGINAL, "a2", "2026-04-01T10:00:05.000Z", "msg_m1", "req_r1", { type: "text", text: "it reads lines" }, usage),
    part(ORIGINAL, "a3", "2026-04-01T10:00:09.000Z", "msg_m1", "req_r1", { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "/w/p.ts" } }, usage)
  ])
  // Resumed a day later: the new log repeats the prompt and the response's first line (same ids, usage and times), then a new response.
  write(RESUMING, [
    prompt(RESUMING, "u1", "2026-04-01T10:00:00.000Z", "explain the parser"),
    part(RESUMING, "a1", "2026-04-01T10:00:01.000Z", "msg_m1", "req_r1", { type: "thinking", thinking: "hmm", signature: "s" }, usage),
    prompt(RESUMING, "u2", "2026-04-02T09:00:00.000Z", "and the writer?"),
    part(RESUMING, "b1", "2026-04-02T09:00:02.000Z", "msg_m2", "req_r2", { type: "text", text: "it writes" }, { input_tokens: 7, output_tokens: 70, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })
  ])
  return { dir, policy: { workspaceRoots: [dir], museRoots: [], agentsRoot: nodePath.join(dir, "agents"), claudeRoot: root } }
}

const tokens = (u: UsageSummary | null | undefined) => u == null ? null : [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.responses]
const bySessionId = (index: string) =>
  Effect.gen(function*() {
    const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
    const byUid = yield* usageBySession(bundledPrices)
    const total = yield* usageReport({ by: "provider" }, bundledPrices)
    return { split: new Map(sessions.map((s) => [s.sessionId, byUid.get(s.sessionUid) ?? null] as const)), total: total.total! }
  }).pipe(Effect.provide(indexLayer(index)))

describe("usage: a response copied into a resumed session", () => {
  it.effect("counts in the session resumed (seen first), 0 in the copy; the total once", () =>
    Effect.gen(function*() {
      const c = setup()
      const index = nodePath.join(c.dir, "idx.db")
      yield* importOnce(c.policy, index, planFromPolicy(c.policy, { batchSize: 500 }))
      const check = (r: { split: Map<string, UsageSummary | null>; total: { inputTokens: number | null; outputTokens: number | null; responses: number } }) => {
        expect(tokens(r.split.get(ORIGINAL))).toEqual([10, 500, 2000, 300, 1])
        expect(tokens(r.split.get(RESUMING))).toEqual([7, 70, 0, 0, 1])
        expect([r.total.inputTokens, r.total.outputTokens, r.total.responses]).toEqual([17, 570, 2])
      }
      check(yield* bySessionId(index))
      // an index from before the usage table: the rows derived from the stored events, the same split
      yield* toLegacyLayout(index)
      const db = new Database(index)
      db.exec("DROP TABLE usage")
      db.prepare("DELETE FROM si_migrations WHERE migration_id = 5").run()
      db.close()
      check(yield* bySessionId(index))
    }))
})
