/**
 * Byte-offset cursors of native Muse Code logs (issue 3): resuming from the
 * cursor of every event yields exactly the events after it, by seeking, and a
 * source replaced or rewritten under a cursor fails `INVALID_CURSOR`.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import { decodeCursor } from "../../src/domain/cursor.js"
import type { Locator, SessionEvent } from "../../src/domain/model.js"
import {
  adapterWith,
  end,
  filler,
  frame,
  jsonl,
  metadata,
  omission,
  opened,
  type ReadLog,
  recordingAccess,
  tempDir,
  writeLog
} from "./native-helpers.js"

const native = (path: string): Locator => ({ locatorClass: "muse-native-session-log", path })
const collect = (s: Stream.Stream<SessionEvent, unknown>) => Effect.map(Stream.runCollect(s), Chunk.toArray)

/** A generated line: a record, an omission marker, or a frame of 0–3 children. */
const Item = fc.oneof(
  fc.record({ t: fc.constant("record" as const), pad: fc.nat(300) }),
  fc.record({ t: fc.constant("omission" as const) }),
  fc.record({ t: fc.constant("frame" as const), n: fc.integer({ min: 0, max: 3 }) })
)

const render = (items: ReadonlyArray<typeof Item extends fc.Arbitrary<infer T> ? T : never>, withEnd: boolean): string => {
  let seq = 1
  const lines: Array<unknown> = []
  for (const it of items) {
    if (it.t === "record") lines.push({ ...filler(seq++), pad: "p".repeat(it.pad) })
    else if (it.t === "omission") lines.push(omission(seq++))
    else lines.push(frame(Array.from({ length: it.n }, () => filler(seq++)), `tx-${seq}`))
  }
  if (withEnd) lines.push(end(seq++))
  return jsonl(lines)
}

describe("cursor resume by byte offset", () => {
  const root = tempDir()
  let n = 0

  it.effect.prop(
    "resuming from the cursor of every event k yields exactly the events after k",
    [fc.array(Item, { minLength: 1, maxLength: 14 }), fc.boolean(), fc.boolean()],
    ([items, withEnd, bom]) =>
      Effect.gen(function*() {
        const text = render(items, withEnd)
        const p = writeLog(root, "2026/09/25", `prop-${n++}`, bom ? "\uFEFF" + text : text)
        const a = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] } })
        const all = yield* collect(a.stream(native(p)))
        for (let k = 0; k < all.length; k++) {
          const rest = yield* collect(a.stream(native(p), { cursor: all[k].cursor }))
          expect(rest).toEqual(all.slice(k + 1))
        }
        // sequences strictly increase; offsets are line starts
        const bytes = fs.readFileSync(p)
        for (let k = 1; k < all.length; k++) expect(all[k].sequence).toBeGreaterThan(all[k - 1].sequence)
        for (const e of all) {
          const off = e.rawReference.offset!
          expect(off === (bom ? 3 : 0) || bytes[off - 1] === 10).toBe(true)
        }
      }),
    { fastCheck: { numRuns: 40 } }
  )

  it.effect("resuming reads nothing before the cursor's line except the 4 KiB head", () =>
    Effect.gen(function*() {
      const lines = [metadata(1, "/w"), ...Array.from({ length: 200 }, (_, i) => filler(i + 2)), end(202)]
      const p = fs.realpathSync(writeLog(root, "2026/09/25", "seek", jsonl(lines)))
      const reads: ReadLog = []
      const a = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] }, access: recordingAccess(reads) })
      const all = yield* collect(a.stream(native(p)))
      const k = 150
      reads.length = 0
      const rest = yield* collect(a.stream(native(p), { cursor: all[k].cursor }))
      expect(rest).toEqual(all.slice(k + 1))
      const ls = all[k].rawReference.offset!
      expect(ls).toBeGreaterThan(4096 * 4)
      const body = reads.filter(([path, off]) => path === p && !(off === 0))
      expect(body.length).toBeGreaterThan(0)
      expect(Math.min(...body.map(([, off]) => off))).toBe(ls)
      expect(reads.filter(([, off]) => off === 0).every(([, , len]) => len <= 4096)).toBe(true)
    }))
})

