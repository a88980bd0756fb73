/**
 * claude-code: nothing a session log holds vanishes without a trace
 * (tester10 findings 4 and 6; docs/providers.md "Claude Code: nothing dropped without a trace": content blocks,
 * compaction summaries, attachments, queued prompts).
 * - content blocks known to the Messages API but not `text`/`tool_use`/…:
 *   `server_tool_use` and `mcp_tool_use` are tool calls (name, id, input),
 *   `web_search_tool_result` / `mcp_tool_result` (any `*_tool_result` with a
 *   `tool_use_id`) are tool results, a `document` block's text (or title) is
 *   content;
 * - anything still not understood (a block of an unknown `type`, a content
 *   that is a number, an object, `null`, an array of non-blocks, a `text`
 *   block without text) is kept as a `meta` event whose native `block` is the
 *   raw value, and counted as the parse warning `unknown-block`;
 * - the compaction summary (`isCompactSummary`), `attachment` records and a
 *   `queue-operation` holding a prompt are `meta` events, searchable;
 * - a session whose responses all carry a usage not valid is still listed;
 * - a timestamp that is not valid is counted (`timestamp-not-valid`), its
 *   event kept with `occurredAt: null`;
 * - a malformed `agent-<id>.meta.json` is reported; its subagent's events are kept.
 * Expected values are worked out from the inputs written here.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent } from "../../src/domain/model.js"
import { cli } from "../support/run.js"
import { collect, nat, tempDir, withAdapter } from "./helpers.js"

const PROJECT = "-x"
const loc = (file: string) => ({ locatorClass: "claude-code-session-log" as const, path: file })
const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

const write = (root: string, sid: string, rows: ReadonlyArray<unknown>): string => {
  const file = nodePath.join(root, PROJECT, `${sid}.jsonl`)
  fs.mkdirSync(nodePath.dirname(file), { recursive: true })
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r) + "\n").join(""))
  return file
}
const warningsOf = (summary: Record<string, unknown>) =>
  Object.fromEntries((summary.parseWarnings as Array<{ kind: string; count: number; firstLine: number | null }>).map((w) => [w.kind, [w.count, w.firstLine]]))
const textOfAll = (events: ReadonlyArray<SessionEvent>) => events.map((e) => e.text ?? "").join("\n")

const BLOCKS_SID = "cdcdcdcd-cdcd-4dcd-8dcd-cdcdcdcdcdcd"
const assistant = (i: number, block: unknown) => ({
  type: "assistant",
  sessionId: BLOCKS_SID,
  uuid: `a${i}`,
  cwd: "/x",
  timestamp: `2026-05-02T00:00:0${i}Z`,
  requestId: `r${i}`,
  message: { id: `m${i}`, role: "assistant", model: "claude-sonnet-4-5-20250929", content: [block], usage: { input_tokens: 5, output_tokens: 5 } }
})
/** Line 1: a user document + text; lines 2-6: one assistant block each; line 7: a user mcp_tool_result; line 8: a document with a base64 PDF and a title. */
const blockRows = [
  {
    type: "user", sessionId: BLOCKS_SID, uuid: "u0", cwd: "/x", timestamp: "2026-05-02T00:00:00Z",
    message: { role: "user", content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "documentwordtheta" } }, { type: "text", text: "see doc" }] }
  },
  assistant(1, { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "serverquerywordzeta" } }),
  assistant(2, {
    type: "web_search_tool_result",
    tool_use_id: "srvtoolu_1",
    content: [{ type: "web_search_result", title: "resulttitleword", url: "https://example.com/r", encrypted_content: "QUJD" }]
  }),
  assistant(3, { type: "mcp_tool_use", id: "mcptoolu_1", name: "fetch", server_name: "srv", input: { url: "https://x.test/mcpinputword" } }),
  assistant(4, { type: "web_search_tool_result", tool_use_id: "srvtoolu_2", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } }),
  assistant(5, { type: "text", text: "visible text eta" }),
  {
    type: "user", sessionId: BLOCKS_SID, uuid: "u1", cwd: "/x", timestamp: "2026-05-02T00:00:07Z",
    message: { role: "user", content: [{ type: "mcp_tool_result", tool_use_id: "mcptoolu_1", is_error: true, content: [{ type: "text", text: "mcpresultword failed" }] }] }
  },
  {
    type: "user", sessionId: BLOCKS_SID, uuid: "u2", cwd: "/x", timestamp: "2026-05-02T00:00:08Z",
    message: { role: "user", content: [{ type: "document", title: "pdftitleword.pdf", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" } }] }
  }
]

const ODD_SID = "abababab-abab-4bab-8bab-abababababab"
const oddContents: ReadonlyArray<unknown> = ["plain text ok", [[1]], 42, { a: 1 }, [{ type: "weird", x: "weirdblockword" }], null, [{ type: "text" }]]
const oddRows = oddContents.map((c, i) => ({
  type: "user", sessionId: ODD_SID, uuid: `u${i}`, parentUuid: null, cwd: "/x", timestamp: `2026-05-01T00:00:0${i}Z`, message: { role: "user", content: c }
}))

describe("claude-code: content blocks the adapter did not map", () => {
  it.effect("server/MCP tool use and results are tool calls and results; a document's text or title is content", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-blocks-")
      const file = write(root, BLOCKS_SID, blockRows)
      const events = yield* withAdapter(root, (a) => collect(a.stream(loc(file))))
      const byLine = (n: number) => events.filter((e) => e.rawReference.sequence === n)
      // line 1: the document's text, then the prompt's text
      expect(byLine(1).map((e) => [e.kind, e.role, e.text])).toEqual([["message", "user", "documentwordtheta"], ["message", "user", "see doc"]])
      expect(nat(byLine(1)[0]).blockType).toBe("document")
      const [search] = byLine(2)
      expect([search.kind, search.role, search.toolName, search.toolCallId]).toEqual(["tool-call", "assistant", "web_search", "srvtoolu_1"])
      expect(search.toolInput).toEqual({ query: "serverquerywordzeta" })
      expect(search.text).toContain("serverquerywordzeta")
      expect(nat(search).blockType).toBe("server_tool_use")
      const [result] = byLine(3)
      expect([result.kind, result.role, result.toolCallId, result.isError]).toEqual(["tool-result", null, "srvtoolu_1", false])
      expect(result.text).toContain("resulttitleword")
      expect(result.text).toContain("https://example.com/r")
      expect(nat(result).blockType).toBe("web_search_tool_result")
      const [mcp] = byLine(4)
      expect([mcp.kind, mcp.toolName, mcp.toolCallId]).toEqual(["tool-call", "fetch", "mcptoolu_1"])
      expect(mcp.toolInput).toEqual({ url: "https://x.test/mcpinputword" })
      expect(nat(mcp).serverName).toBe("srv")
      const [failed] = byLine(5)
      expect([failed.kind, failed.toolCallId, failed.isError]).toEqual(["tool-result", "srvtoolu_2", true])
      expect(failed.text).toContain("max_uses_exceeded")
      expect(byLine(6).map((e) => e.text)).toEqual(["visible text eta"])
      const [mcpResult] = byLine(7)
      expect([mcpResult.kind, mcpResult.toolCallId, mcpResult.isError, mcpResult.text]).toEqual(["tool-result", "mcptoolu_1", true, "mcpresultword failed"])
      const [pdf] = byLine(8)
      expect([pdf.kind, pdf.role, pdf.text]).toEqual(["message", "user", "pdftitleword.pdf"])
      expect(nat(pdf).mediaType).toBe("application/pdf")
      expect(JSON.stringify(pdf)).not.toContain("JVBERi0xLjQK")
      // usage rides on each response's last event, as before
      expect(events.filter((e) => e.usage !== null)).toHaveLength(5)
      // the scan counts the two calls; nothing was skipped
      const d = yield* withAdapter(root, (a) => a.discover({}))
      expect(d.sources).toHaveLength(1)
      expect(d.sources[0].summary.toolCallCount).toBe(2)
      expect(d.sources[0].summary.parseWarnings).toEqual([])
      const i = yield* withAdapter(root, (a) => a.inspect(loc(file)))
      expect(i.eventCount).toBe(events.length)
    }))

  it.effect("content not understood is kept as a meta event with its raw value, and counted as unknown-block", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-odd-")
      const file = write(root, ODD_SID, oddRows)
      const events = yield* withAdapter(root, (a) => collect(a.stream(loc(file))))
      // every line yields an event: 7 lines, 7 events
      expect(events.map((e) => e.rawReference.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7])
      expect(events[0].kind).toBe("message")
      const kept = events.slice(1)
      expect(kept.map((e) => [e.kind, e.role])).toEqual(Array(6).fill(["meta", "user"]))
      expect(kept.map((e) => nat(e).block)).toEqual([[1], 42, { a: 1 }, { type: "weird", x: "weirdblockword" }, null, { type: "text" }])
      expect(kept.map((e) => nat(e).blockType)).toEqual(["array", "number", "object", "weird", "null", "text"])
      expect(textOfAll(kept)).toContain("weirdblockword")
      const d = yield* withAdapter(root, (a) => a.discover({}))
      expect(warningsOf(d.sources[0].summary)).toEqual({ "unknown-block": [6, 2] })
      const i = yield* withAdapter(root, (a) => a.inspect(loc(file)))
      expect(i.eventCount).toBe(7)
      const w = i.diagnostics.find((x) => x.details?.kind === "unknown-block")!
      expect(w.message).toContain("kept")
      expect(w.message).not.toContain("skipped")
    }))

  it("CLI: every word of those lines is searchable after import", () => {
    const root = tempDir("si-claude-cli-")
    write(root, BLOCKS_SID, blockRows)
    write(root, ODD_SID, oddRows)
    const dir = tempDir()
    const index = nodePath.join(dir, "idx.db")
    const imp = cli(["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(dir, "none"), "--muse-root", nodePath.join(dir, "none"), "--workspace", dir], { env })
    expect([0, 8]).toContain(imp.code)
    expect(imp.stdout).toMatch(/unknown-block 6/)
    expect(imp.stdout).not.toMatch(/lines? skipped/)
    for (const w of ["serverquerywordzeta", "resulttitleword", "documentwordtheta", "mcpinputword", "mcpresultword", "pdftitleword", "weirdblockword"]) {
      const s = cli(["search", w, "--index", index, "--json"], { env })
      expect(s.code, w).toBe(0)
      expect((JSON.parse(s.stdout).data.hits as Array<unknown>).length, w).toBeGreaterThan(0)
    }
  })
})

