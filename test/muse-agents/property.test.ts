/**
 * Properties (seed 000, tolerant policy): any line sequence gives a transcript
 * and warnings, never a defect, and never loses a good record; resuming a
 * stream from every event k yields exactly the events after k, whatever mix of
 * good and bad lines, BOM and CRLF the file holds.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { SessionEvent, Transcript } from "../../src/domain/model.js"
import { classifyLine } from "../../src/domain/muse-agents/records.js"
import { transcriptOfLines } from "../../src/domain/muse-agents/transcript.js"
import { collect, locatorOf, removeDir, tempDir, withAdapter, writeTranscript } from "./helpers.js"

const temps: Array<string> = []
afterAll(() => temps.forEach(removeDir))

/** Text with the characters real files trip on: U+2028/2029, lone surrogates, CR, quotes, BOM, emoji. */
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\u2028", "\u2029", "\ud800", "\udfff", "\r", "\n", "\t", "\"", "\\", "\ufeff", "é", "😀", " "),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 })
  ),
  minLength: 1,
  maxLength: 16
})

/** A good record and the text blocks it contributes to a transcript (in order). */
interface Good {
  readonly json: string
  readonly texts: ReadonlyArray<string>
}

const item = (it: unknown, source?: string) =>
  JSON.stringify({ type: "item", seq: 1, ...(source !== undefined ? { source } : {}), item: it, created_at: "2025-01-01T00:00:00Z" })

const callId = fc.constantFrom("c1", "c2", "c3")

const good: fc.Arbitrary<Good> = fc.oneof(
  fc.tuple(fc.constantFrom("user", "assistant"), text, fc.constantFrom("runtime", "runtime.feed", "scheduler.cron", undefined))
    .map(([role, t, source]) => ({ json: item({ type: "message", role, text: t }, source), texts: [t] })),
  fc.tuple(fc.constantFrom("user", "assistant"), fc.array(text, { minLength: 1, maxLength: 3 }))
    .map(([role, parts]) => ({
      json: item({ type: "message_parts", role, parts: parts.map((p) => ({ text: p })) }),
      texts: [parts.join("\n")]
    })),
  text.map((t) => ({ json: item({ type: "thinking", thinking: t }), texts: [t] })),
  text.map((t) => ({ json: item({ type: "commentary_text", text: t }), texts: [t] })),
  fc.tuple(callId, fc.constantFrom("exec", "edit", "write", "read", "memory_search", "subagent.spawn"), text)
    .map(([id, name, t]) => ({
      json: item({ type: "function_call", call_id: id, name, arguments: JSON.stringify({ path: t, command: t }) }),
      texts: []
    })),
  fc.tuple(callId, text, fc.boolean())
    .map(([id, out, success]) => ({ json: item({ type: "function_call_output", call_id: id, output: out, success }), texts: [] })),
  fc.tuple(text, fc.constantFrom("auto", "manual"))
    .map(([s, trigger]) => ({ json: JSON.stringify({ type: "compaction_checkpoint", compaction_id: "k", trigger, summary: s }), texts: [] }))
)

/** A line that is not a usable record (bad JSON, non-objects, torn records, unknown types, developer messages). */
const bad: fc.Arbitrary<string> = fc.oneof(
  text,
  fc.jsonValue().map((v) => JSON.stringify(v)),
  good.chain((g) => fc.nat({ max: Math.max(0, g.json.length - 1) }).map((n) => g.json.slice(0, n))),
  fc.constantFrom("null", "[]", "{}", "", "\r", "{\"type\":\"item\"}", "{\"type\":\"telemetry\"}", item({ type: "image" })),
  text.map((t) => item({ type: "message", role: "developer", text: t }))
).map((s) => s.replace(/\n/g, " ")).filter((s) => {
  const c = classifyLine({ text: s, lineNumber: 1, terminated: true }, 64)
  return c._tag !== "Item" && c._tag !== "Compaction" && c._tag !== "Header"
})

