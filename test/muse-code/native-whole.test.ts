/**
 * The whole-file pass of small native logs (issue 13, item 1): a log of at
 * most `ImportLimits.wholeReadBytes` read from its start is read in one read
 * and mapped in a plain loop. It must give exactly what the streamed pass
 * gives (`wholeReadBytes: 0`): the same events, cursors and provenance, the
 * same error after the same events, the same bytes handed to `onRead`, the
 * same diagnostics, and, through the importer, the same index and
 * checkpoints (fingerprints, prefix bindings).
 */
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import type { Diagnostic, Locator } from "../../src/domain/model.js"
import { sha256Hex } from "../../src/domain/source-id.js"
import { HAND_ON_BYTES, READ_STEP_BYTES } from "../../src/layers/jsonl/index.js"
import * as App from "../../src/layers/app.js"
import * as ImporterLayer from "../../src/layers/index/importer.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index } from "../../src/services/Index.js"
import { ImportFaults, Importer, ImportProgress } from "../../src/services/Importer.js"
import type { SourceRead } from "../../src/services/SessionSource.js"
import {
  adapterWith,
  bound,
  end,
  filler,
  frame,
  metadata,
  omission,
  opened,
  type ReadLog,
  recordingAccess,
  tempDir,
  writeFile,
  writeLog
} from "./native-helpers.js"

const native = (path: string): Locator => ({ locatorClass: "muse-native-session-log", path })
const WHOLE = 1024 * 1024

/** One generated line of a log. */
type Item =
  | { readonly t: "record"; readonly pad: number }
  | { readonly t: "omission" }
  | { readonly t: "frame"; readonly n: number }
  | { readonly t: "bound"; readonly child: number }
  | { readonly t: "junk"; readonly kind: "json" | "utf8" | "shape" }

const ItemArb: fc.Arbitrary<Item> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant("record" as const), pad: fc.nat(400) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("omission" as const) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("frame" as const), n: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("bound" as const), child: fc.integer({ min: 0, max: 2 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant("junk" as const), kind: fc.constantFrom("json" as const, "utf8" as const, "shape" as const) })
  }
)

/** A log's bytes from its items: CRLF or LF endings, an optional BOM, `session.end`, and a tail (none, torn, or a whole line without `\n`). */
const renderLog = (
  items: ReadonlyArray<Item>,
  o: { readonly crlf: boolean; readonly bom: boolean; readonly withEnd: boolean; readonly tail: "none" | "torn" | "unterminated" }
): Buffer => {
  const nl = o.crlf ? "\r\n" : "\n"
  let seq = 1
  const parts: Array<Buffer> = []
  const line = (v: unknown) => parts.push(Buffer.from(JSON.stringify(v) + nl))
  for (const it of items) {
    if (it.t === "record") line({ ...filler(seq++), pad: "p\u00e9".repeat(it.pad) })
    else if (it.t === "omission") line(omission(seq++))
    else if (it.t === "frame") line(frame(Array.from({ length: it.n }, () => filler(seq++)), `tx-${seq}`))
    else if (it.t === "bound") line(bound(seq++, `child-${it.child}`, `sa-${it.child}`))
    else if (it.kind === "json") parts.push(Buffer.from(`{"not json${nl}`))
    else if (it.kind === "utf8") parts.push(Buffer.concat([Buffer.from(`{"bad":"`), Buffer.from([0xc3, 0x28]), Buffer.from(`"}${nl}`)]))
    else parts.push(Buffer.from(`[1,2]${nl}`))
  }
  if (o.withEnd) line(end(seq++))
  if (o.tail === "torn") parts.push(Buffer.from(`{"schema_version":1,"id":"rec-`))
  else if (o.tail === "unterminated") parts.push(Buffer.from(JSON.stringify(filler(seq++))))
  const body = Buffer.concat(parts)
  return o.bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]) : body
}

/** Everything one stream of a log shows: events, the error's code and message, the bytes read, the diagnostics. */
const observe = (root: string, path: string, wholeReadBytes: number, cursor?: string) =>
  Effect.gen(function*() {
    const reads: Array<SourceRead> = []
    const diagnostics: Array<Diagnostic> = []
    const a = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] }, limits: { wholeReadBytes } })
    const events: Array<unknown> = []
    const r = yield* Effect.either(
      Stream.runForEach(
        a.stream(native(path), {
          cursor,
          includeSubagents: true,
          onDiagnostic: (d) => diagnostics.push(d),
          onRead: (read) => reads.push(read)
        }),
        (e) => Effect.sync(() => events.push(e))
      )
    )
    const bySource = new Map<string, { from: number; bytes: Array<Buffer> }>()
    for (const read of reads) {
      const got = bySource.get(read.sourceId) ?? { from: read.offset, bytes: [] }
      // Contiguous: the whole pass reads at once what the streamed pass reads in steps.
      expect(read.offset).toBe(got.from + got.bytes.reduce((n, b) => n + b.length, 0))
      got.bytes.push(Buffer.from(read.bytes))
      bySource.set(read.sourceId, got)
    }
    return {
      events: sha256Hex(JSON.stringify(events)),
      count: events.length,
      error: Either.isLeft(r) ? { code: (r.left as { code: string }).code, message: r.left.message } : null,
      // After an error the source is rejected and its reads unused; the streamed pass stops at the failing step.
      read: Either.isLeft(r) ? null : [...bySource].map(([id, g]) => [id, g.from, sha256Hex(Buffer.concat(g.bytes))]),
      diagnostics,
      all: events as Array<{ cursor: string }>
    }
  })

