/**
 * Probe of the MCP server's first redacted search of a big session (session 30, perf30), in process:
 * - `node mcp-secrets.mjs build FILE EVENTS`: one session of EVENTS events (`../generate/search-corpus.ts`'s events
 *   of session 0, with a secret planted every 1,000th event in turn as a tool input under a secret-named key, an
 *   assignment in a command, a vendor token in a message, a bare-printing command and its output, and a restatement
 *   of an earlier one) written into a fresh SQLite index through `Index.commitBatch` (1,000 events a batch).
 * - `node mcp-secrets.mjs search FILE QUERY [ROUNDS]`: ROUNDS times (default 1), a fresh redacted
 *   runtime (the default rules; `Redaction.layer`) over the index opened read-only, one warm-up `list_sessions`,
 *   then one `search_sessions` of QUERY, its first on that session (the session's secrets gathered whole):
 *   the wall and processor time of that call (`process.cpuUsage`, every thread of the process), and a digest of the
 *   answer (to check two builds give the same bytes).
 *
 * Prints `{ms, maxRssKiB, ...}` (`../floors/report.ts`).
 */
import * as crypto from "node:crypto"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { listSessions, searchSessions } from "../../src/layers/mcp/answers.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { Redaction } from "../../src/services/Redaction.js"
import { report } from "../floors/report.js"
import { corpusEvent, titleOf } from "../generate/search-corpus.js"

const t0 = performance.now()
const [mode, file, arg, roundsArg] = process.argv.slice(2)

/** The secret planted in event `j` (every 1,000th), in one of its shapes in turn. */
const planted = (j: number): SessionEvent => {
  const e = corpusEvent(0, j)
  const k = j / 1000
  const tail = `${(k * 7919).toString(36)}Q${(k * 104729).toString(36)}z9`
  switch (k % 6) {
    case 0:
      return { ...e, kind: "tool-call", role: "assistant", toolName: "Bash", toolCallId: `t${j}`, text: null, toolInput: { command: "deploy", env: { API_TOKEN: `tok-${tail}-k3y` } } }
    case 1:
      return { ...e, kind: "tool-call", role: "assistant", toolName: "Bash", toolCallId: `t${j}`, text: null, toolInput: { command: `export DB_PASSWORD=pw${tail}x7 && npm run migrate` } }
    case 2:
      return { ...e, kind: "message", role: "assistant", toolName: null, toolCallId: null, toolInput: null, text: `use ghp_${tail.padEnd(36, "a").slice(0, 36)} for the push` }
    case 3:
      return { ...e, kind: "tool-call", role: "assistant", toolName: "Bash", toolCallId: `t${j}`, text: null, toolInput: { command: "doppler secrets get STRIPE_KEY --plain" } }
    case 4:
      return { ...e, kind: "tool-result", role: "user", toolName: "Bash", toolCallId: `t${j - 1000}`, text: `sk${tail}printedX`, toolInput: null, isError: false }
    default:
      return { ...e, kind: "message", role: "assistant", toolName: null, toolCallId: null, toolInput: null, text: `the token tok-${(((k - 5) * 7919).toString(36))}Q${((k - 5) * 104729).toString(36)}z9-k3y worked` }
  }
}

const build = async (total: number) => {
  const program = Effect.gen(function*() {
    const index = yield* Index
    const source: SourceInfo = {
      sourceKey: "bench-big",
      provider: "muse-agents",
      locator: { locatorClass: "muse-agent-transcript", path: "/bench/big.jsonl" },
      summary: {},
      overview: { ...emptySourceSummary("bench-session-0"), title: titleOf(0), workspace: "/work/project-0" }
    }
    yield* index.beginGeneration(source, 1, "bench")
    for (let from = 0; from < total; from += 1000) {
      const events = Array.from({ length: Math.min(1000, total - from) }, (_, i) => {
        const j = from + i
        return j > 0 && j % 1000 === 0 ? planted(j) : corpusEvent(0, j)
      })
      yield* index.commitBatch({ source, generation: 1, events }, () => Effect.void)
    }
    yield* index.completeSource(source, null)
  })
  await Effect.runPromise(Effect.provide(program, IndexSqlite.layer(file)))
  report(t0, { events: total })
}

const search = async (query: string, rounds: number) => {
  const samples: Array<{ wallMs: number; cpuMs: number; againCpuMs: number; hits: number; digest: string }> = []
  for (let i = 0; i < rounds; i++) {
    const rt = ManagedRuntime.make(Layer.merge(IndexSqlite.layerReadonly(file), Redaction.layer))
    await rt.runPromise(listSessions({ limit: 5 }))
    const c0 = process.cpuUsage()
    const w0 = performance.now()
    const answer = await rt.runPromise(searchSessions({ query }))
    const wallMs = performance.now() - w0
    const c = process.cpuUsage(c0)
    // the same search again: the session's secrets kept (what the first call paid beyond it is their gathering)
    const c1 = process.cpuUsage()
    await rt.runPromise(searchSessions({ query }))
    const again = process.cpuUsage(c1)
    // keyed by this process's shown-id key (the uid, the shown cursor): left out of the digest, which two builds must then share
    const text = JSON.stringify(answer.hits.map(({ sessionUid: _u, cursor: _c, ...h }) => h))
    samples.push({
      wallMs,
      cpuMs: (c.user + c.system) / 1000,
      againCpuMs: (again.user + again.system) / 1000,
      hits: answer.hits.length,
      digest: crypto.createHash("sha256").update(text).digest("hex").slice(0, 16)
    })
    await rt.dispose()
  }
  report(t0, { samples })
}

if (mode === "build" && file !== undefined) await build(Number(arg))
else if (mode === "search" && file !== undefined && arg !== undefined) await search(arg, Number(roundsArg ?? 1))
else {
  process.stderr.write("usage: mcp-secrets.mjs build FILE EVENTS | search FILE QUERY [ROUNDS]\n")
  process.exit(2)
}
