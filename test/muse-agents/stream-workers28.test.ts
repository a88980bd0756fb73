/**
 * `stream muse-agents` on stream workers (issue 13, session 28): the bytes a
 * large transcript's stream writes when workers make them
 * (`streamTranscriptNdjson`) are the bytes of the same stream made in one
 * thread (`streamTranscript`'s events, `encodeNdjson` a chunk at a time), with
 * the same warnings after them and the same error after the same bytes: on
 * every fixture, on generated hostile transcripts (invalid UTF-8, blank,
 * oversized, zeroed and control-holding lines, inexact numbers, a truncated
 * last line), from a cursor, and on a file that shrinks while it is read.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import type { Diagnostic, Locator } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { encodeNdjson } from "../../src/layers/ndjson.js"
import { type AgentsDeps, streamTranscript } from "../../src/layers/muse-agents/source.js"
import { streamTranscriptNdjson } from "../../src/layers/muse-agents/stream-workers.js"
import { AccessPolicy } from "../../src/services/AccessPolicy.js"
import { ImportLimits, type ImportLimitsShape } from "../../src/services/ImportLimits.js"
import type { StreamOptions } from "../../src/services/SessionSource.js"
import { SourceAccess } from "../../src/services/SourceAccess.js"
import { FIXTURE_ROOT, locatorOf, removeDir, tempDir, writeTranscript } from "./helpers.js"

const temps: Array<string> = []
afterAll(() => temps.forEach(removeDir))

/** What a stream wrote: its bytes, the warnings said, and the code of the error it ended with (or null). */
interface Written {
  readonly bytes: Buffer
  readonly warnings: Array<string>
  readonly error: string | null
}

const withDeps = <A, E>(root: string, f: (deps: AgentsDeps) => Effect.Effect<A, E>, limits: Partial<ImportLimitsShape> = {}) =>
  Effect.gen(function*() {
    const deps: AgentsDeps = {
      access: yield* SourceAccess,
      limits: yield* ImportLimits,
      policy: yield* AccessPolicy,
      env: {},
      home: "/nonexistent"
    }
    return yield* f(deps)
  }).pipe(Effect.provide(App.layer({ agentsRoot: root }, limits)))

/** The stream made in this thread, encoded a chunk at a time as `stream` does. */
const inThread = (deps: AgentsDeps, locator: Locator, options: StreamOptions = {}): Effect.Effect<Written> =>
  Effect.gen(function*() {
    const parts: Array<Buffer> = []
    const warnings: Array<string> = []
    const run = Stream.runForEachChunk(
      streamTranscript(deps, locator, { ...options, textBytes: true, onWarning: (d: Diagnostic) => warnings.push(JSON.stringify(d)) }),
      (c) =>
        Effect.sync(() => {
          const lease = encodeNdjson(c)
          parts.push(Buffer.from(lease.bytes))
          lease.release()
        })
    )
    const r = yield* Effect.either(run)
    return { bytes: Buffer.concat(parts), warnings, error: Either.isLeft(r) ? r.left.code : null }
  })

/** The stream made by `workers` stream workers (from any size: `minBytes` 0). */
const onWorkers = (deps: AgentsDeps, locator: Locator, options: StreamOptions = {}, workers = 2): Effect.Effect<Written> =>
  Effect.gen(function*() {
    const parts: Array<Buffer> = []
    const warnings: Array<string> = []
    const r = yield* Effect.either(Effect.gen(function*() {
      const leases = yield* streamTranscriptNdjson(deps, locator, { ...options, onWarning: (d: Diagnostic) => warnings.push(JSON.stringify(d)) }, workers, 0)
      expect(leases).toBeDefined()
      yield* Stream.runForEach(leases!, (lease) =>
        Effect.sync(() => {
          parts.push(Buffer.from(lease.bytes))
          lease.release()
        }))
    }))
    return { bytes: Buffer.concat(parts), warnings, error: Either.isLeft(r) ? r.left.code : null }
  })

/** A session header, then `n` items of every kind the generator writes, with hostile lines among them. */
const hostileTranscript = (n: number): Buffer => {
  const lines: Array<Buffer> = [Buffer.from(JSON.stringify({ type: "session_header", session_id: "sess-h", agent_id: "h", created_at: 1 }) + "\n")]
  const long = (i: number, extra = "") => `text ${i} ${"word ".repeat(40 + (i % 90))}${extra}`
  for (let i = 0; i < n; i++) {
    const at = 1_740_000_000_000 + i * 1000
    const k = i % 13
    let line: Buffer
    if (k === 0) line = Buffer.from(JSON.stringify({ type: "item", seq: i, source: "user", item: { type: "message", role: "user", text: long(i) }, created_at: at }))
    else if (k === 1) line = Buffer.from(JSON.stringify({ type: "item", seq: i, source: "model", item: { type: "thinking", thinking: long(i, "\u0085 \u202e bidi \u0091 c1") }, created_at: at }))
    else if (k === 2) line = Buffer.from(JSON.stringify({ type: "item", seq: i, source: "model", item: { type: "function_call", name: "shell", call_id: `c${i}`, arguments: JSON.stringify({ cmd: "ls", n: 12345678901234567890 }) }, created_at: at }))
    else if (k === 3) line = Buffer.from(JSON.stringify({ type: "item", seq: i, source: "tool", item: { type: "function_call_output", call_id: `c${i - 1}`, output: long(i, " \u00e9\u4e2d\ud83d\ude00") }, created_at: at }))
    else if (k === 4) line = Buffer.concat([Buffer.from(`{"type":"item","seq":${i},"source":"user","item":{"type":"message","role":"user","text":"bad `), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(`"}}`)])
    else if (k === 5) line = Buffer.from("")
    else if (k === 6) line = Buffer.from(`{"type":"item","seq":${i},"source":"model","item":{"type":"message","role":"assistant","text":"${long(i)}"},"created_at":1.0000000000000000001e3}`)
    else if (k === 7) line = Buffer.from(`{"type":"item","seq":${i}, "source":"model","item":{"type":"commentary","text":"${"x".repeat(i % 5 === 0 ? 70_000 : 200)}"}}`)
    else if (k === 8) line = Buffer.alloc(40 + (i % 7), 0)
    else if (k === 9) line = Buffer.from("not json at all {")
    else if (k === 10) line = Buffer.from(JSON.stringify({ type: "compaction_checkpoint", seq: i, summary: long(i), created_at: at }))
    else if (k === 11) line = Buffer.from(JSON.stringify({ type: "item", seq: i, source: "model", item: { type: "message_parts", role: "assistant", parts: [{ text: long(i) }, { text: "\u007f\u0081 marks" }] }, created_at: at }))
    else line = Buffer.from(JSON.stringify({ type: "item", seq: i, source: "developer", item: { type: "message", role: "developer", text: `short ${i}\r` }, created_at: at }) + "\r")
    lines.push(line, Buffer.from("\n"))
  }
  // A truncated last line: half a record, no newline.
  lines.push(Buffer.from(`{"type":"item","seq":${n},"source":"user","item":{"type":"mess`))
  return Buffer.concat(lines)
}

