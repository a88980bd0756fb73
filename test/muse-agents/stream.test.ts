/**
 * `stream muse-agents`: SessionEvents in file order, resumable by byte offset
 * with a cursor bound to the line's bytes; messy lines never lose a good
 * record. And: reading never changes a source.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { SessionEvent } from "../../src/domain/model.js"
import {
  collect,
  copyFixtures,
  digestTree,
  failureCode,
  FIXTURE_ROOT,
  jl,
  locatorOf,
  removeDir,
  tempDir,
  transcriptPath,
  withAdapter,
  writeTranscript
} from "./helpers.js"

const temps: Array<string> = []
afterAll(() => temps.forEach(removeDir))

const streamOf = (agent: string, root = FIXTURE_ROOT, cursor?: string) =>
  withAdapter(root, (a) => collect(a.stream(locatorOf(agent, root), { cursor })))

/** Byte offset of the start of each 1-based line of a file (line 1 after a BOM). */
const lineStarts = (path: string): Array<number> => {
  const bytes = fs.readFileSync(path)
  const starts = [0, bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0]
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10 && i + 1 < bytes.length) starts.push(i + 1)
  return starts
}

const decodeEvent = Schema.decodeUnknownSync(SessionEvent)

describe("stream muse-agents", () => {
  it.effect("messy lines: the five good records, with line numbers, offsets and normalized times", () =>
    Effect.gen(function*() {
      const events = yield* streamOf("messy")
      const starts = lineStarts(transcriptPath("messy"))
      events.forEach((e) => decodeEvent(e))
      expect(events.map((e) => [e.sequence, e.eventId, e.kind, e.role, e.toolName, e.toolCallId, e.text, e.occurredAt])).toEqual([
        [2, "line-2", "message", "user", null, null, "first line\u2028second line", "2025-03-02T08:00:01.000Z"],
        [7, "line-7", "message", "assistant", null, null, "broken \ud83d emoji", "2025-03-02T08:00:04.000Z"],
        [10, "line-10", "tool-call", "assistant", "Bash", "m1", "{\"command\":\"echo hi\"}", "2025-03-02T08:00:06.000Z"],
        [11, "line-11", "tool-result", null, null, "m1", "hi", "2025-03-02T08:00:07.000Z"],
        [12, "line-12", "message", "user", null, null, "para one\u2029para two", "2025-03-02T08:00:08.000Z"]
      ])
      for (const e of events) {
        expect(e).toMatchObject({ contractVersion: "1.3.0", provider: "muse-agents", sessionId: "sess-messy", model: null })
        expect(e.rawReference).toEqual({ locatorClass: "muse-agent-transcript", sequence: e.sequence, offset: starts[e.sequence] })
      }
      expect(events[2].extensions["native.muse-agents"]).toMatchObject({
        recordType: "item",
        itemType: "function_call",
        nativeName: "exec",
        input: { command: "echo hi" },
        seq: 6,
        source: "runtime"
      })
      expect(events[3].extensions["native.muse-agents"]).toMatchObject({ success: true, isError: false })
      // The typed fields (contract 1.1.0): the canonical input on the call, the outcome on the result.
      expect(events[2].toolInput).toEqual({ command: "echo hi" })
      expect(events[3].isError).toBe(false)
      expect(events.every((e) => e.usage === null && e.parent === null && e.child === null && e.responseId === null)).toBe(true)
      expect(events.filter((e) => e.kind !== "tool-call").every((e) => e.toolInput === null)).toBe(true)
    }))

  it.effect("cron-first: one event per item and compaction; header, developer and unknown lines yield none", () =>
    Effect.gen(function*() {
      const events = yield* streamOf("cron-first")
      expect(events.map((e) => `${e.sequence}:${e.kind}`)).toEqual([
        "2:message", "4:message", "5:message", "6:thinking", "7:tool-call", "8:tool-result", "9:tool-call",
        "10:tool-result", "11:tool-call", "12:tool-result", "13:tool-call", "14:tool-result", "15:summary",
        "16:message", "17:message", "18:message", "21:message", "22:tool-call", "23:tool-result", "24:tool-call"
      ])
      expect(events.filter((e) => e.kind === "tool-call").map((e) => e.toolName)).toEqual([
        "Bash", "Edit", "Write", "memory_search", "Read", "subagent.spawn"
      ])
      expect(events.find((e) => e.sequence === 10)!.extensions["native.muse-agents"]).toMatchObject({ success: false, isError: true })
      // Typed: the failed edit's result is an error, the others are not; the compaction's id and trigger; the Edit's canonical input.
      expect(events.filter((e) => e.kind === "tool-result").map((e) => [e.sequence, e.isError])).toEqual([
        [8, false], [10, true], [12, false], [14, null], [23, false] // line 14 has no `success`: not said
      ])
      expect(events.find((e) => e.sequence === 15)!.compaction).toEqual({ id: "cmp-1", trigger: "auto" })
      expect(events.find((e) => e.sequence === 9)!.toolInput).toEqual({
        file_path: "test/login.test.ts",
        old_string: "await login()",
        new_string: "await login({ wait: true })"
      })
      expect(events.find((e) => e.sequence === 4)!.text).toBe("Feed update:\n3 new issues")
    }))

  for (const agent of ["cron-first", "messy", "delegate"]) {
    it.effect(`${agent}: resuming from every event k yields exactly the events after k`, () =>
      Effect.gen(function*() {
        const all = yield* streamOf(agent)
        expect(all.length).toBeGreaterThan(0)
        for (let k = 0; k < all.length; k++) {
          const rest = yield* streamOf(agent, FIXTURE_ROOT, all[k].cursor)
          expect(rest).toEqual(all.slice(k + 1))
        }
      }))
  }

  it.effect("a cursor of another source, a garbled cursor, and a cursor of a rewritten file are INVALID_CURSOR", () =>
    Effect.gen(function*() {
      const other = (yield* streamOf("delegate"))[0].cursor
      expect(yield* failureCode(streamOf("messy", FIXTURE_ROOT, other))).toBe("INVALID_CURSOR")
      expect(yield* failureCode(streamOf("messy", FIXTURE_ROOT, "c1.!!"))).toBe("INVALID_CURSOR")

      const root = copyFixtures()
      temps.push(nodePath.dirname(root))
      const events = yield* streamOf("delegate", root)
      const p = transcriptPath("delegate", root)
      // events[1] is line 3, the c1 call: rewrite that line in place (same length)
      expect(events[1].sequence).toBe(3)
      fs.writeFileSync(p, fs.readFileSync(p, "utf8").replaceAll("\"call_id\":\"c1\"", "\"call_id\":\"c9\""))
      expect(yield* failureCode(streamOf("delegate", root, events[1].cursor))).toBe("INVALID_CURSOR")
      fs.writeFileSync(p, jl({ type: "session_header", session_id: "sess-delegate" }))
      expect(yield* failureCode(streamOf("delegate", root, events[3].cursor))).toBe("INVALID_CURSOR")
    }))

  it.effect("a torn last line completed later is read on resume, as a fresh read would number it", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      temps.push(nodePath.dirname(root))
      const before = yield* streamOf("messy", root)
      fs.appendFileSync(transcriptPath("messy", root), "t\"},\"created_at\":\"2025-03-02T08:00:09Z\"}\n")
      const resumed = yield* streamOf("messy", root, before[before.length - 1].cursor)
      expect(resumed.map((e) => [e.sequence, e.kind, e.role, e.text])).toEqual([[13, "message", "user", "this line was cut"]])
      const fresh = yield* streamOf("messy", root)
      expect(fresh).toEqual([...before, ...resumed])
    }))

  it.effect("a valid last line without a newline is emitted; after the writer appends, resume continues right after it", () =>
    Effect.gen(function*() {
      const root = nodePath.join(tempDir(), "agents")
      temps.push(nodePath.dirname(root))
      const p = writeTranscript(
        root,
        "live",
        jl({ type: "session_header", session_id: "s-live" }) +
          JSON.stringify({ type: "item", source: "runtime", item: { type: "message", role: "user", text: "one" } })
      )
      const first = yield* streamOf("live", root)
      expect(first.map((e) => [e.sequence, e.text])).toEqual([[2, "one"]])
      fs.appendFileSync(p, "\n" + jl({ type: "item", source: "runtime", item: { type: "message", role: "assistant", text: "two" } }))
      const resumed = yield* streamOf("live", root, first[0].cursor)
      const fresh = yield* streamOf("live", root)
      expect(resumed.map((e) => [e.sequence, e.text])).toEqual([[3, "two"]])
      expect(resumed).toEqual(fresh.slice(1))
    }))

  it.effect("a header-less file is not a session: MALFORMED_SOURCE", () =>
    Effect.gen(function*() {
      expect(yield* failureCode(streamOf("headless"))).toBe("MALFORMED_SOURCE")
    }))
})