const SYS_SID = "16161616-1616-4616-8616-161616161616"
const base = { sessionId: SYS_SID, cwd: "/x", isSidechain: false }
const sysRows = [
  { ...base, parentUuid: null, type: "user", uuid: "u1", timestamp: "2026-10-01T00:00:00Z", message: { role: "user", content: "first prompt" } },
  { ...base, parentUuid: null, logicalParentUuid: "u1", type: "system", subtype: "compact_boundary", uuid: "s1", timestamp: "2026-10-01T00:00:01Z", content: "Conversation compacted", level: "info", compactMetadata: { trigger: "auto", preTokens: 150000 } },
  { ...base, parentUuid: "s1", type: "user", uuid: "u2", timestamp: "2026-10-01T00:00:02Z", isCompactSummary: true, message: { role: "user", content: "This session is being continued... SUMMARYWORD" } },
  { ...base, parentUuid: "u2", type: "attachment", uuid: "t1", timestamp: "2026-10-01T00:00:06Z", attachment: { type: "file", filename: "/x/notes.md", content: "ATTACHWORD" } },
  { type: "queue-operation", operation: "enqueue", timestamp: "2026-10-01T00:00:07Z", content: "QUEUEDWORD", sessionId: SYS_SID },
  { type: "queue-operation", operation: "dequeue", timestamp: "2026-10-01T00:00:08Z", sessionId: SYS_SID }
]

