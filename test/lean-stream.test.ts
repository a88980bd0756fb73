/**
 * `stream`'s output (issue 13, item 3): the NDJSON writer stays byte for byte
 * what it was (JSON.stringify of each event, C1 controls and bidi overrides
 * escaped, UTF-8, one a line), and `stream --lean` (contract lean-1) expands
 * back to the full stream, byte-identical, over all four providers and over
 * hostile content.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { encodeNdjsonLines, ndjson, ndjsonOfTexts } from "../src/cli/output.js"
import { CANONICAL_PAYLOAD, type CanonicalText } from "../src/domain/json.js"
import { escapeJsonControls } from "../src/domain/render.js"
import type { SessionEvent } from "../src/domain/model.js"
import * as App from "../src/layers/app.js"
import { planFromPolicy } from "../src/layers/index/importer.js"
import * as IndexSqlite from "../src/layers/index/sqlite.js"
import { eventLine, expandLeanStream, leanExpander, leanPartsWriter, leanWriter, LEAN_STREAM_VERSION } from "../src/layers/lean-stream.js"
import { LeanStream } from "../src/index.js"
import { Index } from "../src/services/Index.js"
import { SessionSources } from "../src/services/SessionSource.js"
import { copyFixtures as copyClaude } from "./claude-code/helpers.js"
import { importOnce } from "./support/index.js"
import { fixturesDir, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"
import { writeNativeRoot } from "../bench/generate/native.js"

/** What `stream` wrote before the one-buffer writer: each line escaped and encoded on its own. */
const reference = (values: ReadonlyArray<unknown>): Buffer =>
  Buffer.concat(values.flatMap((v) => {
    const s = JSON.stringify(v) as string | undefined
    return s === undefined ? [] : [Buffer.from(escapeJsonControls(s) + "\n", "utf8")]
  }))

/** Every provider's fixtures under one policy (as the lean record's test), and the events each complete source streams. */
const allProvidersEvents = Effect.gen(function*() {
  const dir = tempDir()
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws)
  for (const f of ["orderly.json", "abnormal.json"]) fs.copyFileSync(path.join(fixturesDir, "muse-code/export", f), path.join(ws, f))
  const generated = path.join(dir, "muse-generated")
  writeNativeRoot(generated, 3, ws)
  const policy = {
    workspaceRoots: [ws, "/workspace/demo"],
    museRoots: [path.join(fixturesDir, "muse-code/native"), generated],
    agentsRoot: path.join(fixturesDir, "muse-agents/agents"),
    agentmuxStore: path.join(fixturesDir, "agentmux/filestore.db"),
    stateFile: path.join(dir, "state.db"),
    claudeRoot: copyClaude()
  }
  const index = path.join(dir, "index.db")
  const plan = planFromPolicy(policy, { agents: ["u1"], exports: [path.join(ws, "orderly.json"), path.join(ws, "abnormal.json")], batchSize: 5 })
  yield* importOnce(policy, index, plan)
  const checkpoints = yield* Effect.flatMap(Index, (i) => i.checkpoints).pipe(Effect.provide(IndexSqlite.layer(index)))
  const bySource: Array<Array<SessionEvent>> = []
  yield* Effect.gen(function*() {
    const registry = yield* SessionSources
    for (const c of checkpoints.values()) {
      if (c.status !== "complete") continue
      const adapter = yield* registry.get(c.provider)
      bySource.push(Chunk.toArray(yield* Stream.runCollect(adapter.stream(c.locator, { includeSubagents: true }))))
    }
  }).pipe(Effect.provide(App.layer(policy)))
  return bySource
})

/** The lean stream of some events, written a few at a time (the writer's state carries over chunks). */
const leanText = (events: ReadonlyArray<SessionEvent>, chunk = 7): string => {
  const write = leanWriter()
  const parts: Array<Uint8Array> = []
  for (let i = 0; i < events.length || i === 0; i += chunk) parts.push(ndjsonOfTexts(write(events.slice(i, i + chunk))))
  return Buffer.concat(parts).toString("utf8")
}

const expandText = (text: string) => Effect.runSync(expandLeanStream(text.split("\n")))

