/**
 * Native Muse Code import: inspect / stream of `session.jsonl` (seed 001,
 * "Native log root"; issue 3): the three line shapes, fail-closed parsing with
 * the torn-tail exception, import limits (not the discovery budget), access
 * rules, the peer fixture, and `--include-subagents`.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Locator, SessionEvent } from "../../src/domain/model.js"
import { makeSourceId } from "../../src/domain/source-id.js"
import type { MuseSourceInspection } from "../../src/layers/muse-code/discovery.js"
import type { SessionSourceAdapter } from "../../src/services/SessionSource.js"
import { peerMuseCode } from "../support/paths.js"
import {
  adapterWith,
  bound,
  end,
  fileHash,
  filler,
  frame,
  jsonl,
  metadata,
  omission,
  opened,
  record,
  tempDir,
  writeLog
} from "./native-helpers.js"

const here = nodePath.dirname(fileURLToPath(import.meta.url))
const repo = nodePath.resolve(here, "../..")
const FIXTURES = nodePath.join(repo, "fixtures/muse-code/native")
const P = "22222222-2222-4222-8222-222222222222"
const C = "33333333-3333-4333-8333-333333333333"
const parentLog = nodePath.join(FIXTURES, `2026/09/25/${P}/session.jsonl`)
const childLog = nodePath.join(FIXTURES, `2026/09/25/${P}/subagent/${C}/session.jsonl`)
const tornLog = nodePath.join(FIXTURES, "2026/09/26/44444444-4444-4444-8444-444444444444/session.jsonl")
const badChildLog = nodePath.join(FIXTURES, "2026/09/26/55555555-5555-4555-8555-555555555555/session.jsonl")

/** The peer project's native fixture root: `../shared/peer-fixtures/muse-code/native` beside the checkout. */
const peerRoot = nodePath.join(peerMuseCode, "native")
const PEER_ID = "00000000-0000-4000-8000-000000000002"
const peerLog = nodePath.join(peerRoot, `2026/09/25/${PEER_ID}/session.jsonl`)

const native = (path: string): Locator => ({ locatorClass: "muse-native-session-log", path })
const collect = (s: Stream.Stream<SessionEvent, unknown>) => Effect.map(Stream.runCollect(s), Chunk.toArray)
const nm = (e: SessionEvent) => e.extensions["native.muse"] as Record<string, any>
const fixtureAdapter = adapterWith({ policy: { workspaceRoots: [repo], museRoots: [FIXTURES] } })

describe("the peer project's native fixture", () => {
  const adapter = adapterWith({ policy: { workspaceRoots: [repo], museRoots: [peerRoot] } })

  it.effect("inspects complete: 14 events, 1 omitted record, 1 retained frame, 2 children", () =>
    Effect.gen(function*() {
      const before = fileHash(peerLog)
      const i = yield* (yield* adapter).inspect(native(peerLog))
      expect(i.status).toBe("complete")
      expect(i.eventCount).toBe(14)
      expect(i.sessions).toEqual([{ sessionId: PEER_ID, eventCount: 14 }])
      const diag = Object.fromEntries(i.diagnostics.map((d) => [d.code, d.details]))
      expect(diag.OMITTED_RECORDS_SKIPPED).toEqual({ count: 1 })
      expect(diag.RETAINED_FRAMES_DECODED).toEqual({ frames: 1, children: 2 })
      expect(i.provenance).toMatchObject({ omittedRecords: 1, retainedFrames: 1, retainedChildren: 2, sessionEnd: true })
      expect(fileHash(peerLog)).toBe(before)
    }))

  it.effect("streams 14 events, the first runtime.session.permission_format_declared from a retained child", () =>
    Effect.gen(function*() {
      const bytes = fs.readFileSync(peerLog)
      const events = yield* collect((yield* adapter).stream(native(peerLog)))
      expect(events).toHaveLength(14)
      const first = events[0]
      expect(first.kind).toBe("runtime.session.permission_format_declared")
      expect(first.eventId).toBe("muse-seq-1")
      expect(first.occurredAt).toBe("2026-09-25T15:13:33.894901Z")
      expect(first.rawReference).toEqual({ locatorClass: "muse-native-session-log", sequence: 0, offset: 0, childIndex: 0 })
      expect(nm(first).lineShape).toBe("retained-child")
      expect(nm(first).frame).toMatchObject({ transactionId: "e2cbe796-5426-4f13-8822-9167ca8ee520", childIndex: 0, childCount: 2 })
      expect(events[1].kind).toBe("runtime.session.permission_profile_committed")
      expect(events.map((e) => e.eventId)).toEqual(
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15].map((n) => `muse-seq-${n}`)
      )
      // item positions: two children, nine records, the omission marker's place (11) kept, three records
      expect(events.map((e) => e.sequence)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14])
      for (const e of events) {
        const off = e.rawReference.offset!
        expect(off === 0 || bytes[off - 1] === 10).toBe(true)
        expect(e.sessionId).toBe(PEER_ID)
        expect(e.sourceId).toBe(makeSourceId("muse-code", "muse-native-session-log", fs.realpathSync(peerLog)))
      }
      expect(events[13].kind).toBe("session.end")
      expect(events[13].rawReference.offset).toBe(bytes.lastIndexOf(10, bytes.length - 2) + 1)
    }))

  it.effect("discovery: its evidence is a redacted (relative) path, so with the whole log read it is a mismatch", () =>
    Effect.gen(function*() {
      const r = yield* (yield* adapter).discover({})
      const rc = r.receipts.museSourceInspections as ReadonlyArray<MuseSourceInspection>
      expect(rc).toHaveLength(1)
      expect(rc[0]).toMatchObject({
        outcome: "mismatch",
        recordsInspected: 14,
        childrenInspected: 2,
        bytesInspected: fs.statSync(peerLog).size,
        reachedEof: true
      })
      expect(r.sources).toEqual([])
    }))
})

