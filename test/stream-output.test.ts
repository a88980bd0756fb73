/**
 * `stream`'s bytes stay what they were (issue 13, item 3: the speed work of
 * session 7): the NDJSON writer (one buffer per chunk, looked at once for raw
 * C1 controls and bidi characters) against the line-at-a-time reference
 * (`JSON.stringify` + `escapeJsonControls` of each value, UTF-8), and the
 * Muse Code one-line text against the `/\s+/g` replace it skips when the text
 * is already one line; the payload text a Muse Code native record carries
 * (`canonicalMember`) is `JSON.stringify` of its payload whenever it is
 * given, and `stream`'s bytes with it are the bytes without it; the same for
 * the source bytes of a Muse agents item's text (`verbatimString`). Property
 * tests over generated hostile values and texts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Stream from "effect/Stream"
import { ndjson, ndjsonOfTexts } from "../src/cli/output.js"
import { CANONICAL_PAYLOAD, CANONICAL_TEXT, canonicalMember, verbatimString } from "../src/domain/json.js"
import { adapterWith, end, metadata, opened, record, tempDir, writeLog } from "./muse-code/native-helpers.js"
import { oneLine } from "../src/domain/muse-code/records.js"
import { escapeJsonControls } from "../src/domain/render.js"
import { locatorOf, tempDir as agentsTempDir, withAdapter as withAgentsAdapter, writeTranscript } from "./muse-agents/helpers.js"

/** What `stream` wrote a line at a time: each value's JSON text escaped and encoded on its own. */
const reference = (values: ReadonlyArray<unknown>): Buffer =>
  Buffer.concat(values.flatMap((v) => {
    const s = JSON.stringify(v) as string | undefined
    return s === undefined ? [] : [Buffer.from(escapeJsonControls(s) + "\n", "utf8")]
  }))

/** Characters that stress the writer: C1 controls, bidi overrides and isolates, their UTF-8 neighbours (U+2028, U+2060, “”), lone surrogates, astral. */
const hostileChar = fc.constantFrom(
  "\u0080", "\u0085", "\u009f", "\u00a0", "\u00c2", "\u202a", "\u202e", "\u202f", "\u2066", "\u2069", "\u206a", "\u2028", "\u2029",
  "\u201c", "\u201d", "\u2060", "\ud800", "\udfff", "🎉", "é", "日", "\u0000", "\n", "\"", "\\", " ", "a", "1"
)
const hostileString = fc.array(fc.oneof(hostileChar, fc.string({ maxLength: 4, unit: "binary" })), { maxLength: 40 }).map((a) => a.join(""))
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileString,
    fc.double(),
    fc.constantFrom(null, true, false, -0, 1e21, 5e-324),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(hostileString, tie("value"), { maxKeys: 4 })
  )
})).value

describe("stream's NDJSON writer (property)", () => {
  it("writes, for any chunk of hostile values, what the line-at-a-time reference wrote, chunk after chunk", () => {
    fc.assert(
      fc.property(fc.array(fc.array(hostileValue, { maxLength: 12 }), { minLength: 1, maxLength: 4 }), (chunks) => {
        const outs = chunks.map((c) => Buffer.from(ndjson(c)))
        // each chunk's bytes are its own (a later call does not change an earlier answer)
        chunks.forEach((c, i) => expect(outs[i].equals(reference(c))).toBe(true))
      }),
      { numRuns: 1500 }
    )
  })

  it("ndjsonOfTexts: a chunk with and without a raw C1 or bidi character, of any size", () => {
    fc.assert(
      fc.property(fc.array(hostileString, { maxLength: 30 }), fc.integer({ min: 0, max: 200_000 }), (strings, pad) => {
        const texts = [...strings.map((s) => JSON.stringify(s)), JSON.stringify("x".repeat(pad))]
        expect(Buffer.from(ndjsonOfTexts(texts)).equals(reference([...strings, "x".repeat(pad)]))).toBe(true)
      }),
      { numRuns: 300 }
    )
    expect(ndjsonOfTexts([]).length).toBe(0)
  })
})

/** `oneLine` before its shortcut: whitespace runs made one space, trimmed, cut to 1,000 with an ellipsis. */
const oneLineReference = (s: string): string => {
  const flat = s.replace(/\s+/g, " ").trim()
  return flat.length > 1000 ? flat.slice(0, 999) + "…" : flat
}