describe("INVALID_CURSOR for a replaced or rewritten source", () => {
  const root = tempDir()
  const base = jsonl([metadata(1, "/w"), opened(2), frame([filler(3), filler(4)]), filler(5), filler(6)])

  const setup = (name: string) =>
    Effect.gen(function*() {
      const p = writeLog(root, "2026/09/25", name, base)
      const a = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] } })
      const all = yield* collect(a.stream(native(p)))
      return { p, a, all }
    })
  const invalid = (a: { stream: (l: Locator, o?: { cursor?: string }) => Stream.Stream<SessionEvent, unknown> }, p: string, cursor: string) =>
    Effect.map(Effect.flip(collect(a.stream(native(p), { cursor }))), (e) => (e as { code: string }).code)

  it.effect("the cursor's own line rewritten (same length)", () =>
    Effect.gen(function*() {
      const { p, a, all } = yield* setup("rewrite-line")
      const text = fs.readFileSync(p, "utf8")
      fs.writeFileSync(p, text.replace("step 5", "step X"))
      expect(yield* invalid(a, p, all[4].cursor)).toBe("INVALID_CURSOR") // filler(5)
    }))

  it.effect("a retained child's frame rewritten", () =>
    Effect.gen(function*() {
      const { p, a, all } = yield* setup("rewrite-frame")
      fs.writeFileSync(p, fs.readFileSync(p, "utf8").replace("step 3", "step Y"))
      expect(yield* invalid(a, p, all[2].cursor)).toBe("INVALID_CURSOR")
    }))

  it.effect("the head of the log rewritten while the cursor's line stayed", () =>
    Effect.gen(function*() {
      const { p, a, all } = yield* setup("rewrite-head")
      fs.writeFileSync(p, fs.readFileSync(p, "utf8").replace("\"/w\"", "\"/v\""))
      expect(yield* invalid(a, p, all[5].cursor)).toBe("INVALID_CURSOR")
    }))

  it.effect("the log truncated, or replaced by another log", () =>
    Effect.gen(function*() {
      const { p, a, all } = yield* setup("truncate")
      fs.truncateSync(p, 100)
      expect(yield* invalid(a, p, all[5].cursor)).toBe("INVALID_CURSOR")
      fs.rmSync(p)
      fs.writeFileSync(p, jsonl([opened(1), filler(2), filler(3), filler(4), filler(5), filler(6), filler(7)]))
      expect(yield* invalid(a, p, all[3].cursor)).toBe("INVALID_CURSOR")
    }))

  it.effect("a cursor of another source, and a garbage token", () =>
    Effect.gen(function*() {
      const one = yield* setup("one")
      const two = yield* setup("two")
      expect(yield* invalid(two.a, two.p, one.all[1].cursor)).toBe("INVALID_CURSOR")
      expect(yield* invalid(one.a, one.p, "c1.!!!")).toBe("INVALID_CURSOR")
      expect(yield* invalid(one.a, one.p, "nope")).toBe("INVALID_CURSOR")
    }))

  it.effect("a c1 token of the previous build (sha256 line digest, x.hd head digest) still resumes; a garbled one does not", () =>
    Effect.gen(function*() {
      const { p, a, all } = yield* setup("c1-token")
      const k = 2
      const s = decodeCursor(all[k].cursor, all[k].sourceId)
      if (s._tag !== "Right") throw new Error("undecodable")
      const { hd, ...state } = s.right
      const bytes = fs.readFileSync(p)
      const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex").slice(0, 32)
      // What the previous build printed: h over the line without its \n, the head digest under x.hd.
      const c1 = (st: object) => "c1." + Buffer.from(JSON.stringify(st)).toString("base64url")
      const old = {
        ...state,
        h: sha(bytes.subarray(state.ls!, state.off! - 1)),
        x: { hd: sha(bytes.subarray(0, Math.min(4096, state.off!))) }
      }
      expect(hd).toMatch(/^\d+:[0-9a-f]{32}$/)
      const rest = yield* collect(a.stream(native(p), { cursor: c1(old) }))
      expect(rest.map((e) => e.eventId)).toEqual(all.slice(k + 1).map((e) => e.eventId))
      expect(yield* invalid(a, p, c1({ ...old, h: "0".repeat(32) }))).toBe("INVALID_CURSOR")
    }))

  it.effect("an appended log resumes (an append is not a rewrite)", () =>
    Effect.gen(function*() {
      const { p, a, all } = yield* setup("append")
      fs.appendFileSync(p, jsonl([filler(7), end(8)]))
      const rest = yield* collect(a.stream(native(p), { cursor: all[all.length - 1].cursor }))
      expect(rest.map((e) => e.eventId)).toEqual(["muse-seq-7", "muse-seq-8"])
      expect(rest.map((e) => e.sequence)).toEqual([all[all.length - 1].sequence + 1, all[all.length - 1].sequence + 2])
    }))
})

describe("streaming memory", () => {
  it.effect("a log several times the read step is streamed in bounded reads", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const lines = Array.from({ length: 12_000 }, (_, i) => ({ ...filler(i + 1), pad: "z".repeat(200) }))
      const p = fs.realpathSync(writeLog(root, "2026/09/25", "big", jsonl(lines)))
      const reads: ReadLog = []
      const a = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] }, access: recordingAccess(reads) })
      const size = fs.statSync(p).size
      expect(size).toBeGreaterThan(4 * 1024 * 1024)
      let count = 0
      yield* Stream.runForEach(a.stream(native(p)), () => Effect.sync(() => void count++))
      expect(count).toBe(12_000)
      expect(Math.max(...reads.map(([, , len]) => len))).toBeLessThanOrEqual(1024 * 1024)
    }), 60_000)
})