describe("claude-code: compaction summary, attachments, queued prompts", () => {
  it.effect("are meta events with their text (not turns); a queue-operation without text yields none", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-sys-")
      const file = write(root, SYS_SID, sysRows)
      const events = yield* withAdapter(root, (a) => collect(a.stream(loc(file))))
      expect(events.map((e) => [e.rawReference.sequence, e.kind, e.role])).toEqual([
        [1, "message", "user"],
        [2, "summary", "system"],
        [3, "meta", "user"],
        [4, "meta", "system"],
        [5, "meta", "user"]
      ])
      expect(events[2].text).toContain("SUMMARYWORD")
      expect(nat(events[2]).isCompactSummary).toBe(true)
      expect(nat(events[2]).compactionId).toBe("s1")
      expect(events[3].text).toContain("ATTACHWORD")
      expect(nat(events[3]).recordType).toBe("attachment")
      expect(nat(events[3]).attachmentType).toBe("file")
      expect(events[3].occurredAt).toBe("2026-10-01T00:00:06.000Z")
      expect(events[4].text).toBe("QUEUEDWORD")
      expect(nat(events[4]).recordType).toBe("queue-operation")
      expect(nat(events[4]).operation).toBe("enqueue")
      const d = yield* withAdapter(root, (a) => a.discover({}))
      const s = d.sources[0].summary
      expect(s.promptCount).toBe(1)
      expect(s.compactionCount).toBe(1)
      expect(s.parseWarnings).toEqual([])
      const t = yield* withAdapter(root, (a) => a.transcript(loc(file)))
      expect(t.turns).toHaveLength(1)
      expect(t.compactions).toHaveLength(1)
    }))
})