describe("stream muse-agents on stream workers (issue 13)", () => {
  it.effect("every fixture transcript: the same bytes and warnings as in one thread", () =>
    withDeps(FIXTURE_ROOT, (deps) =>
      Effect.gen(function*() {
        const agents = fs.readdirSync(FIXTURE_ROOT).filter((a) => fs.existsSync(locatorOf(a).path))
        expect(agents.length).toBeGreaterThanOrEqual(4)
        for (const agent of agents) {
          const want = yield* inThread(deps, locatorOf(agent))
          const got = yield* onWorkers(deps, locatorOf(agent))
          expect(got.error, agent).toBe(want.error)
          expect(got.warnings, agent).toEqual(want.warnings)
          expect(got.bytes.equals(want.bytes), agent).toBe(true)
        }
      })), 60_000)

  it.effect("a hostile transcript of many batches: the same bytes, warnings and line numbers, with 1 and 2 workers, and from a cursor", () => {
    const dir = tempDir()
    temps.push(dir)
    const root = nodePath.join(dir, "agents")
    writeTranscript(root, "h", hostileTranscript(12_000))
    const locator = locatorOf("h", root)
    // Over 2 MiB: several read steps and several batches of 8 parts; a 64 KiB record limit makes some lines oversized.
    expect(fs.statSync(locator.path).size).toBeGreaterThan(2 * 1024 * 1024)
    return withDeps(root, (deps) =>
      Effect.gen(function*() {
        const want = yield* inThread(deps, locator)
        expect(want.error).toBeNull()
        // The hostile lines are there: warnings said, C1 and bidi characters escaped, no raw ones.
        expect(want.warnings.length).toBeGreaterThanOrEqual(2)
        expect(want.bytes.includes(Buffer.from("\\u202e"))).toBe(true)
        expect(want.bytes.includes(Buffer.from("\u202e"))).toBe(false)
        for (const workers of [1, 2]) {
          const got = yield* onWorkers(deps, locator, {}, workers)
          expect(got.error).toBeNull()
          expect(got.warnings).toEqual(want.warnings)
          expect(got.bytes.length).toBe(want.bytes.length)
          expect(got.bytes.equals(want.bytes)).toBe(true)
        }
        // From the cursor of an event in the middle of the file.
        const lines = want.bytes.toString("utf8").split("\n")
        const mid = JSON.parse(lines[Math.floor(lines.length / 2)]) as { cursor: string }
        const fromWant = yield* inThread(deps, locator, { cursor: mid.cursor })
        const fromGot = yield* onWorkers(deps, locator, { cursor: mid.cursor })
        expect(fromWant.bytes.length).toBeGreaterThan(0)
        expect(fromGot.bytes.equals(fromWant.bytes)).toBe(true)
        expect(fromGot.warnings).toEqual(fromWant.warnings)
      }), { maxRecordBytes: 64 * 1024 })
  }, 120_000)

  it.effect("a transcript that shrinks while it is read: the same bytes before the same error", () => {
    const dir = tempDir()
    temps.push(dir)
    const root = nodePath.join(dir, "agents")
    const content = hostileTranscript(12_000)
    const path = writeTranscript(root, "s", content)
    const locator = locatorOf("s", root)
    // At the third read, the file is cut to 1.5 MiB (a writer truncating it in place).
    const shrinking = (): StreamOptions => {
      let reads = 0
      fs.writeFileSync(path, content)
      return {
        onRead: () => {
          if (++reads === 3) fs.truncateSync(path, 1536 * 1024)
        }
      }
    }
    return withDeps(root, (deps) =>
      Effect.gen(function*() {
        const want = yield* inThread(deps, locator, shrinking())
        expect(want.error).toBe("MALFORMED_SOURCE")
        expect(want.bytes.length).toBeGreaterThan(0)
        const got = yield* onWorkers(deps, locator, shrinking())
        expect(got.error).toBe("MALFORMED_SOURCE")
        expect(got.warnings).toEqual(want.warnings)
        expect(got.bytes.equals(want.bytes)).toBe(true)
      }), { maxRecordBytes: 64 * 1024 })
  }, 120_000)
})