const base = (over: Record<string, unknown>): SessionEvent => ({
  contractVersion: "1.3.0",
  provider: "muse-code",
  sourceId: "sha256:" + "a".repeat(64),
  sessionId: "s-1",
  eventId: "e-1",
  sequence: 1,
  kind: "tool-call",
  role: "assistant",
  toolName: "Bash",
  toolCallId: "call-1",
  model: null,
  occurredAt: "2026-01-01T00:00:00.000Z",
  text: null,
  cursor: "c2.x",
  rawReference: { locatorClass: "muse-native-session-log", sequence: 1, offset: 0 },
  extensions: { "native.muse": { payload: null } },
  toolInput: null,
  isError: null,
  compaction: null,
  parent: null,
  child: null,
  usage: null,
  responseId: null,
  costUsd: null,
  ...over
}) as SessionEvent

/** Events of hostile content: unicode, lone surrogates, U+2028, C1 controls, bidi overrides, huge numbers, -0, nested nulls, odd key orders. */
const hostile = (): Array<SessionEvent> => {
  const weird = "日本語 \ud800 lone \udfff \u2028\u2029 \u0085 C1 \u009f \u202e bidi \u2066 \u0000 nul \u001f é 🎉 \"q\" \\ </script>"
  const input = { command: weird, n: 1e308, small: 5e-324, neg: -0, big: 2 ** 53 + 2, nested: { a: null, b: [null, { c: null }], "10": 1, "2": 2 } }
  const reordered: Record<string, unknown> = {}
  const whole = base({ sequence: 8, eventId: "e-8" }) as unknown as Record<string, unknown>
  const order = ["costUsd", "kind", "contractVersion", "sequence", "provider", "sourceId", "sessionId", "occurredAt", "extensions", "rawReference"]
  for (const k of [...order, ...Object.keys(whole).filter((k) => !order.includes(k))]) reordered[k] = whole[k]
  return [
    base({ text: weird, toolInput: input, extensions: { "native.muse": { payload: { input, text: weird } } } }),
    base({ sequence: 2, eventId: "e-2", toolInput: input, extensions: { "native.muse": { arguments: input }, "other.ns": [null, -0, weird] } }),
    base({ sequence: 3, eventId: "e-3", kind: "message", role: "user", toolName: null, text: weird.repeat(300), extensions: { "native.muse": { payload: { text: weird.repeat(300) } } } }),
    base({ sequence: 4, eventId: "e-4", sessionId: "s-2", usage: { inputTokens: 1, outputTokens: null, cacheReadTokens: 0, cacheWriteTokens: null, cacheWrite1hTokens: null }, costUsd: 0.000001 }),
    base({ sequence: 5, eventId: "e-5", occurredAt: null, kind: "\u0085kind \u202e", extensions: { "native.muse": null } }),
    base({ sequence: 6, eventId: "e-6", extensions: { "native.muse": JSON.parse(`{"__proto__":{"x":1},"y":2}`) } }),
    { ...base({ sequence: 7, eventId: "e-7" }), extra: "a key the contract does not have" } as SessionEvent,
    base({ sequence: 12, eventId: "e-12", extensions: JSON.parse(`{"__proto__":{"a":1},"native.muse":{"b":2}}`) }),
    reordered as unknown as SessionEvent,
    base({ sequence: 9, eventId: "e-9", text: "\u0080".repeat(2000), toolInput: ["\u202a".repeat(500)] }),
    base({ sequence: 10, eventId: "e-10", provider: "muse-agents", sessionId: "s-1", parent: { sessionId: "p", toolCallId: null, eventId: null, subagentId: null } }),
    Object.assign(JSON.parse(`{"__proto__":"an own key"}`), base({ sequence: 11, eventId: "e-11", provider: "muse-agents" }))
  ]
}

describe("stream's NDJSON writer", () => {
  it("writes what JSON.stringify + escapeJsonControls wrote, line for line, for hostile values and any chunk size", () => {
    const values: Array<unknown> = [...hostile(), undefined, "\u0085".repeat(5000), { a: "\u202e\u2069".repeat(3000) }, 1, null, [], ""]
    expect(Buffer.from(ndjson(values)).equals(reference(values))).toBe(true)
    for (const v of values) expect(Buffer.from(ndjson([v])).equals(reference([v]))).toBe(true)
    expect(ndjson([]).length).toBe(0)
  })

  it.effect("writes what it wrote before for every event of all four providers' fixtures", () =>
    Effect.gen(function*() {
      const bySource = yield* allProvidersEvents
      const providers = new Set(bySource.flat().map((e) => e.provider))
      expect(providers).toEqual(new Set(["muse-code", "muse-agents", "agentmux", "claude-code"]))
      for (const events of bySource) expect(Buffer.from(ndjson(events)).equals(reference(events))).toBe(true)
    }))
})

