/**
 * Properties of the export decoder and cursor (issue 2):
 * - any JSON value or byte string ends in events or a typed error, never a defect;
 * - for every k, streaming from the cursor of event k yields exactly the events after k;
 * - a cursor whose sequence was edited (past the end, onto a gap marker or a
 *   retained frame, onto another event) is INVALID_CURSOR, never a silent resume.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import { exitCodeOf } from "../../src/domain/errors.js"
import { decodeExport } from "../../src/domain/muse-code/export.js"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { collect } from "../support/run.js"

const valid = JSON.parse(fs.readFileSync(path.join(fixturesDir, "muse-code", "export", "orderly.json"), "utf8"))
const opts = { sourceId: "sha256:test", digest: "d", maxDepth: 64 }

const decodesOrFailsTyped = (bytes: Uint8Array) => {
  const r = decodeExport(bytes, opts)
  if (Either.isLeft(r)) expect(Object.keys(exitCodeOf)).toContain(r.left.code)
  else expect(Array.isArray(r.right.events)).toBe(true)
}

/** Replace the value at a random path of `doc` by `replacement`. */
const mutate = (doc: unknown, pathSeed: ReadonlyArray<number>, replacement: unknown): unknown => {
  const copy = structuredClone(doc)
  let cur: any = copy
  for (let i = 0; i < pathSeed.length; i++) {
    if (typeof cur !== "object" || cur === null) break
    const keys = Object.keys(cur)
    if (keys.length === 0) break
    const key = keys[pathSeed[i] % keys.length]
    if (i === pathSeed.length - 1 || typeof cur[key] !== "object" || cur[key] === null) {
      cur[key] = replacement
      break
    }
    cur = cur[key]
  }
  return copy
}

const SESSION = "prop-session"
const arbEvent = fc.oneof(
  fc.record({
    kind: fc.constant("record" as const),
    withStream: fc.boolean(),
    stream: fc.constantFrom("stream-a", "stream-b"),
    kindInPayload: fc.option(fc.constantFrom("proposed", "completed"), { nil: undefined }),
    recordedAt: fc.oneof(fc.integer({ min: 1_000_000_000_000_000, max: 1_900_000_000_000_000 }), fc.constant("2026-10-01T00:00:00Z"))
  }),
  fc.constant({ kind: "gap" as const }),
  fc.constant({ kind: "retained_frame" as const })
)
const arbDoc = fc.array(arbEvent, { minLength: 0, maxLength: 25 }).map((evs) => ({
  export_schema_version: 1,
  sessions: [{ session_id: SESSION }],
  events: evs.map((e, i) =>
    e.kind === "gap"
      ? { kind: "gap", envelope: null }
      : e.kind === "retained_frame"
      ? { kind: "retained_frame", envelope: { retained_frame: "t", children: [], transaction_id: "x", content_sha256: "y" } }
      : {
        kind: "record",
        envelope: {
          sequence: i,
          payload_type: "fact.kind",
          recorded_at: e.recordedAt,
          payload: e.kindInPayload !== undefined ? { event: { kind: e.kindInPayload } } : {},
          ...(e.withStream ? { stream: { kind: "session", id: e.stream } } : {})
        }
      }
  )
}))

const scratch = tempDir()
let n = 0

layer(App.layer({ workspaceRoots: [scratch] }))("export properties", (it) => {
  it.prop("any JSON value ends in events or a typed error", [fc.jsonValue({ maxDepth: 6 })], ([v]) => {
    decodesOrFailsTyped(Buffer.from(JSON.stringify(v) ?? "null"))
  }, { fastCheck: { numRuns: 300 } })

  it.prop("any byte string ends in events or a typed error", [fc.uint8Array({ maxLength: 512 })], ([bytes]) => {
    decodesOrFailsTyped(bytes)
  }, { fastCheck: { numRuns: 300 } })

  it.prop(
    "a valid document with any subtree replaced ends in events or a typed error",
    [fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 4 })],
    ([seed, replacement]) => {
      decodesOrFailsTyped(Buffer.from(JSON.stringify(mutate(valid, seed, replacement))))
    },
    { fastCheck: { numRuns: 500 } }
  )

  it.effect.prop("for every k, the cursor of event k resumes with exactly the events after k", [arbDoc], ([doc]) =>
    Effect.gen(function*() {
      const file = path.join(scratch, `doc-${n++}.json`)
      fs.writeFileSync(file, JSON.stringify(doc))
      const a = yield* Effect.flatMap(SessionSources, (r) => r.get("muse-code"))
      const loc = { locatorClass: "manual-export" as const, path: file }
      const events = yield* collect(a.stream(loc))
      const records = doc.events.filter((e) => e.kind === "record").length
      expect(events.length).toBe(records)
      for (const e of events) {
        const raw = doc.events[e.sequence] as any
        expect(raw.kind).toBe("record")
        expect(e.sessionId).toBe(raw.envelope.stream?.id ?? SESSION)
      }
      for (let k = 0; k < events.length; k++) {
        const rest = yield* collect(a.stream(loc, { cursor: events[k].cursor }))
        expect(rest).toEqual(events.slice(k + 1))
      }
    }), { fastCheck: { numRuns: 40 } })

  it.effect.prop(
    "any edit of a cursor's sequence is INVALID_CURSOR",
    [arbDoc.filter((d) => d.events.some((e) => e.kind === "record")), fc.nat(), fc.nat({ max: 40 })],
    ([doc, pick, to]) =>
      Effect.gen(function*() {
        const file = path.join(scratch, `doc-${n++}.json`)
        fs.writeFileSync(file, JSON.stringify(doc))
        const a = yield* Effect.flatMap(SessionSources, (r) => r.get("muse-code"))
        const loc = { locatorClass: "manual-export" as const, path: file }
        const events = yield* collect(a.stream(loc))
        const e = events[pick % events.length]
        const fields = e.cursor.split(".")
        expect(fields[0]).toBe("c2")
        // c2.<tag>.<seq>.…: the sequence in base 36
        const seq = to === e.sequence ? to + 1 : to
        fields[2] = seq.toString(36)
        const r = yield* Effect.either(collect(a.stream(loc, { cursor: fields.join(".") })))
        expect(r._tag === "Left" ? r.left.code : `resumed with ${r.right.length} events`).toBe("INVALID_CURSOR")
      }),
    { fastCheck: { numRuns: 150 } }
  )
})