describe("own fixtures under fixtures/muse-code/native", () => {
  it.effect("a parent log: records, a retained frame, an omission marker, session.end", () =>
    Effect.gen(function*() {
      const a = yield* fixtureAdapter
      const i = yield* a.inspect(native(parentLog))
      expect([i.status, i.eventCount]).toEqual(["complete", 8])
      expect(i.provenance.childSessions).toEqual([{ childSessionId: C, subagentId: "spawn-handle-1", parentSessionId: P }])
      const events = yield* collect(a.stream(native(parentLog)))
      expect(events.map((e) => e.sequence)).toEqual([0, 1, 2, 3, 4, 5, 7, 8])
      expect(events.map((e) => e.eventId)).toEqual([1, 2, 3, 4, 5, 6, 8, 9].map((n) => `muse-seq-${n}`))
      expect(nm(events[1]).frame.transactionId).toBe("tx-parent-1")
      expect(events[1].rawReference.childIndex).toBe(1)
      expect(nm(events[5]).childSessionId).toBe(C)
      expect(nm(events[5]).subagentId).toBe("spawn-handle-1")
    }))

  it.effect("discover over the fixture root selects the three logs naming /workspace/demo, never the nested subagent log", () =>
    Effect.gen(function*() {
      const a = yield* adapterWith({ policy: { workspaceRoots: ["/workspace/demo"], museRoots: [FIXTURES] } })
      const r = yield* a.discover({})
      expect(r.sources.map((s) => s.sessionId).sort()).toEqual([P, "44444444-4444-4444-8444-444444444444", "55555555-5555-4555-8555-555555555555"])
      expect((r.receipts.museSourceInspections as Array<unknown>)).toHaveLength(3)
      expect([r.status, r.coverage]).toEqual(["checked", "complete"])
    }))

  it.effect("a torn last line without session.end is left out: provisional, and the diagnostics say so", () =>
    Effect.gen(function*() {
      const a = yield* fixtureAdapter
      const i = yield* a.inspect(native(tornLog))
      expect(i.status).toBe("provisional")
      expect(i.eventCount).toBe(3)
      expect(i.diagnostics.map((d) => d.code)).toEqual(["TORN_TAIL_LEFT_OUT", "NO_SESSION_END"])
      expect(i.provenance.tornTail).toBe(true)
      const events = yield* collect(a.stream(native(tornLog)))
      expect(events.map((e) => e.eventId)).toEqual(["muse-seq-1", "muse-seq-2", "muse-seq-3"])
    }))

  it.effect("a retained child that is not valid JSON fails MALFORMED_SOURCE (inspect and stream)", () =>
    Effect.gen(function*() {
      const a = yield* fixtureAdapter
      expect((yield* Effect.flip(a.inspect(native(badChildLog)))).code).toBe("MALFORMED_SOURCE")
      const e = yield* Effect.flip(collect(a.stream(native(badChildLog))))
      expect(e).toMatchObject({ code: "MALFORMED_SOURCE" })
      expect((e as { message: string }).message).toContain("retained child 1")
    }))
})

