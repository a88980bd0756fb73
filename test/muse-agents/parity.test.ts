/**
 * Seed 000 parity with vibe-replay's own Muse provider tests (issue 11, items
 * 10-13): numeric compaction ids, compaction times in epoch seconds /
 * milliseconds and their place in the session's end, what is a parse warning
 * and what a diagnostic, and consecutive user messages as separate turns.
 * Values are the ones vibe-replay's parser tests use (header 2026-09-18T10:00:00Z,
 * `compaction_id: 1`, `created_at: 1789420895` = 2026-09-14T21:21:35Z).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import { compareTimestamps } from "../../src/domain/timestamps.js"
import { transcriptOfLines } from "../../src/domain/muse-agents/transcript.js"
import { collect, jl, locatorOf, removeDir, tempDir, withAdapter, writeTranscript } from "./helpers.js"

const temps: Array<string> = []
afterAll(() => temps.forEach(removeDir))

const header = (createdAt: unknown = "2026-09-18T10:00:00Z") =>
  JSON.stringify({ type: "session_header", version: 1, session_id: "agent-test-1", agent_id: "agent-test-1", created_at: createdAt })
const item = (it: unknown, createdAt: unknown = "2026-09-18T10:01:00Z") =>
  JSON.stringify({ type: "item", seq: 1, source: "runtime", item: it, created_at: createdAt })
const compaction = (id: unknown, createdAt: unknown, trigger = "threshold") =>
  JSON.stringify({ type: "compaction_checkpoint", compaction_id: id, trigger, created_at: createdAt, summary: "a very long summary" })
const user = (text: string, at?: string) => item({ type: "message", role: "user", text }, at)

const root = () => {
  const dir = tempDir()
  temps.push(dir)
  return nodePath.join(dir, "agents")
}

describe("item 10: a numeric compaction_id (vibe-replay's fixtures) is a compaction", () => {
  it("kept in compactions[] with the number as its id, counted, no warning", () => {
    const { scan, transcript } = transcriptOfLines([
      header(),
      user("Hello"),
      compaction(1, "2026-09-18T10:05:00Z"),
      compaction(2.5, "2026-09-18T10:06:00Z", "manual"),
      compaction("cmp-3", "2026-09-18T10:07:00Z")
    ])
    expect(transcript!.compactions).toEqual([
      { id: "1", trigger: "threshold", timestamp: "2026-09-18T10:05:00.000Z" },
      { id: "2.5", trigger: "manual", timestamp: "2026-09-18T10:06:00.000Z" },
      { id: "cmp-3", trigger: "threshold", timestamp: "2026-09-18T10:07:00.000Z" }
    ])
    expect(transcript!.parseWarnings).toEqual([])
    expect(scan.compactionCount).toBe(3)
    expect(JSON.stringify(transcript)).not.toContain("very long summary")
  })

  it.effect("discover counts it (compactionCount), stream emits its summary event with the id", () =>
    Effect.gen(function*() {
      const r = root()
      writeTranscript(r, "a1", [header(), user("Hello"), compaction(7, 1789420895), compaction(0, "2026-09-18T10:05:00Z")].map((l) => l + "\n").join(""))
      const d = yield* withAdapter(r, (a) => a.discover({}))
      expect(d.sources[0].summary).toMatchObject({ compactionCount: 2, parseWarningCount: 0 })
      const events = yield* withAdapter(r, (a) => collect(a.stream(locatorOf("a1", r))))
      const summaries = events.filter((e) => e.kind === "summary")
      expect(summaries.map((e) => (e.extensions["native.muse-agents"] as { compactionId: unknown }).compactionId)).toEqual(["7", "0"])
      const t = yield* withAdapter(r, (a) => a.transcript(locatorOf("a1", r)))
      expect(t.compactions.map((c) => c.id)).toEqual(["7", "0"])
    }))
})

describe("item 11: compaction times are converted like every timestamp and count toward the end", () => {
  it("epoch seconds (vibe-replay: the runtime writes them on compactions) and milliseconds", () => {
    const { transcript } = transcriptOfLines([
      header(),
      user("Hello", "2026-09-18T10:01:00Z"),
      compaction(1, 1789420895),
      compaction(2, 1789420895123)
    ])
    expect(transcript!.compactions.map((c) => c.timestamp)).toEqual(["2026-09-14T21:21:35.000Z", "2026-09-14T21:21:35.123Z"])
    // The compaction is older than the header: the session spans both, and never ends before it starts.
    expect(transcript!.startedAt).toBe("2026-09-14T21:21:35.000Z")
    expect(transcript!.endedAt).toBe("2026-09-18T10:01:00.000Z")
  })

  it("a compaction after the last item ends the session (vibe-replay: the session was alive when it ran)", () => {
    const { transcript } = transcriptOfLines([header(), user("Hello", "2026-09-18T10:01:00Z"), compaction(1, "2026-09-18T10:05:00Z")])
    expect(transcript!.startedAt).toBe("2026-09-18T10:00:00.000Z")
    expect(transcript!.endedAt).toBe("2026-09-18T10:05:00.000Z")
    const ms = transcriptOfLines([header(), user("Hello", "2026-09-18T10:01:00Z"), compaction(1, Date.parse("2026-09-18T10:09:00.250Z"))])
    expect(ms.transcript!.endedAt).toBe("2026-09-18T10:09:00.250Z")
  })

  it("end and start are the latest and earliest times, not the last and first in file order (sub-millisecond digits compared)", () => {
    const { transcript } = transcriptOfLines([
      header("2026-09-18T10:00:00.000500Z"),
      user("a", "2026-09-18T10:00:00.0005Z"),
      user("b", "2026-09-18T10:00:00.0004Z"),
      user("c", "2026-09-18T09:00:00Z"),
      user("d", "2026-09-18T12:00:00.000001Z"),
      user("e", "2026-09-18T12:00:00Z")
    ])
    expect(transcript!.startedAt).toBe("2026-09-18T09:00:00.000Z")
    expect(transcript!.endedAt).toBe("2026-09-18T12:00:00.000001Z")
  })

  it.effect("discover's startedAt / updatedAt and inspect's first / last event times follow the same rule", () =>
    Effect.gen(function*() {
      const r = root()
      writeTranscript(r, "a1", [header(), user("Hello", "2026-09-18T10:01:00Z"), compaction(1, 1789420895)].map((l) => l + "\n").join(""))
      const d = yield* withAdapter(r, (a) => a.discover({}))
      expect(d.sources[0].summary).toMatchObject({
        startedAt: "2026-09-14T21:21:35.000Z",
        updatedAt: "2026-09-18T10:01:00.000Z",
        updatedAtFrom: "last-record"
      })
      const i = yield* withAdapter(r, (a) => a.inspect(locatorOf("a1", r)))
      expect([i.firstEventAt, i.lastEventAt]).toEqual(["2026-09-14T21:21:35.000Z", "2026-09-18T10:01:00.000Z"])
    }))

  it("property: endedAt is never before startedAt, whatever the times and units", () => {
    const when = fc.oneof(
      fc.integer({ min: 1_000_000_000, max: 4_000_000_000 }), // seconds
      fc.integer({ min: 1_000_000_000_000, max: 4_000_000_000_000 }), // milliseconds
      fc.integer({ min: 1_000_000_000_000, max: 4_000_000_000_000 }).map((ms) => new Date(ms).toISOString()),
      fc.constant(null),
      fc.constant("not a time")
    )
    const line = fc.oneof(
      when.map((t) => user("hi", t as string)),
      when.map((t) => item({ type: "message", role: "assistant", text: "yo" }, t)),
      fc.tuple(fc.oneof(fc.integer(), fc.string()), when).map(([id, t]) => compaction(id, t))
    )
    fc.assert(
      fc.property(when, fc.array(line, { maxLength: 12 }), (h, lines) => {
        const { transcript } = transcriptOfLines([header(h), ...lines])
        const t = transcript!
        if (t.startedAt !== null && t.endedAt !== null) expect(compareTimestamps(t.startedAt, t.endedAt)).toBeLessThanOrEqual(0)
        expect(t.startedAt === null).toBe(t.endedAt === null)
      }),
      { numRuns: 300 }
    )
  })
})

describe("item 12: only lines that are not JSON objects are parse warnings", () => {
  it("an orphan tool output is a diagnostic, not a parse warning", () => {
    const { transcript } = transcriptOfLines([
      header(),
      user("Run"),
      item({ type: "function_call_output", call_id: "ghost", output: "orphan", success: true }),
      item({ type: "function_call_output", call_id: "ghost-2", output: "orphan 2" }),
      "{not valid json",
      "null",
      "[1,2]"
    ])
    expect(transcript!.parseWarnings).toEqual([
      { kind: "malformed-json", count: 1, firstLine: 5 },
      { kind: "non-object", count: 2, firstLine: 6 }
    ])
    expect(transcript!.diagnostics).toEqual([{ kind: "orphan-tool-output", count: 2, firstLine: 3 }])
  })

  it("unknown record and item types are skipped silently: neither a warning nor a diagnostic", () => {
    const { transcript } = transcriptOfLines([
      header(),
      user("Hello"),
      JSON.stringify({ type: "weird_record", created_at: "2026-09-18T10:02:00Z" }),
      JSON.stringify({ type: "item", seq: 9, item: { type: "hologram", role: "user" }, created_at: "2026-09-18T10:03:00Z" })
    ])
    expect(transcript!.parseWarnings).toEqual([])
    expect(transcript!.diagnostics).toEqual([])
  })

  it.effect("a non-object sessions.json is a diagnostic of the transcript, not a parse warning; inspect and discover agree", () =>
    Effect.gen(function*() {
      const r = root()
      const p = writeTranscript(r, "a1", [header(), user("Run"), item({ type: "function_call_output", call_id: "ghost", output: "x" })].map((l) => l + "\n").join(""))
      fs.writeFileSync(nodePath.join(nodePath.dirname(p), "sessions.json"), "[1,2]")
      const t = yield* withAdapter(r, (a) => a.transcript(locatorOf("a1", r)))
      expect(t.parseWarnings).toEqual([])
      expect(t.diagnostics).toEqual([
        { kind: "orphan-tool-output", count: 1, firstLine: 3 },
        { kind: "sessions-index-not-object", count: 1, firstLine: null }
      ])
      const i = yield* withAdapter(r, (a) => a.inspect(locatorOf("a1", r)))
      expect(i.diagnostics.filter((d) => d.code === "PARSE_WARNING")).toEqual([])
      expect(i.provenance).toMatchObject({ parseWarnings: [], parseWarningCount: 0 })
      const d = yield* withAdapter(r, (a) => a.discover({}))
      expect(d.sources[0].summary).toMatchObject({
        parseWarnings: [],
        parseWarningCount: 0,
        orphanOutputCount: 1,
        diagnostics: [
          { kind: "orphan-tool-output", count: 1, firstLine: 3 },
          { kind: "sessions-index-not-object", count: 1, firstLine: null }
        ]
      })
    }))
})

describe("item 13: two consecutive user messages are two user turns (vibe-replay's parser test)", () => {
  it("message and message_parts each start a user turn; assistant blocks of one turn stay together", () => {
    const { transcript } = transcriptOfLines([
      header(),
      user("Refactor the auth module", "2026-09-18T10:01:00Z"),
      user("Go ahead", "2026-09-18T10:01:30Z"),
      item({ type: "message_parts", role: "user", parts: [{ type: "text", text: "First part" }, { type: "text", text: "Second part" }] }, "2026-09-18T10:01:40Z"),
      item({ type: "commentary_text", text: "On it, taking a look." }, "2026-09-18T10:02:00Z"),
      item({ type: "thinking", thinking: "Need to check the current structure first." }),
      item({ type: "message", role: "assistant", text: "Here is my plan." }),
      user("Thanks", "2026-09-18T10:03:00Z")
    ])
    expect(transcript!.turns).toEqual([
      { role: "user", timestamp: "2026-09-18T10:01:00.000Z", blocks: [{ type: "text", text: "Refactor the auth module" }] },
      { role: "user", timestamp: "2026-09-18T10:01:30.000Z", blocks: [{ type: "text", text: "Go ahead" }] },
      { role: "user", timestamp: "2026-09-18T10:01:40.000Z", blocks: [{ type: "text", text: "First part\nSecond part" }] },
      {
        role: "assistant",
        timestamp: "2026-09-18T10:02:00.000Z",
        blocks: [
          { type: "text", text: "On it, taking a look." },
          { type: "thinking", text: "Need to check the current structure first." },
          { type: "text", text: "Here is my plan." }
        ]
      },
      { role: "user", timestamp: "2026-09-18T10:03:00.000Z", blocks: [{ type: "text", text: "Thanks" }] }
    ])
  })
})