describe("claude-code: usage, timestamps and subagent meta not valid", () => {
  it.effect("a session whose responses all carry a usage not valid is listed, its events kept", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-cost-")
      const sid = "cccccccc-0000-4000-8000-00000000000c"
      const a = (uuid: string, ts: string, mid: string, usage: unknown, cost?: number) => ({
        type: "assistant", sessionId: sid, uuid, cwd: "/c", timestamp: ts, requestId: `q-${mid}`,
        ...(cost !== undefined ? { costUSD: cost } : {}),
        message: { id: mid, role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: `t ${uuid}` }], usage }
      })
      const file = write(root, sid, [
        a("c1", "2026-07-03T00:00:00Z", "m4", { input_tokens: "12", output_tokens: 1 }),
        a("c2", "2026-07-03T00:00:01Z", "m5", { input_tokens: 0, output_tokens: 100 }, -1)
      ])
      const d = yield* withAdapter(root, (ad) => ad.discover({}))
      expect(d.sources.map((s) => s.sessionId)).toEqual([sid])
      expect(d.diagnostics.filter((x) => x.code === "SESSION_OMITTED")).toEqual([])
      expect(warningsOf(d.sources[0].summary)).toEqual({ "usage-not-valid": [2, 1] })
      const i = yield* withAdapter(root, (ad) => ad.inspect(loc(file)))
      const w = i.diagnostics.find((x) => x.details?.kind === "usage-not-valid")!
      expect(w.message).toContain("kept")
      expect(w.message).not.toContain("skipped")
    }))

  it.effect("a session whose only line holds a document, or content not understood, is listed", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-doconly-")
      const doc = "f0f0f0f0-0000-4000-8000-0000000000f0", odd = "f1f1f1f1-0000-4000-8000-0000000000f1"
      write(root, doc, [{ ...blockRows[7], sessionId: doc }])
      write(root, odd, [{ ...oddRows[3], sessionId: odd }])
      const d = yield* withAdapter(root, (a) => a.discover({}))
      expect(d.sources.map((s) => s.sessionId).sort()).toEqual([doc, odd])
    }))

  it.effect("timestamps with no zone, impossible or garbage: occurredAt null, counted as timestamp-not-valid; a missing one is not", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-ts-")
      const sid = "dddddddd-0000-4000-8000-00000000000d"
      const u = (i: number, ts: unknown) => ({
        type: "user", sessionId: sid, uuid: `u${i}`, cwd: "/x", ...(ts !== undefined ? { timestamp: ts } : {}), message: { role: "user", content: `prompt ${i}` }
      })
      const file = write(root, sid, [u(1, "2026-01-01T00:00:00Z"), u(2, "2026-01-01T00:00:00"), u(3, "2026-02-30T00:00:00Z"), u(4, "yesterday"), u(5, undefined)])
      const events = yield* withAdapter(root, (a) => collect(a.stream(loc(file))))
      expect(events.map((e) => e.occurredAt)).toEqual(["2026-01-01T00:00:00.000Z", null, null, null, null])
      const d = yield* withAdapter(root, (a) => a.discover({}))
      expect(warningsOf(d.sources[0].summary)).toEqual({ "timestamp-not-valid": [3, 2] })
      expect(d.sources[0].summary.promptCount).toBe(5)
      const i = yield* withAdapter(root, (a) => a.inspect(loc(file)))
      const w = i.diagnostics.find((x) => x.details?.kind === "timestamp-not-valid")!
      expect(w.message).toContain("kept")
    }))

  it.effect("a malformed agent-<id>.meta.json is reported; the subagent's events are kept", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-meta-")
      const sid = "eeeeeeee-0000-4000-8000-00000000000e"
      const file = write(root, sid, [{ type: "user", sessionId: sid, uuid: "u1", cwd: "/x", timestamp: "2026-01-01T00:00:00Z", message: { role: "user", content: "go" } }])
      const dir = nodePath.join(root, PROJECT, sid, "subagents")
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(nodePath.join(dir, "agent-a1.jsonl"), JSON.stringify({ type: "user", sessionId: sid, agentId: "a1", isSidechain: true, uuid: "s1", timestamp: "2026-01-01T00:00:01Z", message: { role: "user", content: "sub prompt" } }) + "\n")
      fs.writeFileSync(nodePath.join(dir, "agent-a1.meta.json"), "{not json")
      // a second subagent without a meta.json at all: nothing to report
      fs.writeFileSync(nodePath.join(dir, "agent-a2.jsonl"), JSON.stringify({ type: "user", sessionId: sid, agentId: "a2", isSidechain: true, uuid: "s2", timestamp: "2026-01-01T00:00:02Z", message: { role: "user", content: "other" } }) + "\n")
      const i = yield* withAdapter(root, (a) => a.inspect(loc(file)))
      const bad = i.diagnostics.filter((x) => x.message.includes("agent-a1.meta.json"))
      expect(bad).toHaveLength(1)
      expect(i.diagnostics.filter((x) => x.message.includes("agent-a2"))).toEqual([])
      const sub = (i.provenance as { subagentParseWarnings: Array<{ kind: string; count: number }> }).subagentParseWarnings
      expect(sub.map((w) => [w.kind, w.count])).toEqual([["subagent-meta-not-valid", 1]])
      const events = yield* withAdapter(root, (a) => collect(a.stream(loc(file), { includeSubagents: true })))
      expect(events.map((e) => e.sessionId)).toEqual([sid, "agent-a1", "agent-a2"])
      const d = yield* withAdapter(root, (a) => a.discover({}))
      expect(d.sources[0].summary.diagnostics).toEqual([{ kind: "subagent-parse-warnings", count: 1, firstLine: null }])
    }))
})
