/**
 * Processor time of the SQLite index's session prefix lookup (`Index.findSessionsByPrefix`, what `show <prefix>` and
 * MCP `get_session` ask when no session has the id exactly), session 36: compared as bytes (a BLOB) so that a prefix
 * holding U+0000 is matched whole. Usage:
 *   npx tsx bench/ab-prefix-lookup36.ts CHECKOUT [SESSIONS]
 * builds an index of SESSIONS (default 5000) one-event Muse agents sessions in a temp folder with CHECKOUT's src, then
 * prints the median processor time (user + system) of 5 runs of 200 lookups (a uid prefix, a native prefix, one that
 * matches nothing), and the rows found (the same on both checkouts). Run it on two checkouts to compare.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"

const checkout = path.resolve(process.argv[2] ?? ".")
const n = Number(process.argv[3] ?? "5000")
const { layer } = await import(path.join(checkout, "src/layers/index/sqlite.ts"))
const { Index } = await import(path.join(checkout, "src/services/Index.ts"))
const { emptySourceSummary, CONTRACT_VERSION } = await import(path.join(checkout, "src/domain/model.ts"))

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "si-bench-prefix36-"))
try {
  const program = Effect.gen(function*() {
    const index: any = yield* Index
    for (let i = 0; i < n; i++) {
      const sid = `sess-${String(i).padStart(6, "0")}-${(i * 2654435761 % 4294967296).toString(16)}`
      const source = {
        sourceKey: `src-${i}`, provider: "muse-agents", locator: { locatorClass: "muse-agent-transcript", path: `/x/${i}` },
        summary: {}, overview: { ...emptySourceSummary(), title: "t", workspace: "/w" }
      }
      const event = {
        contractVersion: CONTRACT_VERSION, provider: "muse-agents", sourceId: `sha256:${sid}`, sessionId: sid, eventId: "line-1",
        sequence: 1, kind: "message", role: "user", toolName: null, toolCallId: null, model: null,
        occurredAt: `2026-03-01T10:00:${String(i % 60).padStart(2, "0")}.000Z`, text: "hello", cursor: "c1",
        rawReference: { locatorClass: "muse-agent-transcript", sequence: 1 }, extensions: { "native.muse-agents": {} },
        toolInput: null, isError: null, compaction: null, parent: null, child: null
      }
      yield* index.beginGeneration(source, 1, "bench")
      yield* index.commitBatch({ source, generation: 1, events: [event] }, () => Effect.void)
      yield* index.completeSource(source, null)
    }
    const some = (yield* index.sessions({})) as ReadonlyArray<{ sessionUid: string }>
    const prefixes = [some[Math.floor(some.length / 2)].sessionUid.slice(0, 12), "sess-002500", "zzz-nothing"]
    const runs: Array<number> = []
    let rows = 0
    for (let r = 0; r < 5; r++) {
      const t = process.cpuUsage()
      rows = 0
      for (let k = 0; k < 200; k++) rows += (yield* index.findSessionsByPrefix(prefixes[k % 3], 1000)).length
      const d = process.cpuUsage(t)
      runs.push((d.user + d.system) / 1000)
    }
    runs.sort((a, b) => a - b)
    return { sessions: n, lookups: 200, medianCpuMs: Math.round(runs[2]), runs: runs.map(Math.round), rows }
  })
  console.log(JSON.stringify(await Effect.runPromise(Effect.provide(program, layer(path.join(dir, "index.db"))) as any)))
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