/** The index an import of `root` leaves, with the given threshold: every table's rows (checkpoints included). */
const importDump = (root: string, file: string, wholeReadBytes: number) => {
  const policy = { workspaceRoots: [root], museRoots: [root], agentsRoot: `${root}/no-agents`, claudeRoot: `${root}/no-claude` }
  const layer = ImporterLayer.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(App.layer(policy, { wholeReadBytes }), IndexSqlite.layer(file), ImportFaults.none, ImportProgress.silent)
    )
  )
  return Effect.gen(function*() {
    const report = yield* Effect.flatMap(Importer, (i) => i.run(planFromPolicy(policy, {})))
    const dump = yield* Effect.flatMap(Index, (i) => i.dump)
    return { report, dump }
  }).pipe(Effect.provide(layer))
}

/** Rows without the wall-clock times an import stamps. */
const timeless = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (k, x) => (/(_at|At|time|Time|Ms|_ms)$/.test(k) && typeof x !== "object" ? "<t>" : x)))

describe("native logs read whole give what the streamed pass gives", () => {
  const root = tempDir()
  let n = 0

  it.effect.prop(
    "events, cursors, errors, reads and diagnostics (CRLF, BOM, torn tail, junk lines, nested logs)",
    [
      fc.array(ItemArb, { maxLength: 14 }),
      fc.record({
        crlf: fc.boolean(),
        bom: fc.boolean(),
        withEnd: fc.boolean(),
        tail: fc.constantFrom("none" as const, "torn" as const, "unterminated" as const)
      }),
      fc.array(fc.array(ItemArb, { maxLength: 5 }), { maxLength: 3 })
    ],
    ([items, o, children]) =>
      Effect.gen(function*() {
        const id = `whole-${n++}`
        const p = writeLog(root, "2026/09/26", id, renderLog(items, o))
        children.forEach((c, i) =>
          writeFile(root, `2026/09/26/${id}/subagent/child-${i}/session.jsonl`, renderLog(c, { ...o, bom: false, tail: "none" }))
        )
        const { all: _s, ...streamed } = yield* observe(root, p, 0)
        const { all, ...whole } = yield* observe(root, p, WHOLE)
        expect(whole).toEqual(streamed)
        // Resuming from a cursor of the whole pass gives what the streamed pass gives from it.
        if (all.length > 0) {
          const c = all[Math.floor(all.length / 2)].cursor
          const { all: _a, ...fromWhole } = yield* observe(root, p, WHOLE, c)
          const { all: _b, ...fromStreamed } = yield* observe(root, p, 0, c)
          expect(fromWhole).toEqual(fromStreamed)
        }
      }),
    { fastCheck: { numRuns: 60 } }
  )

  it.effect("an empty log, a BOM-only log, and logs at, under and over the threshold", () =>
    Effect.gen(function*() {
      const empty = writeLog(root, "2026/09/27", "empty", "")
      const bomOnly = writeLog(root, "2026/09/27", "bom-only", Buffer.from([0xef, 0xbb, 0xbf]))
      const seen = (p: string, t: number) => Effect.map(observe(root, p, t), ({ all: _, ...o }) => o)
      for (const p of [empty, bomOnly]) expect(yield* seen(p, WHOLE)).toEqual(yield* seen(p, 0))
      const text = renderLog([{ t: "record", pad: 50 }, { t: "frame", n: 2 }, { t: "record", pad: 10 }], {
        crlf: false,
        bom: false,
        withEnd: true,
        tail: "none"
      })
      const p = writeLog(root, "2026/09/27", "threshold", text)
      const streamed = yield* seen(p, 0)
      for (const t of [text.length - 1, text.length, text.length + 1]) expect(yield* seen(p, t)).toEqual(streamed)
    }))

  it.effect("a malformed line past the first 256 KiB read step: the events of the earlier steps, then the error", () =>
    Effect.gen(function*() {
      const items: Array<Item> = Array.from({ length: 1400 }, (_, i) => ({ t: "record" as const, pad: 100 + (i % 7) }))
      items.splice(1000, 0, { t: "junk", kind: "json" })
      const p = writeLog(root, "2026/09/27", "late-junk", renderLog(items, { crlf: false, bom: false, withEnd: true, tail: "none" }))
      expect(fs.statSync(p).size).toBeGreaterThan(2 * 256 * 1024)
      expect(fs.statSync(p).size).toBeLessThan(WHOLE)
      const { all: _s, ...streamed } = yield* observe(root, p, 0)
      expect(streamed.error?.code).toBe("MALFORMED_SOURCE")
      // Some events of the earlier steps, not all of the lines before the malformed one.
      expect(streamed.count).toBeGreaterThan(0)
      expect(streamed.count).toBeLessThan(1000)
      const { all: _w, ...whole } = yield* observe(root, p, WHOLE)
      expect(whole).toEqual(streamed)
    }))

  it.effect("a malformed line inside the first read step, past its first hand-on part: the events of the earlier parts, then the error", () =>
    Effect.gen(function*() {
      // ~670-byte lines: the malformed line sits at about 200 KB, in the log's one read step, past its first part.
      const items: Array<Item> = Array.from({ length: 370 }, (_, i) => ({ t: "record" as const, pad: 100 + (i % 7) }))
      items.splice(300, 0, { t: "junk", kind: "json" })
      const p = writeLog(root, "2026/09/27", "early-junk", renderLog(items, { crlf: false, bom: false, withEnd: true, tail: "none" }))
      const junkAt = fs.readFileSync(p).indexOf("{\"not json")
      expect(junkAt).toBeGreaterThan(HAND_ON_BYTES)
      expect(fs.statSync(p).size).toBeLessThan(READ_STEP_BYTES)
      const { all: _s, ...streamed } = yield* observe(root, p, 0)
      expect(streamed.error?.code).toBe("MALFORMED_SOURCE")
      // The events of the whole parts before the malformed line's part: some, not all of the lines before it.
      expect(streamed.count).toBeGreaterThan(0)
      expect(streamed.count).toBeLessThan(300)
      const { all: _w, ...whole } = yield* observe(root, p, WHOLE)
      expect(whole).toEqual(streamed)
    }))

  it.effect("a small log is opened once and read in one read, with no head read apart", () =>
    Effect.gen(function*() {
      const p = fs.realpathSync(
        writeLog(root, "2026/09/27", "one-read", renderLog([{ t: "record", pad: 3000 }, { t: "record", pad: 10 }], {
          crlf: false,
          bom: false,
          withEnd: true,
          tail: "none"
        }))
      )
      const reads: ReadLog = []
      const a = yield* adapterWith({ policy: { workspaceRoots: [root], museRoots: [root] }, access: recordingAccess(reads) })
      const events = yield* Effect.map(Stream.runCollect(a.stream(native(p), { includeSubagents: true })), Chunk.toArray)
      expect(events.length).toBe(3)
      expect(reads).toEqual([[p, 0, fs.statSync(p).size + 1]])
    }))

  it.effect("an import reads small logs whole and leaves the same index and checkpoints as streaming them", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const o = { crlf: false, bom: false, withEnd: true, tail: "none" as const }
      const r = (i: number) => renderLog([{ t: "record", pad: 20 + i }, { t: "frame", n: 2 }, { t: "bound", child: 0 }], o)
      for (let i = 0; i < 6; i++) {
        const id = `imp-${i}`
        writeLog(dir, "2026/09/28", id, Buffer.concat([Buffer.from(JSON.stringify(metadata(0, dir)) + "\n"), r(i)]))
        if (i % 2 === 0) writeFile(dir, `2026/09/28/${id}/subagent/child-0/session.jsonl`, renderLog([{ t: "record", pad: 5 }], o))
      }
      // One log torn (provisional), one malformed (rejected).
      writeLog(dir, "2026/09/28", "imp-torn", Buffer.concat([Buffer.from(JSON.stringify(metadata(0, dir)) + "\n"), renderLog([{ t: "record", pad: 3 }], { ...o, withEnd: false, tail: "torn" })]))
      writeLog(dir, "2026/09/28", "imp-bad", Buffer.concat([Buffer.from(JSON.stringify(metadata(0, dir)) + "\n" + JSON.stringify(opened(1)) + "\n"), renderLog([{ t: "junk", kind: "shape" }], o)]))
      const a = yield* importDump(dir, `${dir}/streamed.db`, 0)
      const b = yield* importDump(dir, `${dir}/whole.db`, WHOLE)
      expect(a.report.sources.accepted).toBeGreaterThan(0)
      expect(timeless(b.report)).toEqual(timeless(a.report))
      expect(timeless(b.dump)).toEqual(timeless(a.dump))
    }))
})