describe("Muse Code's one-line text (property)", () => {
  it("is the whitespace-flattened, trimmed, cut text, whatever the text", () => {
    const ws = fc.constantFrom(" ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2028", "\u3000", "\ufeff", " \u00a0", "\v")
    fc.assert(
      fc.property(fc.array(fc.oneof(ws, fc.string({ maxLength: 8 })), { maxLength: 60 }), fc.integer({ min: 0, max: 1100 }), (parts, pad) => {
        const s = parts.join("")
        expect(oneLine(s)).toBe(oneLineReference(s))
        const long = "word ".repeat(pad) + s
        expect(oneLine(long)).toBe(oneLineReference(long))
      }),
      { numRuns: 3000 }
    )
  })
})

/** A JSON text of a value, written by hand: spaced or not, strings escaped in every way JSON allows, numbers in every form, keys duplicated, integer-like keys. */
const scalarText = fc.oneof(
  fc.constantFrom("0", "-0", "1", "-1", "1.5", "1.50", "1e5", "1E+5", "100000", "0.1", "1e21", "1e+21", "1790349214459286", "9007199254740993", "12345678901234567890", "5e-324", "1e400", "-0.0", "2.5e-7", "true", "false", "null"),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.array(fc.oneof(
    fc.constantFrom("a", " ", "\\\"", "\\\\", "\\n", "\\t", "\\r", "\\b", "\\f", "\\/", "\\u0041", "\\u00e9", "\\u001f", "\\u001F", "\\u0000", "\\ud83d\\ude00", "\\ud800", "é", "\u2028", "\u0085", "\u202e", "🎉", "payload", "\\\"payload\\\":{", ",\\\"payload\\\":1"),
    fc.string({ maxLength: 3 }).map((x) => JSON.stringify(x).slice(1, -1))
  ), { maxLength: 8 }).map((parts) => `"${parts.join("")}"`)
)
const keyText = fc.oneof(fc.constantFrom("\"a\"", "\"b\"", "\"0\"", "\"10\"", "\"2\"", "\"payload\"", "\"pay\\u006coad\"", "\"__proto__\"", "\"x y\"", "\"-1\""), scalarText.filter((t) => t.startsWith("\"")))
const ws = fc.constantFrom("", "", "", " ", "\n")
const valueText: fc.Arbitrary<string> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    scalarText,
    fc.tuple(fc.array(tie("v"), { maxLength: 4 }), ws).map(([xs, w]) => `[${w}${xs.join(`,${w}`)}]`),
    fc.tuple(fc.array(fc.tuple(keyText, tie("v"), ws), { maxLength: 4 }), ws).map(([kvs, w]) => `{${w}${kvs.map(([k, v, w2]) => `${k}${w2}:${w2}${v}`).join(`,${w}`)}}`)
  )
})).v as fc.Arbitrary<string>
/** A record line's text: members before and after a `payload` (sometimes two, sometimes none), spaced or not. */
const lineText = fc.tuple(
  fc.array(fc.tuple(keyText, valueText), { maxLength: 3 }),
  fc.option(valueText.filter((t) => t.startsWith("{")), { nil: undefined }),
  fc.array(fc.tuple(keyText, valueText), { maxLength: 2 }),
  fc.constantFrom(":", ":", ": ", " :"),
  fc.boolean()
).map(([before, payload, after, colon, twice]) => {
  const members = [...before.map(([k, v]) => `${k}:${v}`), ...(payload !== undefined ? [`"payload"${colon}${payload}`] : []), ...after.map(([k, v]) => `${k}:${v}`)]
  if (twice && payload !== undefined) members.push(`"payload":{}`)
  return `{${members.join(",")}}`
})

describe("canonicalMember: the payload's text, only when it is JSON.stringify of the parsed payload", () => {
  it("never answers a text other than JSON.stringify(JSON.parse(line).payload), over hostile lines", () => {
    let answered = 0
    fc.assert(
      fc.property(lineText, (line) => {
        let parsed: Record<string, unknown>
        try {
          parsed = JSON.parse(line)
        } catch {
          return
        }
        const c = canonicalMember(line, "payload", parsed.payload)
        if (c === undefined) return
        answered++
        expect(c.value).toBe(parsed.payload)
        expect(c.text).toBe(JSON.stringify(parsed.payload))
      }),
      { numRuns: 4000 }
    )
    for (const line of [`{"payload":"","payload" :{}}`, `{"payload":0,"payload"\t:{}}`, `{"payload":{ }}`, `{"payload":{"a":"\\u00e9"}}`, `{"payload":{"a":1,"a":2}}`, `{"payload":{"b":1,"0":2}}`, `{"pay\\u006coad":1,"payload":{}}`, `{"payload":{"a":1.0}}`]) {
      const parsed = JSON.parse(line) as Record<string, unknown>
      const c = canonicalMember(line, "payload", parsed.payload)
      expect(c === undefined || c.text === JSON.stringify(parsed.payload), line).toBe(true)
    }
    // not vacuous: many lines are answered
    expect(answered).toBeGreaterThan(20)
  })

  it("answers for a line JSON.stringify wrote (no integer-like key, no character it escapes as \\u)", () => {
    const plain = fc.string({ maxLength: 12 }).filter((s) => !/[\u0000-\u0007\u000b\u000e-\u001f]/.test(s) && !/^[0-9]/.test(s))
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: "small" }, plain, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(null, true, false),
        fc.array(tie("v"), { maxLength: 3 }), fc.dictionary(plain, tie("v"), { maxKeys: 3 }))
    })).v
    fc.assert(
      // (the line's own keys without a quote or a backslash: an escaped top-level key is not looked at closer)
      fc.property(fc.dictionary(plain.filter((k) => !/["\\]/.test(k)), value, { maxKeys: 3 }), value, (rest, payload) => {
        const line = JSON.stringify({ ...rest, payload: { p: payload } })
        const parsed = JSON.parse(line) as Record<string, unknown>
        expect(canonicalMember(line, "payload", parsed.payload)?.text).toBe(JSON.stringify(parsed.payload))
      }),
      { numRuns: 1500 }
    )
  })
})