describe("a torn tail that completes", () => {
  it.effect("resuming from the last cursor yields the completed line, and the log then inspects complete", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const lines = [metadata(1, "/w"), filler(2), filler(3)]
      const full = JSON.stringify(filler(4))
      const p = writeLog(root, "2026/09/25", "grow", jsonl(lines, full.slice(0, 40)))
      const a = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] } })
      const first = yield* collect(a.stream(native(p)))
      expect(first).toHaveLength(3)
      fs.appendFileSync(p, full.slice(40) + "\n" + JSON.stringify(end(5)) + "\n")
      const rest = yield* collect(a.stream(native(p), { cursor: first[2].cursor }))
      expect(rest.map((e) => [e.eventId, e.sequence])).toEqual([["muse-seq-4", 3], ["muse-seq-5", 4]])
      expect((yield* a.inspect(native(p))).status).toBe("complete")
    }))
})

describe("fail closed", () => {
  const root = tempDir()
  const a = adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] } })
  const cases: Record<string, string> = {
    "not-json": jsonl([opened(1), "{nope", end(3)]),
    "blank-line": jsonl([opened(1), "", end(3)]),
    "not-an-object": jsonl([opened(1), "[1,2]", end(3)]),
    "not-an-envelope": jsonl([opened(1), { hello: "world" }, end(3)]),
    "child-not-an-envelope": jsonl([frame([opened(1), "{}"]), end(3)]),
    "child-out-of-order": jsonl([
      { ...frame([opened(1), filler(2)]), children: [{ child_index: 1, record_json: JSON.stringify(opened(1)) }] },
      end(3)
    ]),
    "frame-without-children": jsonl([{ retained_frame: "x", transaction_id: "t" }, end(3)]),
    "unknown-marker": jsonl([opened(1), { omitted_record: true, retained_marker: "something_else", sequence: 2 }, end(3)]),
    "bad-timestamp": jsonl([{ ...opened(1), recorded_at: "yesterday" }, end(3)]),
    "torn-after-end": jsonl([opened(1), end(2)], "{\"schema_version\":1"),
    "invalid-utf8": ""
  }
  for (const [name, text] of Object.entries(cases)) writeLog(root, "2026/09/25", name, text)
  fs.writeFileSync(
    nodePath.join(root, "2026/09/25/invalid-utf8/session.jsonl"),
    Buffer.concat([Buffer.from(jsonl([opened(1)])), Buffer.from([0xff, 0xfe, 0x7b, 0x7d, 0x0a])])
  )
  for (const name of Object.keys(cases)) {
    it.effect(`${name}: MALFORMED_SOURCE`, () =>
      Effect.gen(function*() {
        const p = nodePath.join(root, "2026/09/25", name, "session.jsonl")
        const adapter = yield* a
        expect((yield* Effect.flip(adapter.inspect(native(p)))).code).toBe("MALFORMED_SOURCE")
        expect(yield* Effect.flip(collect(adapter.stream(native(p))))).toMatchObject({ code: "MALFORMED_SOURCE" })
      }))
  }
})

describe("a tail zeroed in place (NUL bytes, what a power loss leaves) is not a torn tail", () => {
  const root = tempDir()
  const a = adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] } })
  const text = jsonl([metadata(1, "/w"), filler(2), filler(3), end(4)])
  // The last third of a complete log zeroed (its size kept), and a NUL run then the next line's bytes.
  const cut = text.length - Math.floor(text.length / 3)
  const cases: Record<string, Buffer> = {
    "zeroed-tail": Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.alloc(text.length - cut)]),
    "zeroed-before-a-line": Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.alloc(600), Buffer.from(text.slice(cut))])
  }
  for (const [name, bytes] of Object.entries(cases)) writeLog(root, "2026/09/25", name, bytes)
  for (const name of Object.keys(cases)) {
    it.effect(`${name}: MALFORMED_SOURCE naming the NUL bytes, not provisional`, () =>
      Effect.gen(function*() {
        const p = nodePath.join(root, "2026/09/25", name, "session.jsonl")
        const adapter = yield* a
        const e = yield* Effect.flip(adapter.inspect(native(p)))
        expect(e.code).toBe("MALFORMED_SOURCE")
        expect(e.message).toContain(`NUL bytes (from byte ${cut})`)
        expect(e.remediation).toMatch(/backup/)
        expect(yield* Effect.flip(collect(adapter.stream(native(p))))).toMatchObject({ code: "MALFORMED_SOURCE" })
      }))
  }
})

