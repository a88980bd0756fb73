/**
 * `leanEvent` (the lean record of the index and of `stream --lean`) was made
 * faster in session 9 (issue 13, item 3): shapes found through a trie of
 * signature tokens instead of a signature string, keys by `Object.keys`, and
 * a Muse Code payload's own text copied into the body. Its output must not
 * change: the index's content and the lean contract stay what they were. So
 * the new writer is compared, event after event (their caches see the same
 * history), with the writer as it was (`test/support/lean-event-reference.ts`),
 * over generated hostile events (lone surrogates, U+2028, C1 and bidi
 * characters, huge and negative-zero numbers, deep nesting, `__proto__` keys,
 * undefined fields, payload texts that hold the writer's mark) and over what
 * the adapters stream from logs of hostile lines (invalid UTF-8 is refused by
 * the native reader: what a reader decodes it to, U+FFFD, is among the generated characters),
 * from the benchmark's generated native logs and from the bundled fixtures.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Stream from "effect/Stream"
import { CANONICAL_PAYLOAD } from "../../src/domain/json.js"
import type { SessionEvent } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { eventOfRow, leanEvent, shapePlan } from "../../src/layers/index/rows.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { referenceLeanEvent } from "../support/lean-event-reference.js"
import { mk } from "../support/events.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { adapterWith, end, metadata, opened, record, writeLog } from "../muse-code/native-helpers.js"
import { writeNativeLog } from "../../bench/generate/native.js"
import { writeAgentsTranscript } from "../../bench/generate/agents.js"

/** How many events of `events` the new writer answers otherwise than the reference (shape or body), and the first such event's index. */
const compare = (events: ReadonlyArray<SessionEvent>): { differ: number; first: number } => {
  let differ = 0
  let first = -1
  events.forEach((e, i) => {
    const a = leanEvent(e)
    const b = referenceLeanEvent(e)
    if (a?.shape !== b?.shape || a?.body !== b?.body) {
      differ++
      if (first < 0) first = i
    }
  })
  return { differ, first }
}