type Line = { readonly good: Good } | { readonly bad: string }
const lines = fc.array(fc.oneof(good.map((g): Line => ({ good: g })), bad.map((b): Line => ({ bad: b }))), { maxLength: 30 })
const HEADER = JSON.stringify({ type: "session_header", session_id: "s-prop", agent_id: "p", created_at: "2025-01-01T00:00:00Z" })
const textOf = (l: Line) => ("good" in l ? l.good.json : l.bad)

const decodeTranscript = Schema.decodeUnknownSync(Transcript)
const decodeEvent = Schema.decodeUnknownSync(SessionEvent)

describe("properties", () => {
  it.prop("any line sequence gives a transcript and warnings, never a defect, never a lost good record", {
    ls: lines,
    lastTerminated: fc.boolean()
  }, ({ lastTerminated, ls }) => {
    const { scan, transcript } = transcriptOfLines([HEADER, ...ls.map(textOf)], { lastTerminated })
    expect(transcript).not.toBeNull()
    decodeTranscript(transcript)
    const goods = ls.filter((l): l is { good: Good } => "good" in l)
    const shown = transcript!.turns.flatMap((t) => t.blocks.flatMap((b) => (b.type === "tool_use" ? [] : [b.text])))
    expect(shown).toEqual(goods.flatMap((g) => g.good.texts))
    expect(scan.eventCount).toBe(goods.length)
    // Parse warnings are line warnings only (orphan outputs are diagnostics; issue 11, item 12).
    const lineWarnings = transcript!.parseWarnings
    expect(lineWarnings.map((w) => w.kind)).not.toContain("orphan-tool-output")
    expect(lineWarnings.reduce((n, w) => n + w.count, 0)).toBeLessThanOrEqual(ls.length - goods.length)
    for (const w of lineWarnings) expect(w.firstLine).toBeGreaterThanOrEqual(2)
  })

  it.prop("any lines at all, header or not, never throw", { ls: fc.array(fc.oneof(text, bad, good.map((g) => g.json), fc.constant(HEADER))) }, ({ ls }) => {
    const { transcript } = transcriptOfLines(ls)
    if (transcript !== null) decodeTranscript(transcript)
  })

  it.effect.prop(
    "stream: resuming from every event k yields exactly the events after k (BOM, CRLF, torn last line)",
    { ls: lines, bom: fc.boolean(), crlf: fc.array(fc.boolean(), { minLength: 31, maxLength: 31 }), finalNewline: fc.boolean() },
    ({ bom, crlf, finalNewline, ls }) =>
      Effect.gen(function*() {
        const root = nodePath.join(tempDir(), "agents")
        temps.push(nodePath.dirname(root))
        const all = [HEADER, ...ls.map(textOf)]
        const body = all.map((l, i) => l + (i < all.length - 1 || finalNewline ? (crlf[i] ? "\r\n" : "\n") : "")).join("")
        writeTranscript(root, "p", Buffer.concat([Buffer.from(bom ? [0xef, 0xbb, 0xbf] : []), Buffer.from(body, "utf8")]))
        const before = fs.readFileSync(nodePath.join(root, "p", "sessions", "p.jsonl"))
        const events = yield* withAdapter(root, (a) => collect(a.stream(locatorOf("p", root))))
        events.forEach((e) => decodeEvent(e))
        expect(events.length).toBe(ls.filter((l) => "good" in l).length)
        expect(events.map((e) => e.sequence)).toEqual(
          all.flatMap((_, i) => (i > 0 && "good" in ls[i - 1] ? [i + 1] : []))
        )
        for (let k = 0; k < events.length; k++) {
          const rest = yield* withAdapter(root, (a) => collect(a.stream(locatorOf("p", root), { cursor: events[k].cursor })))
          expect(rest).toEqual(events.slice(k + 1))
        }
        const t = yield* withAdapter(root, (a) => a.transcript(locatorOf("p", root)))
        decodeTranscript(t)
        expect(fs.readFileSync(nodePath.join(root, "p", "sessions", "p.jsonl")).equals(before)).toBe(true)
      }),
    { fastCheck: { numRuns: 40 } }
  )
})
