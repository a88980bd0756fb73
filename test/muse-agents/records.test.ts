/**
 * Seed 000 rules at the line level: record layout, item kinds, developer
 * messages, unknown types, warnings, tool-name normalization, sessions.json.
 */
import { describe, expect, it } from "@effect/vitest"
import { classifyLine, isDirectiveSource, isSubagentContext, joinParts } from "../../src/domain/muse-agents/records.js"
import { resolveAgentsRoot } from "../../src/domain/muse-agents/root.js"
import { readSessionsIndex, titleOf } from "../../src/domain/muse-agents/summary.js"
import { canonicalToolName, isEditTool, normalizeToolCall } from "../../src/domain/muse-agents/tools.js"

const line = (text: string, terminated = true) => ({ text, lineNumber: 1, terminated })
const classify = (o: unknown, terminated = true) => classifyLine(line(typeof o === "string" ? o : JSON.stringify(o), terminated), 64)
const item = (it: unknown, extra: Record<string, unknown> = {}) => ({ type: "item", seq: 1, source: "runtime", item: it, created_at: "2025-01-01T00:00:00Z", ...extra })

describe("record layout", () => {
  it("reads a session_header", () => {
    expect(classify({ type: "session_header", session_id: "s1", agent_id: "a1", created_at: "2025-01-01T01:00:00+01:00" }))
      .toEqual({ _tag: "Header", sessionId: "s1", agentId: "a1", createdAt: "2025-01-01T00:00:00.000Z", timestampWarning: null })
  })

  it("a header without session_id is an invalid record", () => {
    expect(classify({ type: "session_header", agent_id: "a1" })).toEqual({ _tag: "LineWarning", kind: "invalid-record" })
  })

  it("a compaction_checkpoint keeps id, trigger and time, never the summary", () => {
    const c = classify({ type: "compaction_checkpoint", compaction_id: "k1", trigger: "manual", summary: "SECRET", created_at: 1735689600 })
    expect(c).toEqual({ _tag: "Compaction", compactionId: "k1", trigger: "manual", createdAt: "2025-01-01T00:00:00.000Z", timestampWarning: null })
    expect(JSON.stringify(c)).not.toContain("SECRET")
  })

  it("unknown record types and unknown item types are skipped silently", () => {
    expect(classify({ type: "telemetry" })).toEqual({ _tag: "Ignored", reason: "unknown-record" })
    expect(classify(item({ type: "image" }))).toEqual({ _tag: "Ignored", reason: "unknown-item" })
  })

  it("an item without an item object is an invalid record", () => {
    expect(classify({ type: "item", seq: 1 })).toEqual({ _tag: "LineWarning", kind: "invalid-record" })
    expect(classify({ type: "item", item: [1] })).toEqual({ _tag: "LineWarning", kind: "invalid-record" })
  })
})

describe("item kinds", () => {
  it("message: plain text, role user or assistant", () => {
    const c = classify(item({ type: "message", role: "user", text: "hi" }))
    expect(c).toEqual({
      _tag: "Item",
      seq: 1,
      source: "runtime",
      createdAt: "2025-01-01T00:00:00.000Z",
      timestampWarning: null,
      entry: { _tag: "Message", role: "user", text: "hi", itemType: "message" }
    })
  })

  it("developer messages are skipped (message and message_parts)", () => {
    expect(classify(item({ type: "message", role: "developer", text: "sys" }))).toEqual({ _tag: "Ignored", reason: "developer-message" })
    expect(classify(item({ type: "message_parts", role: "developer", parts: [{ text: "x" }] })))
      .toEqual({ _tag: "Ignored", reason: "developer-message" })
  })

  it("message_parts: text joined from parts[].text, parts without text left out", () => {
    expect(joinParts([{ text: "a" }, { image: "x" }, { text: "b" }, null, "c"])).toBe("a\nb")
    const c = classify(item({ type: "message_parts", role: "assistant", parts: [{ text: "one" }, { text: "two" }] }))
    expect(c._tag === "Item" && c.entry).toEqual({ _tag: "Message", role: "assistant", text: "one\ntwo", itemType: "message_parts" })
  })

  it("thinking and commentary_text are assistant blocks", () => {
    const t = classify(item({ type: "thinking", thinking: "hmm" }))
    expect(t._tag === "Item" && t.entry).toEqual({ _tag: "Thinking", text: "hmm" })
    const c = classify(item({ type: "commentary_text", text: "Looking." }))
    expect(c._tag === "Item" && c.entry).toEqual({ _tag: "Commentary", text: "Looking." })
  })

  it("function_call: arguments is a JSON string, normalized to the canonical shape", () => {
    const c = classify(item({ type: "function_call", call_id: "c1", name: "edit", arguments: "{\"path\":\"a.ts\",\"old_text\":\"x\",\"new_text\":\"y\"}" }))
    expect(c._tag === "Item" && c.entry).toEqual({
      _tag: "ToolCall",
      callId: "c1",
      name: "Edit",
      nativeName: "edit",
      input: { file_path: "a.ts", old_string: "x", new_string: "y" },
      argumentsUnparsed: false
    })
  })

  it("function_call with arguments that are not JSON keeps the raw string", () => {
    const c = classify(item({ type: "function_call", call_id: "c1", name: "exec", arguments: "{not json" }))
    expect(c._tag === "Item" && c.entry).toMatchObject({ name: "Bash", input: "{not json", argumentsUnparsed: true })
  })

  it("function_call without call_id or name is an invalid record", () => {
    expect(classify(item({ type: "function_call", name: "exec" }))).toEqual({ _tag: "LineWarning", kind: "invalid-record" })
    expect(classify(item({ type: "function_call", call_id: "c" }))).toEqual({ _tag: "LineWarning", kind: "invalid-record" })
  })

  it("function_call_output: success false is kept; a non-string output becomes its JSON", () => {
    const c = classify(item({ type: "function_call_output", call_id: "c1", output: { a: 1 }, success: false }))
    expect(c._tag === "Item" && c.entry).toEqual({ _tag: "ToolOutput", callId: "c1", output: "{\"a\":1}", success: false })
  })
})