const MARK = "\u0000session-ingest:payload\u0000"
const hostileChar = fc.constantFrom(
  "\u0080", "\u0085", "\u009f", "\u00a0", "\u202a", "\u202e", "\u2066", "\u2028", "\u2029", "\ud800", "\udfff", "\ufffd", "🎉", "é", "日",
  "\u0000", "\n", "\t", "  ", "\"", "\\", " ", "a", "1", "-", "word", MARK
)
const hostileString = fc.array(fc.oneof(hostileChar, fc.string({ maxLength: 4, unit: "binary" })), { maxLength: 30 }).map((a) => a.join(""))
const key = fc.oneof(fc.constantFrom("a", "b", "0", "10", "payload", "__proto__", "text", "input", "x y", "\u2028"), fc.string({ maxLength: 3 }))
const word = fc.constantFrom(null, true, false, "durable", "tool-call", "assistant", "a.b:c_d-e", "")
const leaf = fc.oneof(hostileString, word, fc.double(), fc.constantFrom(-0, 1e21, 1e308, 5e-324, 9007199254740993, -1, 0))
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("v"), { maxLength: 4 }),
    // through JSON, so a `__proto__` key is an own key, as JSON.parse makes it
    fc.array(fc.tuple(key, tie("v")), { maxLength: 4 }).map((kvs) => JSON.parse(`{${kvs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? "null"}`).join(",")}}`))
  )
})).v
/** How deep a value nests. */
const depthOf = (v: unknown): number =>
  typeof v !== "object" || v === null ? 0 : 1 + Math.max(0, ...Object.values(v).map(depthOf))
/** Nested `depth` levels deep (arrays and objects in turn). */
const deep = (depth: number, inner: unknown): unknown => (depth === 0 ? inner : depth % 2 === 0 ? [deep(depth - 1, inner)] : { d: deep(depth - 1, inner) })
const payload = fc.oneof(
  fc.dictionary(key, value, { maxKeys: 5 }).map((o) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>),
  fc.tuple(fc.integer({ min: 1, max: 70 }), leaf).map(([d, l]) => ({ deep: deep(d, l) })),
  fc.constant({ m: MARK }),
  fc.constant({ m: [MARK, MARK] })
)

/** One generated event: fields of hostile values, an `extensions` of a few namespaces, a Muse payload that may carry its own text. */
const event = fc.record({
  provider: fc.constantFrom("muse-code", "muse-agents", "claude-code", "agentmux") as fc.Arbitrary<"muse-code">,
  kind: fc.constantFrom("message", "tool-call", "tool-result", "runtime.session", "weird kind \u2028"),
  text: fc.option(fc.oneof(hostileString, hostileString.map((s) => s.repeat(3))), { nil: null }),
  role: fc.option(fc.oneof(word, hostileString), { nil: null }),
  toolName: fc.option(fc.oneof(word, hostileString), { nil: undefined }),
  isError: fc.option(fc.boolean(), { nil: null }),
  usage: fc.option(fc.dictionary(key, leaf, { maxKeys: 3 }), { nil: null }),
  rawReference: fc.oneof(fc.dictionary(key, leaf, { maxKeys: 3 }), leaf),
  payload: fc.option(payload, { nil: undefined }),
  canonical: fc.constantFrom("yes", "no", "stale"),
  restate: fc.constantFrom("none", "text", "textOneLine", "toolInput"),
  other: fc.dictionary(key, value, { maxKeys: 3 }),
  spaces: fc.constantFrom(1, 2, 3),
  occurredAt: fc.option(fc.constantFrom("2026-09-25T15:13:36.691Z", "not a time"), { nil: null }),
  extra: fc.option(fc.tuple(key, value), { nil: undefined })
})

/** The generated events, in order (the sequence makes them one session's). */
type EventSpec = typeof event extends fc.Arbitrary<infer T> ? T : never
const eventsOf = (specs: ReadonlyArray<EventSpec>): Array<SessionEvent> => {
  const at = mk("muse-code", "55555555-5555-4555-8555-555555555555")
  return specs.map((s) => {
    const ns: Record<string, unknown> = { envelopeId: "e", durability: "durable", ...s.other }
    if (s.payload !== undefined) ns.payload = s.payload
    const extensions: Record<string, unknown> = { "native.muse": ns }
    if (s.spaces >= 2) extensions["native.other"] = s.other
    if (s.spaces >= 3) extensions["raw"] = "a raw value"
    const longText = `${s.text ?? ""} restated   text\n\nthat is long enough to be a reference`
    if (s.restate !== "none") ns.output = longText
    const fields: Record<string, unknown> = {
      provider: s.provider,
      role: s.role,
      isError: s.isError,
      usage: s.usage,
      rawReference: s.rawReference,
      occurredAt: s.occurredAt,
      text: s.restate === "text" ? longText : s.restate === "textOneLine" ? longText.replace(/\s+/g, " ").trim() : s.text,
      toolInput: s.restate === "toolInput" ? ns : null,
      toolName: s.toolName
    }
    const e = at(s.kind, fields as Partial<SessionEvent>, {}) as unknown as Record<string, unknown>
    e.extensions = extensions
    if (s.extra !== undefined) e[s.extra[0]] = s.extra[1]
    if (s.payload !== undefined && s.canonical !== "no") {
      // "stale": the text rides on the event, but the payload was replaced since (the writer must not use it)
      const value = s.canonical === "stale" ? { other: 1 } : s.payload
      Object.defineProperty(e, CANONICAL_PAYLOAD, { value: { value, text: JSON.stringify(value) } })
    }
    return e as unknown as SessionEvent
  })
}

describe("leanEvent (session 9's faster writer) writes what the writer before it wrote", () => {
  it("over generated hostile events, in sequences (shapes and references found from what came before)", () => {
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 30 }), (specs) => {
        const events = eventsOf(specs)
        expect(compare(events)).toEqual({ differ: 0, first: -1 })
        // and again: now every shape is known to both
        expect(compare(events)).toEqual({ differ: 0, first: -1 })
      }),
      { numRuns: 600 }
    )
  })

  it("the payload's own text is used, and only while it is the payload's", () => {
    const [e] = eventsOf(fc.sample(event.filter((s) => s.payload !== undefined && s.canonical === "no"), { numRuns: 1, seed: 3 }))
    const ns = (e.extensions["native.muse"] as Record<string, unknown>)
    // a text that is not the payload's: copied only while the payload is that very object
    Object.defineProperty(e, CANONICAL_PAYLOAD, { value: { value: ns.payload, text: "{\"copied\":true}" } })
    expect(leanEvent(e)?.body).toContain("{\"copied\":true}")
    ns.payload = { replaced: true }
    expect(leanEvent(e)?.body).not.toContain("copied")
    expect(leanEvent(e)).toEqual(referenceLeanEvent(e))
  })

  it("an extensions of no namespace and one that is not an object each rebuild as they were (the signature string before gave both one shape)", () => {
    const at = mk("muse-code", "s")
    const events = [at("k", {}, {}), at("k", {}, {}), at("k", {}, {})]
    ;(events[0] as unknown as Record<string, unknown>).extensions = {}
    ;(events[1] as unknown as Record<string, unknown>).extensions = 5
    ;(events[2] as unknown as Record<string, unknown>).extensions = {}
    for (const e of events) {
      const l = leanEvent(e)!
      const back = eventOfRow(shapePlan(l.shape), l.body, e, e)
      expect(JSON.stringify(back)).toBe(JSON.stringify(e))
    }
  })

  it.effect("over what the adapters stream: hostile native lines, generated native logs and transcripts, the fixtures", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const ws = path.join(root, "ws")
      fs.mkdirSync(ws)
      // a native log of hostile payloads
      const id = "55555555-5555-4555-8555-555555555555"
      const lines: Array<Buffer> = [JSON.stringify(metadata(0, "/workspace/demo", id)), JSON.stringify(opened(1, id))].map((l) => Buffer.from(l))
      let seq = 2
      // (nesting within the import limit of 64 levels, with the envelope's)
      for (const p of fc.sample(payload.filter((p) => depthOf(p) < 60), { numRuns: 300, seed: 11 })) lines.push(Buffer.from(JSON.stringify(record(seq++, "runtime.session", p, id))))
      for (const p of [{ big: 1e400 }, { neg: -0 }, { n: 12345678901234567890 }]) {
        lines.push(Buffer.from(JSON.stringify(record(seq++, "runtime.session", { x: "@N" }, id)).replace(`{"x":"@N"}`, JSON.stringify(p).replace("null", "1e400").replace(":0", ":-0"))))
      }
      lines.push(Buffer.from(JSON.stringify(record(seq++, "runtime.session", { s: "\\ud800 \u2028 \u0085" }, id)).replace("\\\\ud800", "\\ud800")))
      lines.push(Buffer.from(JSON.stringify(end(seq, id))))
      const log = writeLog(root, "2026/09/25", id, Buffer.concat(lines.flatMap((l) => [l, Buffer.from("\n")])))
      const museRoot = path.join(root, "muse")
      const generated = path.join(museRoot, "2026", "09", "25", "00000001-0000-4000-8000-000000000b16", "session.jsonl")
      writeNativeLog(generated, 3 * 1024 * 1024, ws)
      const agentsRoot = path.join(root, "agents")
      const transcript = writeAgentsTranscript(agentsRoot, "bench-agent", 2000).path

      const native = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: ["/workspace/demo"] } })
      const hostile = Chunk.toArray(yield* Stream.runCollect(native.stream({ locatorClass: "muse-native-session-log", path: log })))
      expect(hostile.length).toBe(lines.length)
      expect(hostile.filter((e) => CANONICAL_PAYLOAD in e).length).toBeGreaterThan(100)
      expect(compare(hostile)).toEqual({ differ: 0, first: -1 })

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
      expect(streamed[0].length).toBeGreaterThan(1000)
      expect(streamed[1].length).toBeGreaterThan(1900)
      for (const events of streamed) expect(compare(events)).toEqual({ differ: 0, first: -1 })
    }), 120_000)
})