describe("stream's bytes with the payload's text copied (Muse Code native)", () => {
  it.effect("are the bytes of JSON.stringify + escapeJsonControls of each event, over logs of hostile payload texts", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const adapter = yield* adapterWith({ policy: { museRoots: [root], workspaceRoots: ["/workspace/demo"] } })
      const payloads = fc.sample(valueText.filter((t) => t.startsWith("{") && !t.includes("\n")), { numRuns: 400, seed: 7 })
      const id = "55555555-5555-4555-8555-555555555555"
      const lines = [JSON.stringify(metadata(0, "/workspace/demo", id)), JSON.stringify(opened(1, id))]
      let seq = 2
      for (const p of payloads) {
        const line = JSON.stringify(record(seq++, "runtime.session", { x: "@P" }, id)).replace(`{"x":"@P"}`, p)
        try {
          JSON.parse(line)
          lines.push(line)
        } catch {
          seq--
        }
      }
      // a payload whose text holds the writer's mark, and one holding it twice
      lines.push(JSON.stringify(record(seq++, "runtime.session", { m: "\u0000session-ingest:payload\u0000" }, id)))
      lines.push(JSON.stringify(record(seq++, "runtime.session", { m: ["\u0000session-ingest:payload\u0000", "\u0000session-ingest:payload\u0000"] }, id)))
      // and payloads holding the mark's character (DEL) once and twice
      lines.push(JSON.stringify(record(seq++, "runtime.session", { m: "\u007f" }, id)))
      lines.push(JSON.stringify(record(seq++, "runtime.session", { m: ["\u007f", "a\u007fb"] }, id)))
      lines.push(JSON.stringify(end(seq, id)))
      const log = writeLog(root, "2026/09/25", id, lines.join("\n") + "\n")
      const events = Chunk.toArray(yield* Stream.runCollect(adapter.stream({ locatorClass: "muse-native-session-log", path: log })))
      expect(events.length).toBe(lines.length)
      const carried = events.filter((e) => CANONICAL_PAYLOAD in e).length
      expect(carried).toBeGreaterThan(50)
      expect(carried).toBeLessThan(events.length)
      expect(Buffer.from(ndjson(events)).equals(reference(events))).toBe(true)
      for (let i = 0; i < events.length; i += 37) expect(Buffer.from(ndjson(events.slice(i, i + 37))).equals(reference(events.slice(i, i + 37)))).toBe(true)
    }))
})

/** A line with a string member `output` planted somewhere (or not at all, or twice), around hostile members. */
const verbatimLine = fc.tuple(
  fc.array(fc.tuple(keyText, valueText), { maxLength: 3 }),
  scalarText.filter((t) => t.startsWith("\"")),
  fc.constantFrom("\"output\"", "\"output\"", "\"outp\\u0075t\"", "\"output\" "),
  fc.array(fc.tuple(keyText, valueText), { maxLength: 2 }),
  fc.constantFrom("top", "nested", "twice", "deep")
).map(([before, token, key, after, where]) => {
  const rest = [...before.map(([k, v]) => `${k}:${v}`), ...after.map(([k, v]) => `${k}:${v}`)]
  const member = `${key}:${token}`
  if (where === "top") return `{${[...rest, member].join(",")}}`
  if (where === "nested") return `{"type":"item","item":{${[member, ...rest].join(",")}},"x":1}`
  if (where === "twice") return `{"item":{${member}},"item":{"output":"other \\\" text"}}`
  return `{"a":{"b":{${member}}},${rest.length > 0 ? rest.join(",") : `"c":0`}}`
})