describe("sources are read-only", () => {
  it.effect("every fixture file is byte-identical after discover, inspect, transcript and stream", () =>
    Effect.gen(function*() {
      const before = digestTree(nodePath.dirname(FIXTURE_ROOT))
      expect(Object.keys(before).length).toBeGreaterThanOrEqual(8)
      yield* withAdapter(FIXTURE_ROOT, (a) =>
        Effect.gen(function*() {
          yield* a.discover({})
          for (const agent of ["cron-first", "delegate", "messy", "quiet"]) {
            yield* a.inspect(locatorOf(agent))
            yield* a.transcript(locatorOf(agent))
            const events = yield* collect(a.stream(locatorOf(agent)))
            if (events.length > 0) yield* collect(a.stream(locatorOf(agent), { cursor: events[0].cursor }))
          }
          yield* Effect.either(a.transcript(locatorOf("headless")))
        }))
      expect(digestTree(nodePath.dirname(FIXTURE_ROOT))).toEqual(before)
    }))
})

describe("c1 cursors of the previous build", () => {
  it.effect("a c1 token printed for an unchanged transcript still resumes", () =>
    Effect.gen(function*() {
      const { createHash } = yield* Effect.promise(() => import("node:crypto"))
      const { decodeCursor } = yield* Effect.promise(() => import("../../src/domain/cursor.js"))
      const all = yield* streamOf("messy")
      const e = all[0]
      const state = decodeCursor(e.cursor, e.sourceId)
      if (state._tag !== "Right") throw new Error("undecodable")
      const s = state.right
      // What the previous build printed: c1 + base64url(JSON), h = sha256 of the line's bytes [ls, off), 32 hex.
      const bytes = fs.readFileSync(transcriptPath("messy")).subarray(s.ls!, s.off!)
      const c1 = "c1." + Buffer.from(JSON.stringify({ ...s, h: createHash("sha256").update(bytes).digest("hex").slice(0, 32) }))
        .toString("base64url")
      const resumed = yield* streamOf("messy", FIXTURE_ROOT, c1)
      expect(resumed.map((x) => x.eventId)).toEqual(all.slice(1).map((x) => x.eventId))
    }))
})
