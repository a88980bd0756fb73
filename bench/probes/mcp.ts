/**
 * Probe and floor of the MCP figure (issue 16): `node mcp.mjs BIN INDEX client|library`.
 *
 * - `client`: an MCP client (`@modelcontextprotocol/sdk`'s `Client` over
 *   stdio) launches `node BIN mcp --index INDEX` as MCP clients do. `coldMs`:
 *   from the spawn to the first tool answer (initialize, then one
 *   `list_sessions`). Then `CALLS` tool calls, cycling `list_sessions`
 *   (limit 20), `get_session` (first page, maxChars 4000) and `get_events`
 *   (20 events) over the listed sessions; `callMs` each, round trip. The
 *   server's peak RSS is read from `/proc/<pid>/status` (VmHWM) before
 *   closing.
 * - `library`: the same calls as direct library calls in this process (the
 *   answers of `src/layers/mcp/answers.ts` over the index opened read-only,
 *   redacted): the floor of a tool call, without protocol, process or pipe.
 *
 * Prints `{ms, maxRssKiB, coldMs?, callMs, serverPeakKiB?}`.
 */
import * as fs from "node:fs"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { getEvents, getSession, listSessions } from "../../src/layers/mcp/answers.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Redaction } from "../../src/services/Redaction.js"
import { report } from "../floors/report.js"

const t0 = performance.now()
const [bin, index, mode] = process.argv.slice(2)
if (bin === undefined || index === undefined || (mode !== "client" && mode !== "library")) {
  process.stderr.write("usage: mcp.mjs BIN INDEX client|library\n")
  process.exit(2)
}
const CALLS = 100

/** The i-th call of the cycle, over the sessions `uids`. */
const callOf = (i: number, uids: ReadonlyArray<string>): { name: string; arguments: Record<string, unknown> } => {
  const uid = uids[Math.floor(i / 3) % uids.length]
  switch (i % 3) {
    case 0:
      return { name: "list_sessions", arguments: { limit: 20 } }
    case 1:
      return { name: "get_session", arguments: { id: uid, maxChars: 4000 } }
    default:
      return { name: "get_events", arguments: { id: uid, limit: 20 } }
  }
}

const viaClient = async () => {
  const spawned = performance.now()
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "--index", index], stderr: "inherit", env: process.env as Record<string, string> })
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(transport)
  const first = await client.callTool({ name: "list_sessions", arguments: { limit: 200 } })
  const coldMs = performance.now() - spawned
  const uids = (first.structuredContent as { sessions: Array<{ uid: string }> }).sessions.map((s) => s.uid)
  const callMs: Array<number> = []
  for (let i = 0; i < CALLS; i++) {
    const s = performance.now()
    const r = await client.callTool(callOf(i, uids))
    callMs.push(performance.now() - s)
    if (r.isError === true) throw new Error(`tool call failed: ${JSON.stringify(r).slice(0, 300)}`)
  }
  let serverPeakKiB: number | null = null
  try {
    const status = fs.readFileSync(`/proc/${transport.pid}/status`, "utf8")
    serverPeakKiB = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN)
  } catch {
    serverPeakKiB = null
  }
  await client.close()
  report(t0, { coldMs, callMs, serverPeakKiB, sessions: uids.length })
}

const viaLibrary = async () => {
  const rt = ManagedRuntime.make(Layer.merge(IndexSqlite.layerReadonly(index), Redaction.layer))
  const uids = (await rt.runPromise(listSessions({ limit: 200 }))).sessions.map((s) => s.uid)
  const callMs: Array<number> = []
  for (let i = 0; i < CALLS; i++) {
    const c = callOf(i, uids)
    const s = performance.now()
    const answer = await rt.runPromise(
      c.name === "list_sessions"
        ? listSessions(c.arguments as any)
        : c.name === "get_session"
        ? getSession(c.arguments as any)
        : getEvents(c.arguments as any) as Effect.Effect<unknown, unknown, never>
    )
    // What the server does with an answer besides: JSON text.
    JSON.stringify(answer)
    callMs.push(performance.now() - s)
  }
  await rt.dispose()
  report(t0, { callMs, sessions: uids.length })
}

;(mode === "client" ? viaClient() : viaLibrary()).catch((e) => {
  process.stderr.write(`mcp probe failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
  process.exit(1)
})