describe("bad lines are warnings, never errors", () => {
  it.each([
    ["null", "non-object"],
    ["[1,2]", "non-object"],
    ["42", "non-object"],
    ["\"text\"", "non-object"],
    ["{\"type\":\"item\",", "malformed-json"],
    ["not json at all", "malformed-json"]
  ])("%s → %s", (text, kind) => {
    expect(classify(text)).toEqual({ _tag: "LineWarning", kind })
  })

  it("an unterminated last line that is not JSON is a truncated line; one that is JSON is kept", () => {
    expect(classify("{\"type\":\"item\",\"seq\":1,\"item\":{\"type\":\"mes", false)).toEqual({ _tag: "LineWarning", kind: "truncated-line" })
    expect(classify(item({ type: "message", role: "user", text: "ok" }), false)._tag).toBe("Item")
  })

  it("nesting past the depth limit and oversized lines are warnings", () => {
    expect(classifyLine(line("[".repeat(10) + "]".repeat(10)), 5)).toEqual({ _tag: "LineWarning", kind: "too-deep" })
    expect(classifyLine({ text: "", lineNumber: 1, terminated: true, oversized: true }, 64))
      .toEqual({ _tag: "LineWarning", kind: "oversized-line" })
  })

  it("blank and CR-only lines are not records and not warnings", () => {
    expect(classify("")).toEqual({ _tag: "Blank" })
    expect(classify("  \r")).toEqual({ _tag: "Blank" })
  })

  it("CRLF, a BOM, U+2028/U+2029 and lone surrogates keep the record", () => {
    const withCr = JSON.stringify(item({ type: "message", role: "user", text: "a\u2028b\u2029c" })) + "\r"
    const c = classify(withCr)
    expect(c._tag === "Item" && c.entry).toMatchObject({ text: "a\u2028b\u2029c" })
    const bom = classify("\uFEFF" + JSON.stringify(item({ type: "message", role: "user", text: "x" })))
    expect(bom._tag).toBe("Item")
    const lone = classify("{\"type\":\"item\",\"item\":{\"type\":\"message\",\"role\":\"user\",\"text\":\"\\ud800!\"}}")
    expect(lone._tag === "Item" && lone.entry).toMatchObject({ text: "\ud800!" })
  })
})

describe("discovery labels", () => {
  it("bare runtime is interactive; dotted runtime.* and scheduler.cron are directives", () => {
    expect(isDirectiveSource("runtime")).toBe(false)
    expect(isDirectiveSource(null)).toBe(false)
    expect(isDirectiveSource("runtime.feed")).toBe(true)
    expect(isDirectiveSource("runtime.self_improvement")).toBe(true)
    expect(isDirectiveSource("runtime.monitoring")).toBe(true)
    expect(isDirectiveSource("scheduler.cron")).toBe(true)
  })

  it("[Subagent Context] prefix, after leading whitespace only", () => {
    expect(isSubagentContext("[Subagent Context] You are a subagent")).toBe(true)
    expect(isSubagentContext("\n  [Subagent Context] x")).toBe(true)
    expect(isSubagentContext("see [Subagent Context]")).toBe(false)
  })

  it("title: whitespace collapsed, clipped to 80 characters", () => {
    expect(titleOf("  Fix\nthe  bug ")).toBe("Fix the bug")
    expect(titleOf("x".repeat(100))).toBe("x".repeat(79) + "…")
  })
})

