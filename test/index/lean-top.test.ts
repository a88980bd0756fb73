/**
 * `leanEvent` walks an event of the contract's key layout (every key of
 * `SessionEvent`, in the schema's order, each with a value: what every mapper
 * makes) with a shorter walk of its signature trie (`leanTop` in
 * `src/layers/index/rows.ts`, session 40, issue 13: the first import): the
 * top-level null keys as one bit mask, a word or object key as one token
 * named by its key. Its answers must be the key-by-key walk's
 * (`leanEventByKeys`), byte for byte, body and shape, whatever came before
 * (each walk caches its shapes by signature): over generated events of that
 * layout with hostile values (every typed field null or not, words and
 * non-words, plain and non-plain objects, `__proto__` keys, references into
 * `extensions`, a payload's carried text), under both options (the lean
 * stream's and the index's), and over what the adapters stream (the
 * benchmark's generated native log, the native fixtures, a Muse agents
 * transcript); Muse Code's events must have that layout (else the shorter
 * walk is never taken for them).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Stream from "effect/Stream"
import { CANONICAL_PAYLOAD } from "../../src/domain/json.js"
import { SessionEvent } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { eventOfRow, INDEX_LEAN, type LeanOptions, leanEvent, leanEventByKeys, leanEventParts, shapePlan } from "../../src/layers/index/rows.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { writeNativeLog } from "../../bench/generate/native.js"
import { writeAgentsTranscript } from "../../bench/generate/agents.js"

const KEYS = Object.keys(SessionEvent.fields)

/** The events whose lean form (shape or body) differs between the two walks, under `options`: their indexes. */
const differing = (events: ReadonlyArray<SessionEvent>, options: LeanOptions | undefined): Array<number> => {
  const out: Array<number> = []
  events.forEach((e, i) => {
    const a = leanEvent(e, options)
    const b = leanEventByKeys(e, options)
    if (a?.shape !== b?.shape || a?.body !== b?.body) out.push(i)
    if (options === undefined) {
      // the lean stream's parts take the same walk: joined, the same body
      const p = leanEventParts(e)
      const joined = p === null ? null : p.body.head + (p.body.payload?.text ?? "") + p.body.tail
      if (p?.shape !== b?.shape || joined !== (b?.body ?? null)) out.push(i)
    }
  })
  return out
}