describe("import limits, not the discovery budget", () => {
  const root = tempDir()
  const many = writeLog(root, "2026/09/25", "many", jsonl([
    frame([opened(1), filler(2), filler(3)]),
    ...Array.from({ length: 30 }, (_, i) => filler(i + 4)),
    end(34)
  ]))
  let deep: unknown = 1
  for (let i = 0; i < 6; i++) deep = [deep]
  const deepLog = writeLog(root, "2026/09/25", "deep", jsonl([record(1, "x", { deep })]))
  const deepChild = writeLog(root, "2026/09/25", "deep-child", jsonl([frame([record(1, "x", { deep })])]))

  it.effect("a log far over a tiny discovery budget imports in full", () =>
    Effect.gen(function*() {
      const a = yield* adapterWith({
        policy: { workspaceRoots: [root], museRoots: [root] },
        budget: { maxOuterRecords: 2, maxRetainedChildren: 1, maxSourceBytes: 512, maxRecordBytes: 300, maxDepth: 2 }
      })
      const i = yield* a.inspect(native(many))
      expect([i.status, i.eventCount]).toEqual(["complete", 34])
      expect(yield* collect(a.stream(native(many)))).toHaveLength(34)
    }))

  it.effect("a line, a child or a nesting over the import limits fails RESOURCE_LIMIT_EXCEEDED", () =>
    Effect.gen(function*() {
      const small = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] }, limits: { maxRecordBytes: 300 } })
      expect((yield* Effect.flip(small.inspect(native(many)))).code).toBe("RESOURCE_LIMIT_EXCEEDED")
      const shallow = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] }, limits: { maxDepth: 6 } })
      expect((yield* Effect.flip(shallow.inspect(native(deepLog)))).code).toBe("RESOURCE_LIMIT_EXCEEDED")
      expect((yield* Effect.flip(shallow.inspect(native(deepChild)))).code).toBe("RESOURCE_LIMIT_EXCEEDED")
      const roomy = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] }, limits: { maxDepth: 9 } })
      expect((yield* roomy.inspect(native(deepChild))).eventCount).toBe(1)
    }))
})

describe("access", () => {
  const root = tempDir()
  const sessions = nodePath.join(root, "sessions")
  const p = writeLog(sessions, "2026/09/25", "s", jsonl([opened(1), end(2)]))
  const outside = writeLog(root, "elsewhere", "s", jsonl([opened(1), end(2)]))
  fs.symlinkSync(p, nodePath.join(sessions, "2026/09/25/link.jsonl"))

  const code = (adapter: SessionSourceAdapter, path: string) =>
    Effect.map(Effect.flip(adapter.inspect(native(path))), (e) => e.code)

  it.effect("native logs need an authorized --muse-root and are never reached through symlinks", () =>
    Effect.gen(function*() {
      const none = yield* adapterWith({ policy: { workspaceRoots: [root] } })
      expect(yield* code(none, p)).toBe("SOURCE_NOT_AUTHORIZED")
      const a = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [sessions] } })
      expect(yield* code(a, outside)).toBe("SOURCE_OUTSIDE_ALLOWED_ROOT")
      expect(yield* code(a, nodePath.join(sessions, "2026/09/25/link.jsonl"))).toBe("SOURCE_SYMLINK")
      expect((yield* a.inspect(native(p))).eventCount).toBe(2)
    }))
})