describe("tool names", () => {
  it("exec→Bash, edit→Edit, write→Write, read→Read; namespaced names pass through", () => {
    expect(canonicalToolName("exec")).toBe("Bash")
    expect(canonicalToolName("edit")).toBe("Edit")
    expect(canonicalToolName("write")).toBe("Write")
    expect(canonicalToolName("read")).toBe("Read")
    expect(canonicalToolName("memory_search")).toBe("memory_search")
    expect(canonicalToolName("subagent.spawn")).toBe("subagent.spawn")
    expect(canonicalToolName("toString")).toBe("toString")
  })

  it("edit arguments map to file_path/old_string/new_string; other keys are kept", () => {
    expect(normalizeToolCall("edit", { path: "a", old_text: "o", new_text: "n", replace_all: true })).toEqual({
      name: "Edit",
      input: { file_path: "a", old_string: "o", new_string: "n", replace_all: true }
    })
    expect(normalizeToolCall("write", { path: "a", content: "c" })).toEqual({ name: "Write", input: { file_path: "a", content: "c" } })
    expect(normalizeToolCall("read", { path: "a" })).toEqual({ name: "Read", input: { file_path: "a" } })
    expect(normalizeToolCall("exec", { command: "ls" })).toEqual({ name: "Bash", input: { command: "ls" } })
    expect(normalizeToolCall("memory_search", { path: "p" })).toEqual({ name: "memory_search", input: { path: "p" } })
  })

  it("a canonical key already present is not overwritten", () => {
    expect(normalizeToolCall("edit", { path: "a", file_path: "b" })).toEqual({ name: "Edit", input: { path: "a", file_path: "b" } })
  })

  it("edit tools after mapping: Edit, MultiEdit, Write, NotebookEdit, Delete", () => {
    expect(["Edit", "MultiEdit", "Write", "NotebookEdit", "Delete"].every(isEditTool)).toBe(true)
    expect(["Bash", "Read", "edit", "memory_search"].some(isEditTool)).toBe(false)
  })
})

describe("sessions.json", () => {
  const doc = { updated_at: "2025-01-02T00:00:00Z", context_window_usage: { model_id: "m-1" } }
  it("keyed by session id, a sessions array or map, or a single-session document", () => {
    const found = { _tag: "found", entry: { model: "m-1", updatedAt: "2025-01-02T00:00:00.000Z" } }
    expect(readSessionsIndex(JSON.stringify({ s1: doc }), "s1", 64)).toEqual(found)
    expect(readSessionsIndex(JSON.stringify({ sessions: [{ session_id: "s1", ...doc }] }), "s1", 64)).toEqual(found)
    expect(readSessionsIndex(JSON.stringify({ sessions: { s1: doc } }), "s1", 64)).toEqual(found)
    expect(readSessionsIndex(JSON.stringify(doc), "s1", 64)).toEqual(found)
    expect(readSessionsIndex(JSON.stringify({ session_id: "s2", ...doc }), "s1", 64)).toEqual({ _tag: "no-entry" })
  })

  it("a non-object or non-JSON document is ignored, never fatal", () => {
    expect(readSessionsIndex("null", "s1", 64)).toEqual({ _tag: "ignored", reason: "not-object" })
    expect(readSessionsIndex("[]", "s1", 64)).toEqual({ _tag: "ignored", reason: "not-object" })
    expect(readSessionsIndex("{", "s1", 64)).toEqual({ _tag: "ignored", reason: "not-json" })
  })
})

describe("agents root", () => {
  it("--agents-root, else $MUSE_AGENTS_DIR, else ~/agents", () => {
    expect(resolveAgentsRoot("/x/agents", { MUSE_AGENTS_DIR: "/env" }, "/home/u")).toEqual({ path: "/x/agents", origin: "option" })
    expect(resolveAgentsRoot(undefined, { MUSE_AGENTS_DIR: "/env" }, "/home/u")).toEqual({ path: "/env", origin: "env" })
    expect(resolveAgentsRoot(undefined, { MUSE_AGENTS_DIR: "" }, "/home/u")).toEqual({ path: "/home/u/agents", origin: "default" })
    expect(resolveAgentsRoot(undefined, {}, "/home/u")).toEqual({ path: "/home/u/agents", origin: "default" })
    expect(resolveAgentsRoot("~/a", {}, "/home/u")).toEqual({ path: "/home/u/a", origin: "option" })
  })
})