describe("stream --lean (contract lean-1)", () => {
  it.effect("expands back to the full stream, byte-identical, over all four providers' fixtures, and is smaller", () =>
    Effect.gen(function*() {
      const bySource = yield* allProvidersEvents
      let full = 0
      let lean = 0
      for (const events of bySource) {
        const text = leanText(events)
        const want = ndjson(events)
        expect(Buffer.from(ndjson(expandText(text))).equals(Buffer.from(want))).toBe(true)
        full += want.length
        lean += Buffer.byteLength(text)
      }
      // All sources in one stream: the session lines follow the events' sessions.
      const all = bySource.flat()
      expect(Buffer.from(ndjson(expandText(leanText(all, 50)))).equals(Buffer.from(ndjson(all)))).toBe(true)
      // (small fixtures: each source declares its own shapes)
      expect(lean).toBeLessThan(full)
    }))

  it.effect("the CLI's parts writer gives leanWriter's bytes, and copies a native payload's source bytes instead of its text", () =>
    Effect.gen(function*() {
      const bySource = yield* allProvidersEvents
      // Hostile content with a payload text carried as the CLI's native reader carries it (its bytes
      // hold C1 controls and bidi overrides: the chunk is written again a line at a time, escaped).
      const carried = hostile()
      const payload = (carried[0].extensions["native.muse"] as { payload: unknown }).payload
      const payloadText = JSON.stringify(payload)
      Object.defineProperty(carried[0], CANONICAL_PAYLOAD, { value: { value: payload, text: payloadText, at: 0, bytes: Buffer.from(payloadText, "utf8") } })
      let copied = 0
      for (const events of [...bySource, bySource.flat(), carried]) {
        const texts = leanWriter()
        const parts = leanPartsWriter()
        for (let i = 0; i < events.length || i === 0; i += 7) {
          const chunk = events.slice(i, i + 7)
          const want = ndjsonOfTexts(texts(chunk))
          const lines = parts(chunk)
          const got = encodeNdjsonLines(lines)
          expect(Buffer.from(got.bytes).equals(Buffer.from(want))).toBe(true)
          got.release()
          // The carried bytes themselves are a part of an event's line: copied, never decoded and encoded again.
          const carriedBytes = new Set(chunk.map((e) => (e as { [CANONICAL_PAYLOAD]?: CanonicalText })[CANONICAL_PAYLOAD]?.bytes).filter((b) => b !== undefined))
          for (const l of lines) if (typeof l !== "string" && l.some((p) => typeof p !== "string" && carriedBytes.has(p))) copied++
        }
      }
      // The generated native logs and the hostile event carry their payloads' bytes.
      expect(copied).toBeGreaterThan(3)
    }))

  it("expands hostile content back byte-identical, whole events included", () => {
    const events = hostile()
    const text = leanText(events, 3)
    expect(Buffer.from(ndjson(expandText(text))).equals(reference(events))).toBe(true)
    // C1 controls and bidi overrides are escaped in the lean stream too.
    expect(text).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/)
    const lines = text.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines[0]).toEqual({ lean: LEAN_STREAM_VERSION })
    // The session's ids and nulls are not restated per event; an event the lean record declines is whole.
    const eventLines = lines.filter((l) => "e" in l)
    for (const l of eventLines) expect(JSON.stringify(l)).not.toContain("sha256:")
    expect(lines.filter((l) => "event" in l).length).toBeGreaterThanOrEqual(2)
    expect(lines.filter((l) => "session" in l).map((l) => (l.session as { sessionId: string }).sessionId)).toEqual(["s-1", "s-2", "s-1", "s-1"])
  })

  it("a restated toolInput is left out of the event line", () => {
    const input = { command: "a command long enough to be worth a reference, surely" }
    const text = leanText([base({ toolInput: input, extensions: { "native.muse": { arguments: input } } })])
    expect(text.split(input.command).length - 1).toBe(1)
  })

  it("fails with MalformedSource on what is not a lean stream", () => {
    const fail = (lines: Array<string>) => {
      const r = Effect.runSync(Effect.either(expandLeanStream(lines)))
      expect(Either.isLeft(r)).toBe(true)
      if (Either.isLeft(r)) {
        expect(r.left._tag).toBe("MalformedSource")
        expect(r.left.remediation).toContain("--lean")
      }
    }
    fail(["not json"])
    fail([`{"contractVersion":"1.3.0"}`])
    fail([`{"lean":"lean-1"}`, `{"e":0,"sequence":1,"kind":"x","occurredAt":null,"body":[]}`])
    fail([`{"lean":"lean-1"}`, `{"session":{"provider":"p"}}`])
    fail([`{"lean":"lean-1"}`, `[1,2]`])
    fail([`{"lean":"lean-1"}`, `{"what":1}`])
    const expand = leanExpander()
    expect(Either.isRight(expand(`{"lean":"lean-1"}`))).toBe(true)
    expect(LeanStream.expandLeanStream).toBe(expandLeanStream)
  })
})