describe("--include-subagents", () => {
  it.effect("streams each bound nested log as its own stream after the parent, joined with provenance", () =>
    Effect.gen(function*() {
      const a = yield* fixtureAdapter
      const before = [parentLog, childLog].map(fileHash)
      const plain = yield* collect(a.stream(native(parentLog)))
      const all = yield* collect(a.stream(native(parentLog), { includeSubagents: true }))
      expect(plain).toHaveLength(8)
      expect(all.slice(0, 8)).toEqual(plain)
      const children = all.slice(8)
      expect(children.map((e) => e.eventId)).toEqual(["muse-seq-1", "muse-seq-2", "muse-seq-4", "muse-seq-5"])
      expect(children.map((e) => e.sequence)).toEqual([0, 1, 3, 4])
      const childId = makeSourceId("muse-code", "muse-native-session-log", fs.realpathSync(childLog))
      for (const e of children) {
        expect(e.sessionId).toBe(C)
        expect(e.sourceId).toBe(childId)
        expect(nm(e).parent).toEqual({
          sessionId: P,
          sourceId: plain[0].sourceId,
          subagentId: "spawn-handle-1",
          childSessionId: C,
          bindingEventId: "muse-seq-6"
        })
        // The typed link (contract 1.1.0): the parent session, the binding event, the spawn handle; no tool call.
        expect(e.parent).toEqual({ sessionId: P, toolCallId: null, eventId: "muse-seq-6", subagentId: "spawn-handle-1" })
      }
      // The parent's binding record names its child, the child session and the spawn handle kept distinct (seed 001).
      const binding = plain.find((e) => e.eventId === "muse-seq-6")!
      expect(binding.child).toEqual({ sessionId: C, subagentId: "spawn-handle-1" })
      expect(plain.filter((e) => e.child !== null).map((e) => e.eventId)).toContain("muse-seq-6")
      expect(plain.every((e) => e.parent === null && e.usage === null && e.toolInput === null)).toBe(true)
      expect([parentLog, childLog].map(fileHash)).toEqual(before)
    }))

  it.effect("every cursor of the joined stream resumes right after its event", () =>
    Effect.gen(function*() {
      const a = yield* fixtureAdapter
      const all = yield* collect(a.stream(native(parentLog), { includeSubagents: true }))
      for (let k = 0; k < all.length; k++) {
        const rest = yield* collect(a.stream(native(parentLog), { includeSubagents: true, cursor: all[k].cursor }))
        expect(rest).toEqual(all.slice(k + 1))
      }
      // a child's cursor also resumes the child log streamed on its own
      const alone = yield* collect(a.stream(native(childLog)))
      const rest = yield* collect(a.stream(native(childLog), { cursor: all[9].cursor }))
      expect(rest.map((e) => e.eventId)).toEqual(alone.slice(2).map((e) => e.eventId))
      // but not the parent without --include-subagents
      expect((yield* Effect.flip(collect(a.stream(native(parentLog), { cursor: all[9].cursor }))))).toMatchObject({
        code: "INVALID_CURSOR"
      })
    }))

  it.effect("a bound child whose log is missing fails SOURCE_NOT_FOUND; a child id that is not a plain name fails MALFORMED_SOURCE", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const missing = writeLog(root, "2026/09/25", "p1", jsonl([opened(1), bound(2, "child-x", "h1"), end(3)]))
      const climbing = writeLog(root, "2026/09/25", "p2", jsonl([opened(1), bound(2, "../p1", "h1"), end(3)]))
      const a = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] } })
      const e1 = yield* Effect.flip(collect(a.stream(native(missing), { includeSubagents: true })))
      expect(e1).toMatchObject({ code: "SOURCE_NOT_FOUND" })
      // named as the nested log of the log given, not as if it were the source
      expect((e1 as { message: string }).message).toMatch(/^The nested subagent log of child session child-x .* is missing/)
      expect((e1 as { message: string }).message).toContain(missing)
      // a caller that takes diagnostics gets the log's own events and a NESTED_LOG_MISSING
      const seen: Array<string> = []
      const own = yield* collect(a.stream(native(missing), { includeSubagents: true, onDiagnostic: (d) => seen.push(d.code) }))
      expect([own.length, seen]).toEqual([3, ["NESTED_LOG_MISSING"]])
      const e2 = yield* Effect.flip(collect(a.stream(native(climbing), { includeSubagents: true })))
      expect(e2).toMatchObject({ code: "MALFORMED_SOURCE" })
      // without --include-subagents no nested log is opened, so neither matters
      expect(yield* collect(a.stream(native(missing)))).toHaveLength(3)
      expect(yield* collect(a.stream(native(climbing)))).toHaveLength(3)
    }))
})