describe("verbatimString: the source's bytes of a member's string, only when they are JSON.stringify of it", () => {
  it("never answers other bytes than JSON.stringify of the parsed member's string, over hostile lines", () => {
    let answered = 0
    fc.assert(
      fc.property(verbatimLine, (line) => {
        let parsed: Record<string, unknown>
        try {
          parsed = JSON.parse(line)
        } catch {
          return
        }
        const bytes = Buffer.from(line, "utf8")
        // the caller's promise: the value of a member named output that the parsed line has (wherever it is)
        const item = parsed.item as Record<string, unknown> | undefined
        const nested = (parsed.a as { b?: Record<string, unknown> } | undefined)?.b
        for (const value of [parsed.output, item?.output, nested?.output]) {
          if (typeof value !== "string") continue
          const got = verbatimString(line, bytes, "output", value)
          if (got === undefined) continue
          answered++
          expect(Buffer.from(got).equals(Buffer.from(JSON.stringify(value), "utf8"))).toBe(true)
        }
      }),
      { numRuns: 4000 }
    )
    // not vacuous: many lines are answered
    expect(answered).toBeGreaterThan(100)
    // a duplicate member (JSON.parse takes the last), a key spelled with \u, a \u or \/ in the token: no answer
    for (const line of [`{"output":"aaa","output":"bbb"}`, `{"outp\\u0075t":"aaa","x":"output"}`, `{"output":"a\\u00e9"}`, `{"output":"a\\/b"}`]) {
      const parsed = JSON.parse(line) as Record<string, unknown>
      expect(verbatimString(line, Buffer.from(line), "output", parsed.output as string), line).toBeUndefined()
    }
  })
})

describe("stream's bytes with a Muse agents item's text copied from the source", () => {
  it.effect("are the bytes of JSON.stringify + escapeJsonControls of each event, over transcripts of hostile texts", () =>
    Effect.gen(function*() {
      const root = agentsTempDir()
      const texts = fc.sample(fc.array(fc.oneof(hostileChar, fc.string({ maxLength: 12 }), fc.constantFrom("\u007f", "\u0081", "output", "\"output\":\"")), { minLength: 30, maxLength: 90 }).map((a) => a.join("")), { numRuns: 300, seed: 11 })
      const lines = [JSON.stringify({ type: "session_header", session_id: "s-verbatim", agent_id: "agent-v", created_at: 1_740_816_000_000 })]
      texts.forEach((t, i) => {
        const long = t.padEnd(130, "x")
        const item = i % 4 === 0
          ? { type: "message", role: "user", text: long }
          : i % 4 === 1
          ? { type: "thinking", thinking: long }
          : i % 4 === 2
          ? { type: "commentary_text", text: long }
          : { type: "function_call_output", call_id: `call-${i}`, output: long, success: true }
        lines.push(JSON.stringify({ type: "item", seq: i + 1, source: "runtime", item, created_at: 1_740_816_000_000 + i }))
      })
      // a text given with \u escapes (not JSON.stringify's spelling), and one holding the mark's character
      lines.push(`{"type":"item","seq":900,"source":"runtime","item":{"type":"thinking","thinking":"${"\\u00e9t\\u00e9 ".repeat(40)}"},"created_at":1740816000900}`)
      lines.push(JSON.stringify({ type: "item", seq: 901, source: "runtime", item: { type: "thinking", thinking: "\u0081".repeat(200) }, created_at: 1_740_816_000_901 }))
      writeTranscript(root, "agent-v", lines.join("\n") + "\n")
      const streamed = (textBytes: boolean) =>
        withAgentsAdapter(root, (a) => Stream.runCollect(a.stream(locatorOf("agent-v", root), { textBytes })).pipe(Effect.map(Chunk.toArray)))
      // only a writer that asks for them gets the bytes
      expect((yield* streamed(false)).some((e) => CANONICAL_TEXT in e)).toBe(false)
      const events = yield* streamed(true)
      expect(events.length).toBe(lines.length - 1)
      // (a text with a NUL, another control or a lone surrogate is given with \\u escapes: written again)
      const carried = events.filter((e) => CANONICAL_TEXT in e).length
      expect(carried).toBeGreaterThan(20)
      expect(carried).toBeLessThan(events.length)
      expect(Buffer.from(ndjson(events)).equals(reference(events))).toBe(true)
      for (let i = 0; i < events.length; i += 29) expect(Buffer.from(ndjson(events.slice(i, i + 29))).equals(reference(events.slice(i, i + 29)))).toBe(true)
    }))
})