/** C1 controls and bidi characters, as a prompt may hold them. */
const CONTROLS = " \u0085 \u009b \u202e \u2066 \u0080\u009f\u202a\u2069 "

/** An event with the controls in its text (or in its extensions when it has no text). */
const withControls = (e: SessionEvent): SessionEvent =>
  typeof e.text === "string"
    ? { ...e, text: e.text + CONTROLS }
    : { ...e, extensions: { ...e.extensions, "test.controls": { prompt: CONTROLS } } }

describe("the expansion's line serializer", () => {
  it.effect("eventLine of each expanded event is, byte for byte, the line stream writes, C1 controls and bidi characters included, over all four providers", () =>
    Effect.gen(function*() {
      const bySource = (yield* allProvidersEvents).map((events) => events.map(withControls))
      expect(new Set(bySource.flat().map((e) => e.provider))).toEqual(new Set(["muse-code", "muse-agents", "agentmux", "claude-code"]))
      for (const events of [...bySource, bySource.flat()]) {
        const expanded = expandText(leanText(events))
        const lines = Buffer.from(expanded.map((e) => eventLine(e) + "\n").join(""), "utf8")
        expect(lines.equals(Buffer.from(ndjson(events)))).toBe(true)
        // JSON.stringify gives the same JSON values, but writes the characters raw.
        for (let i = 0; i < expanded.length; i++) expect(JSON.parse(eventLine(expanded[i]))).toEqual(JSON.parse(JSON.stringify(events[i])))
      }
      const one = expandText(leanText([withControls(bySource[0][0])]))[0]
      expect(JSON.stringify(one)).toMatch(/[\u0085\u009b\u202e\u2066]/)
      expect(eventLine(one)).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/)
      expect(eventLine(one)).toContain("\\u0085")
      expect(LeanStream.eventLine).toBe(eventLine)
    }))
})