const MARK = "\u0000session-ingest:payload\u0000"
const hostileChar = fc.constantFrom(
  "\u0080", "\u2028", "\ud800", "\udfff", "\ufffd", "🎉", "é", "\u0000", "\n", "\t", "  ", "\"", "\\", " ", "a", "1", "-", "word", MARK
)
const hostileString = fc.array(fc.oneof(hostileChar, fc.string({ maxLength: 4, unit: "binary" })), { maxLength: 30 }).map((a) => a.join(""))
const key = fc.oneof(fc.constantFrom("a", "b", "0", "10", "payload", "__proto__", "text", "x y"), fc.string({ maxLength: 3 }))
const word = fc.constantFrom(null, true, false, "durable", "tool-call", "assistant", "a.b:c_d-e", "")
const leaf = fc.oneof(hostileString, word, fc.double(), fc.constantFrom(-0, 1e21, 5e-324, 9007199254740993, -1, 0))
/** Through JSON, so a `__proto__` key is an own key, as JSON.parse makes it. */
const objectOf = (kvs: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> =>
  JSON.parse(`{${kvs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`).join(",")}}`)
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("v"), { maxLength: 3 }),
    fc.array(fc.tuple(key, tie("v")), { maxLength: 3 }).map(objectOf)
  )
})).v
/** A typed field's value: null (most often), a word, a hostile string, a number, an array, or an object (plain, maybe with `__proto__`). */
const field = fc.oneof(
  { arbitrary: fc.constant(null), weight: 4 },
  { arbitrary: word, weight: 2 },
  { arbitrary: hostileString, weight: 1 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: fc.array(leaf, { maxLength: 2 }), weight: 1 },
  { arbitrary: fc.array(fc.tuple(key, leaf), { maxLength: 3 }).map(objectOf), weight: 2 }
)

const spec = fc.record({
  contractVersion: fc.constantFrom<unknown>("1.3.0", "1.3.0", "1.2.0", 7),
  provider: fc.constantFrom<unknown>("muse-code", "claude-code", "muse-agents", null),
  sequence: fc.constantFrom<unknown>(0, 1, 41, 1.5, 2 ** 60),
  kind: fc.constantFrom<unknown>("message", "tool-call", "runtime.session", "k \u2028", 3),
  occurredAt: fc.constantFrom<unknown>(null, "2026-09-25T15:13:36.691Z", "not a time", 5),
  eventId: fc.oneof(fc.constant<unknown>("muse-seq-1"), field),
  role: field,
  toolName: field,
  toolCallId: field,
  model: field,
  text: fc.option(hostileString, { nil: null }),
  cursor: fc.oneof(fc.constant<unknown>("c2.abc"), field),
  rawReference: fc.oneof(fc.constant<unknown>({ locatorClass: "muse-native-session-log", sequence: 3, offset: 10 }), field),
  extensions: fc.constantFrom("native", "two", "empty", "number", "proto"),
  ns: fc.dictionary(key, value, { maxKeys: 4 }).map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>),
  payload: fc.option(fc.dictionary(key, value, { maxKeys: 3 }).map((o) => JSON.parse(JSON.stringify(o)) as unknown), { nil: undefined }),
  canonical: fc.constantFrom("yes", "no", "stale"),
  restate: fc.constantFrom("none", "text", "textOneLine", "toolInput", "toolInputText"),
  toolInput: field,
  isError: fc.oneof(fc.boolean(), field),
  compaction: field,
  parent: field,
  child: field,
  usage: field,
  responseId: field,
  costUsd: field
})
type Spec = typeof spec extends fc.Arbitrary<infer T> ? T : never

/** The events of `specs`, each with every key of the contract, in the schema's order. */
const eventsOf = (specs: ReadonlyArray<Spec>): Array<SessionEvent> =>
  specs.map((s) => {
    const ns: Record<string, unknown> = { envelopeId: "e", durability: "durable", ...s.ns }
    if (s.payload !== undefined) ns.payload = s.payload
    const long = `${s.text ?? ""} restated   text\n\nthat is long enough to be a reference`
    if (s.restate !== "none") ns.output = long
    const input = { command: `ls ${s.text ?? ""} -la and more words here` }
    if (s.restate === "toolInputText") ns.input = input
    const extensions = s.extensions === "native"
      ? { "native.muse": ns }
      : s.extensions === "two"
      ? { "native.muse": ns, "native.other": s.ns, raw: "a raw value" }
      : s.extensions === "empty"
      ? {}
      : s.extensions === "number"
      ? 5
      : objectOf([["__proto__", 1], ["native.muse", ns]])
    const text = s.restate === "text"
      ? long
      : s.restate === "textOneLine"
      ? long.replace(/\s+/g, " ").trim()
      : s.restate === "toolInputText"
      ? JSON.stringify(input)
      : s.text
    // Every key of the contract, in its order (the layout the shorter walk takes).
    const e: Record<string, unknown> = {
      contractVersion: s.contractVersion,
      provider: s.provider,
      sourceId: "src",
      sessionId: "session",
      eventId: s.eventId,
      sequence: s.sequence,
      kind: s.kind,
      role: s.role,
      toolName: s.toolName,
      toolCallId: s.toolCallId,
      model: s.model,
      occurredAt: s.occurredAt,
      text,
      cursor: s.cursor,
      rawReference: s.rawReference,
      extensions,
      toolInput: s.restate === "toolInput" ? ns : s.toolInput,
      isError: s.isError,
      compaction: s.compaction,
      parent: s.parent,
      child: s.child,
      usage: s.usage,
      responseId: s.responseId,
      costUsd: s.costUsd
    }
    if (s.payload !== undefined && s.canonical !== "no") {
      // "stale": the text rides on the event, but the payload was replaced since (the writer must not use it)
      const v = s.canonical === "stale" ? { other: 1 } : s.payload
      Object.defineProperty(e, CANONICAL_PAYLOAD, { value: { value: v, text: JSON.stringify(v) } })
    }
    return e as unknown as SessionEvent
  })

describe("leanEvent's shorter walk of an event of the contract's layout answers what the key-by-key walk answers", () => {
  it("the generated events have the layout (the shorter walk is the one compared)", () => {
    for (const e of eventsOf(fc.sample(spec, { numRuns: 50, seed: 40 }))) expect(Object.keys(e)).toEqual(KEYS)
  })

  it("over generated hostile events, in sequences, under the lean stream's and the index's options", () => {
    fc.assert(
      fc.property(fc.array(spec, { minLength: 1, maxLength: 25 }), fc.boolean(), (specs, index) => {
        const events = eventsOf(specs)
        const options = index ? INDEX_LEAN : undefined
        expect(differing(events, options)).toEqual([])
        // and again, backwards: now every shape is known to both walks, met in another order
        expect(differing([...events].reverse(), options)).toEqual([])
      }),
      { numRuns: 800 }
    )
  })

  it("over events that differ from one another in one or two typed fields (signatures one token apart)", () => {
    const typed = ["eventId", "role", "toolName", "toolCallId", "model", "cursor", "rawReference", "toolInput", "isError", "compaction", "parent", "child", "usage", "responseId", "costUsd"] as const
    const change = fc.tuple(fc.constantFrom(...typed), field, fc.option(fc.tuple(fc.constantFrom(...typed), field), { nil: undefined }))
    fc.assert(
      fc.property(spec, fc.array(change, { minLength: 1, maxLength: 16 }), fc.boolean(), (base, changes, index) => {
        const specs: Array<Spec> = [base]
        for (const [k, v, more] of changes) specs.push(more === undefined ? { ...base, [k]: v } : { ...base, [k]: v, [more[0]]: more[1] })
        const events = eventsOf(specs)
        const options = index ? INDEX_LEAN : undefined
        expect(differing(events, options)).toEqual([])
        expect(differing([...events].reverse(), options)).toEqual([])
      }),
      { numRuns: 1500 }
    )
  })

  it("over events that swap a word, or a kept object, between two keys of one kind (the same tokens but for their keys)", () => {
    const words = ["role", "toolName", "isError"] as const
    const objects = ["rawReference", "compaction", "parent", "child", "usage"] as const
    const swap = fc.oneof(
      fc.tuple(fc.constantFrom(...words), fc.constantFrom(...words), word.filter((w) => w !== null), fc.oneof(hostileString.filter((x) => x.length > 32), fc.double())),
      fc.tuple(fc.constantFrom(...objects), fc.constantFrom(...objects), fc.array(fc.tuple(key, leaf), { maxLength: 3 }).map(objectOf), fc.oneof(hostileString, fc.double()))
    ).filter(([a, b]) => a !== b)
    fc.assert(
      fc.property(spec, swap, fc.boolean(), (base, [a, b, kept, other], index) => {
        const events = eventsOf([{ ...base, [a]: kept, [b]: other }, { ...base, [a]: other, [b]: kept }])
        const options = index ? INDEX_LEAN : undefined
        expect(differing(events, options)).toEqual([])
        expect(differing([...events].reverse(), options)).toEqual([])
      }),
      { numRuns: 500 }
    )
  })

  it("an event whose keys are another order, or that lacks one, or has one more, is walked key by key (the same answers)", () => {
    const [base] = eventsOf(fc.sample(spec, { numRuns: 1, seed: 7 }))
    const b = base as unknown as Record<string, unknown>
    const reordered = Object.fromEntries(Object.entries(b).reverse()) as unknown as SessionEvent
    const { usage: _usage, ...lacking } = b
    const extra = { ...b, more: [1, "x"] } as unknown as SessionEvent
    const undefinedValue = { ...b, model: undefined } as unknown as SessionEvent
    for (const e of [reordered, lacking as unknown as SessionEvent, extra]) expect(Object.keys(e)).not.toEqual(KEYS)
    for (const e of [reordered, lacking as unknown as SessionEvent, extra, undefinedValue]) expect(differing([e], INDEX_LEAN)).toEqual([])
    // a key left undefined is left out by both (as JSON leaves it out): the shape of the event without it
    expect(leanEvent(undefinedValue)?.shape).toBe(leanEventByKeys(Object.fromEntries(Object.entries(b).filter(([k]) => k !== "model")) as unknown as SessionEvent)?.shape)
  })

  it("each shape it writes rebuilds the event (eventOfRow), key order included", () => {
    const events = eventsOf(fc.sample(spec.filter((s) => s.contractVersion === "1.3.0" && typeof s.sequence === "number" && Number.isSafeInteger(s.sequence) && typeof s.kind === "string" && typeof s.provider === "string" && (s.occurredAt === null || typeof s.occurredAt === "string")), { numRuns: 300, seed: 5 }))
    let leaned = 0
    for (const e of events) {
      const l = leanEvent(e, INDEX_LEAN)
      if (l === null) continue
      leaned++
      const back = eventOfRow(shapePlan(l.shape), l.body, e, e)
      expect(JSON.stringify(back)).toBe(JSON.stringify(e))
    }
    expect(leaned).toBeGreaterThan(100)
  })

  it.effect("over what the adapters stream: a generated native log, the native fixtures, a Muse agents transcript (Muse Code's of the layout)", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const ws = path.join(root, "ws")
      fs.mkdirSync(ws)
      const museRoot = path.join(root, "muse")
      const generated = path.join(museRoot, "2026", "09", "25", "00000001-0000-4000-8000-000000000b16", "session.jsonl")
      writeNativeLog(generated, 1024 * 1024, ws)
      const agentsRoot = path.join(root, "agents")
      const transcript = writeAgentsTranscript(agentsRoot, "bench-agent", 1000).path
      const policy = {
        workspaceRoots: [ws, "/workspace/demo"],
        museRoots: [museRoot, path.join(fixturesDir, "muse-code/native")],
        agentsRoot,
        stateFile: path.join(root, "state.db")
      }
      const streamed = yield* Effect.gen(function*() {
        const registry = yield* SessionSources
        const muse = yield* registry.get("muse-code")
        const agents = yield* registry.get("muse-agents")
        const out: Array<Array<SessionEvent>> = []
        out.push(Chunk.toArray(yield* Stream.runCollect(muse.stream({ locatorClass: "muse-native-session-log", path: generated }, { includeSubagents: true }))))
        out.push(Chunk.toArray(yield* Stream.runCollect(agents.stream({ locatorClass: "muse-agent-transcript", path: transcript }))))
        for (const f of fs.readdirSync(path.join(fixturesDir, "muse-code/native"), { recursive: true }) as Array<string>) {
          if (!f.endsWith("session.jsonl")) continue
          const r = yield* Effect.either(Stream.runCollect(muse.stream({ locatorClass: "muse-native-session-log", path: path.join(fixturesDir, "muse-code/native", f) }, { includeSubagents: true })))
          if (r._tag === "Right") out.push(Chunk.toArray(r.right))
        }
        return out
      }).pipe(Effect.provide(App.layer(policy)))
      expect(streamed.length).toBeGreaterThan(3)
      expect(streamed[0].length).toBeGreaterThan(300)
      expect(streamed[1].length).toBeGreaterThan(900)
      // Muse Code's events have the layout (the agents transcript's are in another order: walked key by key).
      for (const events of [streamed[0], ...streamed.slice(2)]) for (const e of events) expect(Object.keys(e)).toEqual(KEYS)
      for (const events of streamed) {
        expect(differing(events, INDEX_LEAN)).toEqual([])
        expect(differing(events, undefined)).toEqual([])
      }
    }), 120_000)
})
