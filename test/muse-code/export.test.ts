/**
 * The export rules of seed 001 ("Trajectory shape", "Preserved provenance",
 * "Multi-stream behavior"), one test per rule, on fixtures/muse-code/export/.
 *
 * orderly.json: session S = …aaaa with one accepted spawn; raw events
 *  0 proposed (event.kind)            5 retained_frame (skipped)
 *  1 side_effect_intent tool:bash µs  6 subagent.control.child_session_bound
 *  2 gap marker (envelope null)       7 subagent.control.start_attested
 *  3 decision_applied (+02:00 time)   8 subagent.control.result on stream …bbbb
 *  4 approval_wait.effect.terminal    9 session.end without a stream block
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Locator, SessionEvent } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { fixturesDir, snapshotTree, tempDir } from "../support/paths.js"
import { collect } from "../support/run.js"

const exportDir = path.join(fixturesDir, "muse-code", "export")
const orderly: Locator = { locatorClass: "manual-export", path: path.join(exportDir, "orderly.json") }
const abnormal: Locator = { locatorClass: "manual-export", path: path.join(exportDir, "abnormal.json") }
const S = "5f1e0c2a-0000-4000-8000-00000000aaaa"
const OTHER = "5f1e0c2a-0000-4000-8000-00000000bbbb"
const SUB = "01b0d42f-2708-7550-9956-000000000001"
const CHILD = "01b0d42f-2711-73a2-a03c-000000000002"

const museCode = Effect.flatMap(SessionSources, (r) => r.get("muse-code"))
const streamAll = (locator: Locator, cursor?: string) =>
  Effect.flatMap(museCode, (a) => collect(a.stream(locator, { cursor })))
const native = (e: SessionEvent) => e.extensions["native.muse"] as Record<string, any>
const bySeq = (events: ReadonlyArray<SessionEvent>, seq: number) => events.find((e) => e.sequence === seq)!

const scratch = tempDir()
const write = (name: string, content: string) => {
  const p = path.join(scratch, name)
  fs.writeFileSync(p, content)
  return { locatorClass: "manual-export" as const, path: p }
}
const validDoc = JSON.parse(fs.readFileSync(orderly.path, "utf8"))

layer(App.layer({ workspaceRoots: [fixturesDir, scratch] }))("muse-code manual-export", (it) => {
  it.effect("gap markers and retained frames are skipped, never fabricated, but keep their raw index", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      expect(events.map((e) => e.sequence)).toEqual([0, 1, 3, 4, 6, 7, 8, 9])
      expect(events.map((e) => e.eventId)).toEqual([
        "muse-seq-0",
        "muse-seq-1",
        "muse-seq-3",
        "muse-seq-4",
        "muse-seq-6",
        "muse-seq-7",
        "muse-seq-8",
        "muse-seq-9"
      ])
      expect(events.every((e) => e.provider === "muse-code" && e.contractVersion === "1.3.0")).toBe(true)
      expect(events.every((e) => e.rawReference.locatorClass === "manual-export")).toBe(true)
    }))

  it.effect("the effective kind is payload.event.kind, else payload_type", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      expect(events.map((e) => e.kind)).toEqual([
        "proposed",
        "side_effect_intent",
        "decision_applied",
        "approval_wait.effect.terminal",
        "subagent.control.child_session_bound",
        "subagent.control.start_attested",
        "subagent.control.result",
        "session.end"
      ])
    }))

  it.effect("events are attributed to envelope.stream.id, falling back to sessions[0] only without a stream block", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      expect(bySeq(events, 8).sessionId).toBe(OTHER)
      expect(native(bySeq(events, 8)).attribution).toBe("envelope")
      expect(bySeq(events, 9).sessionId).toBe(S)
      expect(native(bySeq(events, 9)).attribution).toBe("fallback")
      expect(native(bySeq(events, 9)).stream).toBeNull()
      expect(events.filter((e) => e.sessionId === S).length).toBe(7)
    }))

  it.effect("recorded_at in epoch microseconds or RFC 3339 is emitted as RFC 3339 UTC", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      // 1790856001250375 µs = 1790856001 s = day 20727 (2026-10-01) + 43201 s (12:00:01), .250375
      expect(bySeq(events, 1).occurredAt).toBe("2026-10-01T12:00:01.250375Z")
      expect(native(bySeq(events, 1)).recordedAt).toBe(1790856001250375)
      // 14:00:02.5 at +02:00 is 12:00:02.500 UTC
      expect(bySeq(events, 3).occurredAt).toBe("2026-10-01T12:00:02.500Z")
      expect(bySeq(events, 0).occurredAt).toBe("2026-10-01T12:00:00.000Z")
      // 1790856009000000 µs = 8 s after 12:00:01
      expect(bySeq(events, 9).occurredAt).toBe("2026-10-01T12:00:09.000000Z")
    }))

  it.effect("causation_id is kept as a string or null", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      expect(native(bySeq(events, 0)).causationId).toBeNull()
      expect(native(bySeq(events, 1)).causationId).toBe("env-0000")
      expect(native(bySeq(events, 3)).causationId).toBe("env-0001")
    }))

  it.effect("the tool name comes from operation \"tool:<name>\"", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      expect(bySeq(events, 1).toolName).toBe("bash")
      expect(native(bySeq(events, 1)).operation).toBe("tool:bash")
      expect(events.filter((e) => e.toolName !== null).length).toBe(1)
    }))

  it.effect("approval, decision and outcome provenance is preserved under extensions[\"native.muse\"]", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      expect(native(bySeq(events, 1)).policyDecision).toBe("allow:policy")
      expect(native(bySeq(events, 1)).pendingActionId).toBe("act-1")
      const d = native(bySeq(events, 3))
      expect(d.decision).toBe("approved")
      expect(d.policyResult).toBe("allow")
      expect(d.decisionSource).toEqual({
        kind: "llm_judge",
        prompt_version: 1,
        params_version: 2,
        context_digest: "sha256:" + "ab".repeat(32)
      })
      expect(native(bySeq(events, 4)).outcome).toBe("approved")
    }))

  it.effect("document-level provenance rides on every event", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      for (const e of events) {
        expect(native(e).document).toEqual({
          exportSchemaVersion: 1,
          redaction: "raw",
          exporterVersion: "Muse Code 1.4.0 (fixture)",
          sessionBuild: "Muse Code 1.4.0 (fixture)",
          terminatedAbnormally: false,
          diagnostics: { duplicate_records: 0, gaps: 1, omitted_live_only: 1, unknown_payload_kinds: 0, unparseable_lines: 0 }
        })
      }
    }))

  it.effect("subagent identities stay distinct: spawn handle, child session, attested session, source session, role, path", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      const bound = native(bySeq(events, 6))
      expect(bound.subagentId).toBe(SUB)
      expect(bound.childSessionId).toBe(CHILD)
      expect(bound.childSessionId).not.toBe(bound.subagentId)
      expect(bound.spawnRole).toBe("script-tidier")
      expect(bound.agentPath).toBe("main/tidy-build/1")
      const attested = native(bySeq(events, 7))
      expect(attested.subagentSessionId).toBe(CHILD)
      expect(attested.childSessionId).toBeUndefined()
      expect(native(bySeq(events, 8)).sourceSessionId).toBe(CHILD)
      expect(native(bySeq(events, 0)).subagentId).toBeUndefined()
    }))

  it.effect("inspect: an orderly export is complete; gap markers and frames are counted", () =>
    Effect.gen(function*() {
      const i = yield* Effect.flatMap(museCode, (a) => a.inspect(orderly))
      expect(i.status).toBe("complete")
      expect(i.eventCount).toBe(8)
      expect(i.provenance.gapMarkers).toBe(1)
      expect(i.provenance.retainedFrames).toBe(1)
      expect(i.provenance.rawEventCount).toBe(10)
      expect(i.sessions.map((s) => s.sessionId)).toEqual([S, OTHER])
      expect(i.firstEventAt).toBe("2026-10-01T12:00:00.000Z")
      expect(i.lastEventAt).toBe("2026-10-01T12:00:09.000000Z")
    }))

  it.effect("inspect: session_terminated_abnormally makes the trajectory provisional", () =>
    Effect.gen(function*() {
      const i = yield* Effect.flatMap(museCode, (a) => a.inspect(abnormal))
      expect(i.status).toBe("provisional")
      expect(i.diagnostics.map((d) => d.code)).toContain("TERMINATED_ABNORMALLY")
    }))

  it.effect("a cursor taken from any event resumes exactly after it", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      for (let k = 0; k < events.length; k++) {
        const rest = yield* streamAll(orderly, events[k].cursor)
        expect(rest.map((e) => e.eventId)).toEqual(events.slice(k + 1).map((e) => e.eventId))
      }
    }))

  it.effect("a cursor of another source, a garbled cursor, or one of a changed document is INVALID_CURSOR", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      const other = yield* streamAll(abnormal)
      expect((yield* Effect.flip(streamAll(orderly, other[0].cursor))).code).toBe("INVALID_CURSOR")
      expect((yield* Effect.flip(streamAll(orderly, "not-a-cursor"))).code).toBe("INVALID_CURSOR")
      expect((yield* Effect.flip(streamAll(orderly, "c1.!!!"))).code).toBe("INVALID_CURSOR")
      const copy = write("changing.json", JSON.stringify(validDoc))
      const first = yield* streamAll(copy)
      fs.writeFileSync(copy.path, JSON.stringify({ ...validDoc, redaction: "redacted" }))
      expect((yield* Effect.flip(streamAll(copy, first[0].cursor))).code).toBe("INVALID_CURSOR")
      expect(events.length).toBe(8)
    }))

  it.effect("an export cursor binds its event: without that check, or with its sequence moved onto a gap marker, it is INVALID_CURSOR", () =>
    Effect.gen(function*() {
      const events = yield* streamAll(orderly)
      const fields = events[0].cursor.split(".")
      // c2.<tag>.<seq>.<off>.<ls>.<sub>.<h>.<hd>.<x>: an earlier build's token had no event check (hd)
      const unbound = [...fields.slice(0, 7), "", fields[8]].join(".")
      const outcome = (cursor: string) =>
        Effect.map(Effect.either(streamAll(orderly, cursor)), (r) => (r._tag === "Left" ? r.left.code : `resumed with ${r.right.length} events`))
      expect(yield* outcome(unbound)).toBe("INVALID_CURSOR")
      // every raw position that is not an event (gap markers, frames, past the end)
      const places = new Set(events.map((e) => e.sequence))
      const last = events[events.length - 1].sequence
      for (let seq = 0; seq <= last + 3; seq++) {
        if (places.has(seq)) continue
        const moved = [...fields.slice(0, 2), seq.toString(36), ...fields.slice(3)].join(".")
        expect(yield* outcome(moved)).toBe("INVALID_CURSOR")
      }
    }))

  it.effect("an unsupported locator class is UNSUPPORTED_OPERATION", () =>
    Effect.gen(function*() {
      const a = yield* museCode
      const e = yield* Effect.flip(a.inspect({ locatorClass: "muse-agent-transcript", path: orderly.path }))
      expect(e.code).toBe("UNSUPPORTED_OPERATION")
      const s = yield* Effect.flip(collect(a.stream({ locatorClass: "agentmux-agent-record", path: orderly.path })))
      expect(s.code).toBe("UNSUPPORTED_OPERATION")
    }))

  it.effect("discover without an authorized --muse-root is UNSUPPORTED_OPERATION with a remediation", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(Effect.flatMap(museCode, (a) => a.discover({})))
      expect(e.code).toBe("UNSUPPORTED_OPERATION")
      expect(e.remediation).toMatch(/--muse-root/)
      expect(e.remediation).toMatch(/explicitly|inspect\/stream/)
    }))

  describe("the schema-major gate and the document shape", () => {
    const cases: Array<[string, string, string]> = [
      ["a major other than 1", JSON.stringify({ ...validDoc, export_schema_version: 2 }), "UNKNOWN_SCHEMA_MAJOR"],
      ["major 0", JSON.stringify({ ...validDoc, export_schema_version: 0 }), "UNKNOWN_SCHEMA_MAJOR"],
      // an integer past 2^53 is still a major this build does not read, not a malformed document
      ["a huge major", JSON.stringify({ ...validDoc, export_schema_version: 1 }).replace(`"export_schema_version":1`, `"export_schema_version":1e30`), "UNKNOWN_SCHEMA_MAJOR"],
      ["a major past 2^53", JSON.stringify({ ...validDoc, export_schema_version: 1 }).replace(`"export_schema_version":1`, `"export_schema_version":9007199254740993`), "UNKNOWN_SCHEMA_MAJOR"],
      ["a negative major", JSON.stringify({ ...validDoc, export_schema_version: -1 }), "UNKNOWN_SCHEMA_MAJOR"],
      ["an infinite major", JSON.stringify({ ...validDoc, export_schema_version: 1 }).replace(`"export_schema_version":1`, `"export_schema_version":1e400`), "MALFORMED_SOURCE"],
      ["a missing version", JSON.stringify({ ...validDoc, export_schema_version: undefined }), "MALFORMED_SOURCE"],
      ["a string version", JSON.stringify({ ...validDoc, export_schema_version: "1" }), "MALFORMED_SOURCE"],
      ["a fractional version", JSON.stringify({ ...validDoc, export_schema_version: 1.5 }), "MALFORMED_SOURCE"],
      ["non-JSON", "{\"export_schema_version\": 1, ", "MALFORMED_SOURCE"],
      ["an empty file", "", "MALFORMED_SOURCE"],
      ["a JSON array", "[1,2,3]", "MALFORMED_SOURCE"],
      ["null", "null", "MALFORMED_SOURCE"],
      ["no sessions", JSON.stringify({ ...validDoc, sessions: undefined }), "MALFORMED_SOURCE"],
      ["empty sessions", JSON.stringify({ ...validDoc, sessions: [] }), "MALFORMED_SOURCE"],
      ["no events array", JSON.stringify({ ...validDoc, events: {} }), "MALFORMED_SOURCE"],
      [
        "a record without a sequence",
        JSON.stringify({ ...validDoc, events: [{ kind: "record", envelope: { payload_type: "x", payload: {} } }] }),
        "MALFORMED_SOURCE"
      ],
      [
        "a recorded_at without a zone",
        JSON.stringify({
          ...validDoc,
          events: [{ kind: "record", envelope: { sequence: 0, payload_type: "x", recorded_at: "2026-10-01T12:00:00" } }]
        }),
        "MALFORMED_SOURCE"
      ],
      [
        "an unknown event kind",
        JSON.stringify({ ...validDoc, events: [{ kind: "mystery", envelope: { sequence: 0, payload_type: "x" } }] }),
        "MALFORMED_SOURCE"
      ],
      [
        // Effect's Union decoder reads the discriminating `kind` with String(...), which throws for this object.
        "an event kind that is an object with its own toString",
        JSON.stringify({ ...validDoc, events: [{ kind: { toString: 0 }, envelope: { sequence: 0, payload_type: "x" } }] }),
        "MALFORMED_SOURCE"
      ],
      [
        "a stream block without an id",
        JSON.stringify({
          ...validDoc,
          events: [{ kind: "record", envelope: { sequence: 0, payload_type: "x", stream: { kind: "session" } } }]
        }),
        "MALFORMED_SOURCE"
      ],
      [
        "a sequence beyond 2^53",
        `{"export_schema_version":1,"sessions":[{"session_id":"s"}],"events":[{"kind":"record","envelope":{"sequence":9007199254740993,"payload_type":"x"}}]}`,
        "MALFORMED_SOURCE"
      ],
      ["nesting deeper than 64 levels", JSON.stringify({ ...validDoc, deep: JSON.parse("[".repeat(70) + "]".repeat(70)) }), "RESOURCE_LIMIT_EXCEEDED"],
      ["invalid UTF-8", Buffer.from([0x7b, 0xff, 0x7d]).toString("latin1"), "MALFORMED_SOURCE"]
    ]
    cases.forEach(([name, content, code], n) => {
      it.effect(`${name} → ${code}`, () =>
        Effect.gen(function*() {
          const loc = write(`case-${n}.json`, "")
          fs.writeFileSync(loc.path, name === "invalid UTF-8" ? Buffer.from([0x7b, 0xff, 0x7d]) : content)
          const a = yield* museCode
          expect((yield* Effect.flip(a.inspect(loc))).code).toBe(code)
          expect((yield* Effect.flip(collect(a.stream(loc)))).code).toBe(code)
        }))
    })
  })

  it.effect("reading never changes a byte of the sources", () =>
    Effect.gen(function*() {
      const before = snapshotTree(exportDir)
      yield* streamAll(orderly)
      yield* Effect.flatMap(museCode, (a) => a.inspect(abnormal))
      expect(snapshotTree(exportDir)).toEqual(before)
    }))

  it.effect("the stream is lazy: taking one event reads and emits one", () =>
    Effect.gen(function*() {
      const a = yield* museCode
      const one = yield* collect(Stream.take(a.stream(orderly), 1))
      expect(one.map((e) => e.eventId)).toEqual(["muse-seq-0"])
    }))
})

layer(App.layer({ workspaceRoots: [fixturesDir] }, { maxDocumentBytes: 1024 }))("import limits are a swappable layer", (it) => {
  it.effect("a document over maxDocumentBytes is RESOURCE_LIMIT_EXCEEDED", () =>
    Effect.gen(function*() {
      const e = yield* Effect.flip(Effect.flatMap(museCode, (a) => a.inspect(orderly)))
      expect(e.code).toBe("RESOURCE_LIMIT_EXCEEDED")
      expect(e.details).toMatchObject({ limit: "maxDocumentBytes", max: 1024 })
    }))
})
