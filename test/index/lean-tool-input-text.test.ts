/**
 * Issue 13 item 2 ("the record shrinks: store the raw payload once, not
 * restated inside normalized fields"): a Claude Code or Muse agents tool
 * call's `text` is its input as one line of JSON (`toolInputText`), and the
 * input is kept in `extensions` as provenance. The index's record keeps the
 * input once and makes the text again (a reference of mode `j`); the event
 * read back is the one imported, byte for byte. The lean stream's contract
 * (`lean-1`, references `=` and `~` only) is unchanged.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import BetterSqlite from "better-sqlite3"
import type { SessionEvent } from "../../src/domain/model.js"
import { TOOL_INPUT_TEXT_MAX, toolInputText } from "../../src/domain/tool-input-text.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { eventOfRow, INDEX_LEAN, leanEvent, shapePlan } from "../../src/layers/index/rows.js"
import { copyFixtures as copyClaude } from "../claude-code/helpers.js"
import { importOnce } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"

/** A tool call as the two providers make it: the input in `toolInput`, in `extensions` (provenance), and as text. */
const toolCall = (ns: string, input: unknown, text = toolInputText(input)): SessionEvent =>
  ({
    contractVersion: "1.3.0", provider: ns === "native.claude-code" ? "claude-code" : "muse-agents", sourceId: "sha256:x", sessionId: "s",
    eventId: "line-7", sequence: 7, model: null, occurredAt: "2026-01-01T00:00:00.000Z", cursor: "c2.x", rawReference: { sequence: 7, offset: 90 },
    kind: "tool-call", role: "assistant", toolName: "Write", toolCallId: "call-1", text,
    extensions: { [ns]: { recordType: "item", seq: 7, itemType: "function_call", input } },
    toolInput: input, isError: null, compaction: null, parent: null, child: null, usage: null, responseId: null, costUsd: null
  }) as unknown as SessionEvent

/** The event its lean form gives back. */
const back = (e: SessionEvent, l: { shape: string; body: string }) => eventOfRow(shapePlan(l.shape), l.body, e, e)
const refsOf = (shape: string) => (JSON.parse(shape) as { r?: Record<string, ReadonlyArray<unknown>> }).r ?? {}

describe("a tool call's text made of its input (index record, reference mode j)", () => {
  it("is kept once: the body has the input, not the text, and the event reads back the same", () => {
    for (const ns of ["native.claude-code", "native.muse-agents"]) {
      const input = { file_path: "src/a.ts", content: "export const a = 1\nexport const b = \"two\"\n" }
      const e = toolCall(ns, input)
      const l = leanEvent(e, INDEX_LEAN)!
      expect(refsOf(l.shape).text).toEqual(["j", ns, "input"])
      expect(l.body).not.toContain(JSON.stringify(e.text))
      // The input's own copy stays, once.
      expect(l.body.split("src/a.ts").length - 1).toBe(1)
      expect(JSON.stringify(back(e, l))).toBe(JSON.stringify(e))
    }
  })

  it("an input whose JSON is longer than the text's limit: the cut text (its last character an ellipsis) is made again", () => {
    const input = { command: "x".repeat(3 * TOOL_INPUT_TEXT_MAX) }
    const e = toolCall("native.muse-agents", input)
    expect(e.text!.length).toBe(TOOL_INPUT_TEXT_MAX)
    expect(e.text!.endsWith("…")).toBe(true)
    const l = leanEvent(e, INDEX_LEAN)!
    expect(refsOf(l.shape).text?.[0]).toBe("j")
    expect(l.body.length).toBeLessThan(3 * TOOL_INPUT_TEXT_MAX + 300)
    expect(JSON.stringify(back(e, l))).toBe(JSON.stringify(e))
  })

  it("a text that is not the input's JSON is kept as it is (same first key, another value; another first key; an escaped key)", () => {
    const input = { "a\"b": "some value of the tool call's input", path: "/x" }
    const cases: Array<SessionEvent> = [
      toolCall("native.muse-agents", input, toolInputText({ ...input, path: "/y" })),
      toolCall("native.muse-agents", input, toolInputText({ other: 1, ...input })),
      toolCall("native.muse-agents", input, "a message that happens to be long enough to be a reference")
    ]
    for (const e of cases) {
      const l = leanEvent(e, INDEX_LEAN)!
      expect(refsOf(l.shape).text).toBeUndefined()
      expect(l.body).toContain(JSON.stringify(e.text))
      expect(JSON.stringify(back(e, l))).toBe(JSON.stringify(e))
    }
    // The escaped first key itself is found.
    const e = toolCall("native.muse-agents", input)
    const l = leanEvent(e, INDEX_LEAN)!
    expect(refsOf(l.shape).text?.[0]).toBe("j")
    expect(JSON.stringify(back(e, l))).toBe(JSON.stringify(e))
  })

  it("the lean stream's contract (lean-1) is unchanged: without the index's option the text stays in the body", () => {
    const e = toolCall("native.claude-code", { command: "npm test -- --run test/index/lean-tool-input-text.test.ts" })
    const l = leanEvent(e)!
    expect(refsOf(l.shape).text).toBeUndefined()
    expect(l.body).toContain(JSON.stringify(e.text))
  })

  it("over generated inputs (any JSON: arrays, nested objects, odd keys, long strings), each event reads back byte for byte", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.dictionary(fc.fullUnicodeString(), fc.jsonValue({ maxDepth: 3 }))),
        fc.boolean(),
        (input, claude) => {
          const e = toolCall(claude ? "native.claude-code" : "native.muse-agents", JSON.parse(JSON.stringify(input)))
          const l = leanEvent(e, INDEX_LEAN)
          if (l === null) return
          expect(JSON.stringify(back(e, JSON.parse(JSON.stringify(l))))).toBe(JSON.stringify(e))
          if (typeof input === "object" && input !== null && e.text!.length >= 24 && refsOf(l.shape).text !== undefined) {
            expect(refsOf(l.shape).text![0]).toBe("j")
          }
        }
      ),
      { numRuns: 500 }
    )
  })

  it.effect("on import of the Claude Code and Muse agents fixtures, tool calls are stored with a reference of mode j", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const claudeRoot = copyClaude()
      const policy = { agentsRoot: path.join(fixturesDir, "muse-agents/agents"), claudeRoot, stateFile: path.join(dir, "state.db") }
      const index = path.join(dir, "index.db")
      yield* importOnce(policy, index, planFromPolicy(policy, {}))
      const Database = BetterSqlite as unknown as new(file: string, o?: { readonly: boolean }) => { prepare(sql: string): { all(): Array<any> }; close(): void }
      const db = new Database(index, { readonly: true })
      const rows = db.prepare(
        `SELECT st.provider, r.body, s.def FROM records r JOIN streams st ON st.stream = r.stream JOIN shapes s ON s.shape = r.shape
          WHERE r.kind = 'tool-call'`
      ).all() as Array<{ provider: string; body: string; def: string }>
      db.close()
      const byProvider = new Map<string, number>()
      for (const r of rows) {
        const ref = refsOf(r.def).text
        if (ref?.[0] === "j") byProvider.set(r.provider, (byProvider.get(r.provider) ?? 0) + 1)
      }
      // Both providers' fixtures have tool calls whose text is their input's JSON (24 characters or more).
      expect(byProvider.get("claude-code") ?? 0).toBeGreaterThan(0)
      expect(byProvider.get("muse-agents") ?? 0).toBeGreaterThan(0)
      expect(fs.existsSync(index)).toBe(true)
    }))
})