describe("the expansion refuses what is not a lean stream of contract events", () => {
  const head = `{"lean":"lean-1"}`
  const session = `{"session":{"provider":"muse-code","sourceId":"sha256:${"a".repeat(64)}","sessionId":"s-1"}}`
  /** A real lean stream of one event: its shape line and its event line. */
  const real = () => {
    const lines = leanText([base({})]).trimEnd().split("\n")
    return { shape: lines.find((l) => l.startsWith(`{"shape"`))!, event: lines.find((l) => l.startsWith(`{"e"`))! }
  }
  const failsAt = (lines: Array<string>, line: number, what: RegExp) => {
    const r = Effect.runSync(Effect.either(expandLeanStream(lines)))
    expect(Either.isLeft(r)).toBe(true)
    if (Either.isLeft(r)) {
      expect(r.left._tag).toBe("MalformedSource")
      expect(r.left.code).toBe("MALFORMED_SOURCE")
      expect(r.left.message).toContain(`Line ${line} `)
      expect(r.left.message).toMatch(what)
    }
  }

  it("a valid stream expands (the cases below are each one change of it)", () => {
    const { shape, event } = real()
    expect(Effect.runSync(expandLeanStream([head, session, shape, event]))).toEqual([base({})])
  })

  it("an empty stream, or one of empty lines, has no first line", () => {
    failsAt([], 1, /lean-1/)
    failsAt(["", ""], 1, /lean-1/)
  })

  it("a first line with more than the version", () => {
    failsAt([`{"lean":"lean-1","x":1}`, session], 1, /lean-1/)
  })

  it("a body with extra values, or too few", () => {
    const { shape, event } = real()
    failsAt([head, session, shape, event.replace(/\]\}$/, `,"extra"]}`)], 4, /body/)
    failsAt([head, session, shape, event.replace(/"body":\[.*\]\}$/, `"body":[]}`)], 4, /body|shape/)
  })

  it("an event line whose values are not the contract's", () => {
    const { shape, event } = real()
    failsAt([head, session, shape, event.replace(/"sequence":1/, `"sequence":"x"`)], 4, /sequence/)
    failsAt([head, session, shape, event.replace(/"sequence":1/, `"sequence":1.5`)], 4, /sequence/)
    failsAt([head, session, shape, event.replace(/,"kind":"tool-call"/, "")], 4, /kind/)
    failsAt([head, session, shape, event.replace(/\}$/, `,"junk":1}`)], 4, /junk/)
  })

  it("a whole event that is not a contract event", () => {
    failsAt([head, `{"event":{"hello":1}}`], 2, /contract/)
    const e = base({}) as unknown as Record<string, unknown>
    failsAt([head, JSON.stringify({ event: { ...e, sequence: "x" } })], 2, /sequence/)
    failsAt([head, JSON.stringify({ event: { ...e, contractVersion: undefined } })], 2, /contractVersion/)
    // A whole event with an own key __proto__ expands to an equal event, with the key as its own property.
    const proto = Object.assign(JSON.parse(`{"__proto__":"own"}`), base({}))
    const got = Effect.runSync(expandLeanStream([head, JSON.stringify({ event: proto })]))[0] as unknown as Record<string, unknown>
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype)
    expect(Object.hasOwn(got, "__proto__")).toBe(true)
    expect(eventLine(got as unknown as SessionEvent)).toBe(JSON.stringify(proto))
  })

  it("shape numbers that are not of 0..4095, and event lines naming them", () => {
    const { shape, event } = real()
    for (const n of ["-1", "1e300", "4096", "0.5", `"0"`]) {
      failsAt([head, session, shape.replace(`{"shape":0`, `{"shape":${n}`)], 3, /shape/)
      failsAt([head, session, shape, event.replace(`{"e":0`, `{"e":${n}`)], 4, /shape|"e"/)
    }
  })

  it("a shape whose keys hold __proto__ changes no prototype: it is refused", () => {
    const { shape, event } = real()
    const def = JSON.parse(shape) as { shape: number; def: { k: Array<string> } }
    for (const at of [0, def.def.k.length]) {
      const k = [...def.def.k]
      k.splice(at, 0, "__proto__")
      const bad = JSON.stringify({ shape: 0, def: { ...def.def, k } })
      failsAt([head, session, bad, event.replace(/\]\}$/, `,{"polluted":1}]}`)], 3, /__proto__/)
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it("a session line with other keys, and a shape that is not of the lean record", () => {
    failsAt([head, session.replace(`"sessionId":"s-1"`, `"sessionId":"s-1","x":1`)], 2, /session/)
    failsAt([head, `{"shape":0,"def":{"k":"x"}}`], 2, /shape/)
    failsAt([head, `{"shape":0,"def":{"c":"1.3.0","k":["a"],"r":{"a":["=","__proto__"]}}}`], 2, /__proto__/)
  })
})

describe("stream --lean on the CLI", () => {
  it("expands to what stream prints, for a native log with its subagent, and a Muse agents transcript", () => {
    const native = path.join(fixturesDir, "muse-code/native/2026/09/25/22222222-2222-4222-8222-222222222222/session.jsonl")
    const nativeArgs = ["stream", "muse-code", native, "--locator-class", "muse-native-session-log", "--muse-root", path.join(fixturesDir, "muse-code/native"), "--workspace", "/workspace/demo", "--include-subagents"]
    const agentsRoot = path.join(fixturesDir, "muse-agents/agents")
    const agentsArgs = ["stream", "muse-agents", path.join(agentsRoot, "messy/sessions/messy.jsonl"), "--agents-root", agentsRoot]
    for (const args of [nativeArgs, agentsArgs]) {
      const full = cli(args)
      const lean = cli([...args, "--lean"])
      expect(full.code).toBe(0)
      expect(lean.code).toBe(0)
      expect(full.stdout.length).toBeGreaterThan(0)
      expect(lean.stdout.split("\n")[0]).toBe(`{"lean":"lean-1"}`)
      expect(Buffer.from(ndjson(expandText(lean.stdout))).toString("utf8")).toBe(full.stdout)
    }
  })

  it("--limit 0 --lean still writes the first line: a lean stream always starts with it", () => {
    const agentsRoot = path.join(fixturesDir, "muse-agents/agents")
    const r = cli(["stream", "muse-agents", path.join(agentsRoot, "messy/sessions/messy.jsonl"), "--agents-root", agentsRoot, "--limit", "0", "--lean"])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(`{"lean":"lean-1"}\n`)
    expect(Effect.runSync(expandLeanStream(r.stdout.split("\n")))).toEqual([])
  })
})
