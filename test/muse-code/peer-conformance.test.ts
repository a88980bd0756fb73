/**
 * Conformance over the peer project's Muse Code fixtures (read in place,
 * never copied): what the issue says each must give.
 */
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Locator } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { peerMuseCode, snapshotTree } from "../support/paths.js"
import { collect } from "../support/run.js"

const loc = (name: string): Locator => ({ locatorClass: "manual-export", path: path.join(peerMuseCode, name) })
const museCode = Effect.flatMap(SessionSources, (r) => r.get("muse-code"))
const streamOf = (name: string) => Effect.flatMap(museCode, (a) => collect(a.stream(loc(name))))
const inspectOf = (name: string) => Effect.flatMap(museCode, (a) => a.inspect(loc(name)))

layer(App.layer({ workspaceRoots: [peerMuseCode] }))("peer fixtures (../shared/peer-fixtures/muse-code)", (it) => {
  it.effect("valid-v1.json: 13 events, the first of kind proposed, inspect complete", () =>
    Effect.gen(function*() {
      const events = yield* streamOf("valid-v1.json")
      expect(events.length).toBe(13)
      expect(events[0].kind).toBe("proposed")
      expect(events.at(-1)!.kind).toBe("session.end")
      // no stream blocks: every event falls back to sessions[0].session_id
      expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set(["1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"]))
      expect(events.filter((e) => e.toolName !== null).map((e) => e.toolName)).toEqual(["read", "bash"])
      expect((yield* inspectOf("valid-v1.json")).status).toBe("complete")
    }))

  it.effect("multistream-v1.json: 4 events muse-seq-0/1/3/4, per-event stream ids, fallback on the last, ids distinct", () =>
    Effect.gen(function*() {
      const events = yield* streamOf("multistream-v1.json")
      expect(events.map((e) => e.eventId)).toEqual(["muse-seq-0", "muse-seq-1", "muse-seq-3", "muse-seq-4"])
      const n = events.map((e) => e.extensions["native.muse"] as Record<string, any>)
      expect(n.map((x) => x.attribution)).toEqual(["envelope", "envelope", "envelope", "fallback"])
      expect(events.every((e) => e.sessionId === "01a0d42e-4285-73b2-8145-c30f949c5bf8")).toBe(true)
      expect(n[1].subagentId).toBe("01a0d42f-2708-7550-9956-91434f3e3898")
      expect(n[1].childSessionId).toBe("01a0d42f-2711-73a2-a03c-757fa74b98fc")
      expect(n[1].subagentId).not.toBe(n[1].childSessionId)
      expect(n[1].spawnRole).toBe("file-creator-A")
      expect(n[1].agentPath).toBe("main/create-a-txt/1")
      expect(n[2].subagentSessionId).toBe("01a0d42f-2711-73a2-a03c-757fa74b98fc")
      expect(events.map((e) => e.sequence)).toEqual([0, 1, 3, 4])
    }))

  it.effect("live-1.4.0-v1.json: 11 events of one session, microsecond times converted, retained frame skipped", () =>
    Effect.gen(function*() {
      const events = yield* streamOf("live-1.4.0-v1.json")
      expect(events.length).toBe(11)
      expect(events.every((e) => e.sessionId === "00000000-0000-4000-8000-000000000001")).toBe(true)
      // 1790349213957005 µs → 2026-09-25T15:13:33.957005Z (worked out by hand in export.test.ts)
      expect(events[0].occurredAt).toBe("2026-09-25T15:13:33.957005Z")
      expect(events.every((e) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(e.occurredAt!))).toBe(true)
      expect(events[0].sequence).toBe(1) // raw index 0 is the retained frame
      expect(events.map((e) => (e.extensions["native.muse"] as any).causationId)[0]).toBeNull()
      expect(events.at(-1)!.kind).toBe("session.end")
      const i = yield* inspectOf("live-1.4.0-v1.json")
      expect(i.status).toBe("complete")
      expect(i.provenance.retainedFrames).toBe(1)
    }))

  it.effect("malformed.json fails MALFORMED_SOURCE; unknown-major.json fails UNKNOWN_SCHEMA_MAJOR", () =>
    Effect.gen(function*() {
      expect((yield* Effect.flip(streamOf("malformed.json"))).code).toBe("MALFORMED_SOURCE")
      expect((yield* Effect.flip(inspectOf("malformed.json"))).code).toBe("MALFORMED_SOURCE")
      expect((yield* Effect.flip(streamOf("unknown-major.json"))).code).toBe("UNKNOWN_SCHEMA_MAJOR")
      expect((yield* Effect.flip(inspectOf("unknown-major.json"))).code).toBe("UNKNOWN_SCHEMA_MAJOR")
    }))

  it.effect("the peer fixtures are byte-identical after reading", () =>
    Effect.gen(function*() {
      const before = snapshotTree(peerMuseCode)
      for (const f of ["valid-v1.json", "multistream-v1.json", "live-1.4.0-v1.json"]) yield* streamOf(f)
      expect(snapshotTree(peerMuseCode)).toEqual(before)
    }))
})
