/**
 * The gauntlet for `muse-code` (seed 001; policy FAIL CLOSED: anything it
 * cannot trust is a typed error), in both of its formats:
 *
 * - native `session.jsonl` (`muse-native-session-log`) under `--muse-root`.
 *   Every content case writes two logs: T ("tail": workspace evidence first,
 *   then a good record, the case's bytes, a good record) and H ("head": a good
 *   record, the case's bytes, then the evidence). `inspect`/`stream` read T;
 *   `discover` must select T and give H the receipt the discovery budget
 *   implies (the case's bytes stand before H's evidence); `import` streams
 *   every selected log in full and rejects those that fail. The one lenient
 *   rule of the native policy: a torn last line with no `session.end` before
 *   it is an append in progress, left out (`provisional`).
 * - `manual-export` trajectory documents, read whole: a case about lines is
 *   tested as its closest document variant (named in the test). Exports are
 *   never discovered (`UNSUPPORTED_OPERATION` without `--muse-root`).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ErrorCode } from "../../src/domain/errors.js"
import type { Locator, SessionEvent } from "../../src/domain/model.js"
import { makeSourceId } from "../../src/domain/source-id.js"
import { end, filler, metadata, record } from "../muse-code/native-lines.js"
import {
  BIG_ID,
  BOM,
  CASES,
  type CaseId,
  CONTROL,
  cutAt,
  EMOJI,
  EPOCH,
  EPOCH_ISO,
  LONE_SURROGATE,
  LONE_SURROGATE_JSON,
  MIB,
  NO_ZONE,
  nested,
  SEPARATORS,
  titleOf,
  writeBigLineFile,
  YEAR_10000_MICROS
} from "./cases.js"
import {
  caseDir,
  discover,
  expectFail,
  expectOk,
  fileDir,
  GAUNTLET_TIMEOUT,
  limitOf,
  guarded,
  importRun,
  inspect,
  isolatedPolicy,
  put,
  rejectedCodes,
  snapshotDir,
  stream
} from "./harness.js"
import { Appender, expectedWith, whileAppending, whileReplacing } from "./live.js"

const DATE = "2026/09/25"
const line = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v)) + "\n"
const prompt = (seq: number, text: string, extra: Record<string, unknown> = {}) =>
  ({ ...record(seq, "runtime.session", { event: { kind: "started", prompt: text }, kind: "run" }), ...extra })
const withPrompt = (seq: number, text: string) => JSON.stringify(prompt(seq, text))

// ---------------------------------------------------------------------------
// Native

/** What the fail-closed policy implies for T, and the discovery receipt of H. */
interface NativeVerdict {
  /** The case's bytes (placed between good records in T and H). */
  readonly bad: () => string | Buffer
  /** The bytes end the file (a torn line): nothing follows them in T or H. */
  readonly atEof?: true
  /** Whole files instead (empty, BOM only). */
  readonly whole?: () => Buffer
  readonly fail?: ErrorCode
  /** T's events (ids), when it is accepted. */
  readonly eventIds?: ReadonlyArray<string>
  readonly status?: "complete" | "provisional"
  readonly diagnostics?: ReadonlyArray<string>
  /** H's receipt: `matched`, or the inconclusive reason code. */
  readonly head: "matched" | string
  readonly events?: (es: ReadonlyArray<SessionEvent>) => void
  readonly variant?: string
}

const GOOD4 = ["muse-seq-0", "muse-seq-1", "muse-seq-2", "muse-seq-9"]
const payloadPrompt = (e: SessionEvent) => ((e.extensions["native.muse"] as any).payload.event.prompt as string)

const multibyte = (wsPath: string) => {
  // T: metadata line, filler line, then a prompt whose emoji starts 1 byte before 1 MiB.
  const head = line(metadata(0, wsPath)) + line(filler(1))
  const probe = withPrompt(2, "@@")
  const before = Buffer.byteLength(head) + Buffer.byteLength(probe.slice(0, probe.indexOf("@@")))
  return "p".repeat(MIB - 1 - before) + EMOJI + " end"
}

const NATIVE = (ws: string): Partial<Record<CaseId, NativeVerdict>> => ({
  "empty": { bad: () => "", whole: () => Buffer.alloc(0), eventIds: [], status: "provisional", diagnostics: ["NO_SESSION_END"], head: "NO_WORKSPACE_EVIDENCE" },
  "bom-only": { bad: () => "", whole: () => BOM, eventIds: [], status: "provisional", diagnostics: ["NO_SESSION_END"], head: "NO_WORKSPACE_EVIDENCE" },
  "crlf": { bad: () => line(filler(2)).replace("\n", "\r\n"), eventIds: GOOD4, status: "provisional", head: "matched" },
  "cut-at-eof": {
    bad: () => withPrompt(10, "cut").slice(0, 50),
    atEof: true,
    eventIds: ["muse-seq-0", "muse-seq-1"],
    status: "provisional",
    diagnostics: ["TORN_TAIL_LEFT_OUT", "NO_SESSION_END"],
    head: "TRUNCATED"
  },
  "torn-continued": { bad: () => withPrompt(2, "torn").slice(0, 40) + line(filler(3)), fail: "MALFORMED_SOURCE", head: "MALFORMED" },
  "multibyte-split": {
    variant: "a 4-byte character cut 1|3 at 1 MiB, the read step",
    bad: () => line(withPrompt(2, multibyte(ws))),
    eventIds: GOOD4,
    status: "provisional",
    head: "matched",
    events: (es) => expect(payloadPrompt(es[2])).toBe(multibyte(ws))
  },
  "control-nul": { bad: () => line(withPrompt(2, "@@").replace("@@", CONTROL)), fail: "MALFORMED_SOURCE", head: "MALFORMED" },
  "u2028": {
    bad: () => line(withPrompt(2, SEPARATORS)),
    eventIds: GOOD4,
    status: "provisional",
    head: "matched",
    events: (es) => expect(payloadPrompt(es[2])).toBe(SEPARATORS)
  },
  "lone-surrogate": {
    bad: () => line(withPrompt(2, "@@").replace("\"@@\"", LONE_SURROGATE_JSON)),
    eventIds: GOOD4,
    status: "provisional",
    head: "matched",
    events: (es) => expect(payloadPrompt(es[2])).toBe(LONE_SURROGATE)
  },
  "non-object-lines": { bad: () => "null\n[1,2,3]\n42\n", fail: "MALFORMED_SOURCE", head: "MALFORMED" },
  "duplicate-keys": {
    variant: "the last occurrence wins (JSON.parse), as the record's own reader",
    bad: () => line(withPrompt(7, "dup").replace("\"sequence\":7", "\"sequence\":7,\"sequence\":2")),
    eventIds: GOOD4,
    status: "provisional",
    head: "matched"
  },
  "big-ids": { bad: () => line(withPrompt(2, "big").replace("\"sequence\":2", `"sequence":${BIG_ID}`)), fail: "MALFORMED_SOURCE", head: "MALFORMED" },
  "nested-100": {
    bad: () => line(JSON.stringify(prompt(2, "deep")).slice(0, -1) + `,"deep":${nested(100)}}`),
    fail: "RESOURCE_LIMIT_EXCEEDED",
    head: "BUDGET_NESTING_DEPTH"
  },
  "line-64mib": { bad: () => "", fail: "RESOURCE_LIMIT_EXCEEDED", head: "BUDGET_RECORD_BYTES" },
  "ts-no-zone": { bad: () => line(prompt(2, "t", { recorded_at: NO_ZONE })), fail: "MALFORMED_SOURCE", head: "matched" },
  "ts-seconds": {
    bad: () => line(prompt(2, "t", { recorded_at: EPOCH.seconds })),
    eventIds: GOOD4,
    status: "provisional",
    head: "matched",
    events: (es) => expect(es[2].occurredAt).toBe(EPOCH_ISO.seconds)
  },
  "ts-millis": {
    bad: () => line(prompt(2, "t", { recorded_at: EPOCH.millis })),
    eventIds: GOOD4,
    status: "provisional",
    head: "matched",
    events: (es) => expect(es[2].occurredAt).toBe(EPOCH_ISO.millis)
  },
  "ts-micros": {
    bad: () => line(prompt(2, "t", { recorded_at: EPOCH.micros })),
    eventIds: GOOD4,
    status: "provisional",
    head: "matched",
    events: (es) => expect(es[2].occurredAt).toBe(EPOCH_ISO.micros)
  },
  "ts-year-10000": { bad: () => line(prompt(2, "t", { recorded_at: YEAR_10000_MICROS })), fail: "MALFORMED_SOURCE", head: "matched" }
})

const tBytes = (v: NativeVerdict, ws: string) =>
  v.whole?.() ?? Buffer.concat([
    Buffer.from(line(metadata(0, ws)) + line(filler(1))),
    Buffer.from(v.bad()),
    Buffer.from(v.atEof ? "" : line(filler(9)))
  ])
const hBytes = (v: NativeVerdict, ws: string) =>
  v.whole?.() ?? Buffer.concat([Buffer.from(line(filler(0))), Buffer.from(v.bad()), Buffer.from(v.atEof ? "" : line(metadata(5, ws)))])

/** A native case folder: `root` (the muse root, watched), `ws` (the workspace), `priv`. */
const nativeSetup = (make?: (root: string, ws: string) => void, shared?: { root: string; ws: string }) => {
  const dir = caseDir()
  const priv = nodePath.join(dir, "private")
  fs.mkdirSync(priv)
  const root = shared?.root ?? nodePath.join(dir, "sessions")
  const ws = shared?.ws ?? nodePath.join(dir, "ws")
  if (shared === undefined) {
    fs.mkdirSync(root)
    fs.mkdirSync(ws)
    make?.(root, ws)
  }
  const t = nodePath.join(root, DATE, "t-1", "session.jsonl")
  const h = nodePath.join(root, DATE, "h-1", "session.jsonl")
  const policy = isolatedPolicy(priv, { museRoots: [root], workspaceRoots: [ws] })
  const locator: Locator = { locatorClass: "muse-native-session-log", path: t }
  return { dir, priv, root, ws, t, h, policy, locator }
}

let big: { root: string; ws: string }
let bigDir: string
beforeAll(() => {
  bigDir = fileDir()
  big = { root: nodePath.join(bigDir, "sessions"), ws: nodePath.join(bigDir, "ws") }
  fs.mkdirSync(big.ws, { recursive: true })
  const bigLine = { prefix: JSON.stringify(prompt(2, "")).replace("\"prompt\":\"\"", "\"prompt\":\"").split("\"prompt\":\"")[0] + "\"prompt\":\"", suffix: "" }
  const after = JSON.stringify(prompt(2, "")).split("\"prompt\":\"")[1] // `"},"kind":"run"}}`
  for (const [folder, head, tail] of [
    ["t-1", line(metadata(0, big.ws)) + line(filler(1)), line(filler(9))],
    ["h-1", line(filler(0)), line(metadata(5, big.ws))]
  ] as const) {
    const p = nodePath.join(big.root, DATE, folder, "session.jsonl")
    fs.mkdirSync(nodePath.dirname(p), { recursive: true })
    writeBigLineFile(p, { head, prefix: bigLine.prefix, suffix: after, tail })
  }
  snapshotDir(big.root)
})
afterAll(() => fs.rmSync(bigDir, { recursive: true, force: true }))

describe("gauntlet: muse-code native session.jsonl (fail closed)", () => {
  it("the table covers every case of issue 7", () => {
    const special = ["symlink-loop", "root-is-file", "grows-while-streamed", "replaced-while-streamed", "sqlite-locked", "sqlite-wal-writer"]
    for (const [id] of CASES) expect(id in NATIVE("/ws") || special.includes(id), id).toBe(true)
  })

  for (const id of Object.keys(NATIVE("/ws")) as Array<CaseId>) {
    const v0 = NATIVE("/ws")[id]!
    const setup = () => {
      if (id === "line-64mib") return nativeSetup(undefined, big)
      return nativeSetup((root, ws) => {
        const v = NATIVE(ws)[id]!
        put(root, `${DATE}/t-1/session.jsonl`, tBytes(v, ws))
        put(root, `${DATE}/h-1/session.jsonl`, hBytes(v, ws))
      })
    }
    const verdict = (ws: string) => NATIVE(ws)[id]!
    describe(`${titleOf(id)}${v0.variant !== undefined ? ` (${v0.variant})` : ""}`, () => {
      it.effect(`inspect: ${v0.fail ?? "accepted"}`, () =>
        Effect.gen(function*() {
          const s = setup()
          const v = verdict(s.ws)
          const o = yield* guarded([s.root], inspect("muse-code", s.policy, s.locator), { limit: limitOf(id) })
          if (v.fail !== undefined) return expectFail(o, v.fail)
          const r = expectOk(o)
          expect(r.status).toBe(v.status)
          expect(r.eventCount).toBe(v.eventIds!.length)
          expect(r.diagnostics.map((d) => d.code)).toEqual(v.diagnostics ?? ["NO_SESSION_END"])
        }), limitOf(id))
      it.effect(`stream: ${v0.fail ?? "the good records"}`, () =>
        Effect.gen(function*() {
          const s = setup()
          const v = verdict(s.ws)
          const o = yield* guarded([s.root], stream("muse-code", s.policy, s.locator), { limit: limitOf(id) })
          if (v.fail !== undefined) return expectFail(o, v.fail)
          const es = expectOk(o)
          expect(es.map((e) => e.eventId)).toEqual(v.eventIds)
          v.events?.(es)
        }), limitOf(id))
      it.effect(`discover: T selected, H ${v0.head}`, () =>
        Effect.gen(function*() {
          const s = setup()
          const v = verdict(s.ws)
          const r = expectOk(yield* guarded([s.root], discover("muse-code", s.policy), { limit: limitOf(id) }))
          const receipts = (r.receipts as any).museSourceInspections as Array<any>
          const byPath = (p: string) => receipts.find((x) => x.sourceId === makeSourceId("muse-code", "muse-native-session-log", p))
          const expectT = v.whole !== undefined ? v.head : "matched"
          for (const [p, want] of [[s.t, expectT], [s.h, v.head]] as const) {
            const rc = byPath(p)
            expect(rc, p).toBeDefined()
            if (want === "matched") expect(rc.outcome).toBe("matched")
            else expect({ outcome: rc.outcome, reasonCode: rc.reasonCode }).toEqual({ outcome: "inconclusive", reasonCode: want })
          }
          const inconclusive = v.head !== "matched"
          expect(r.status).toBe(inconclusive ? "not-checked" : "checked")
          expect(r.coverage).toBe(inconclusive ? "partial" : "complete")
        }), limitOf(id))
      it.effect(`import: ${v0.fail !== undefined ? `rejected ${v0.fail}` : "accepted"}`, () =>
        Effect.gen(function*() {
          const s = setup()
          const v = verdict(s.ws)
          const r = expectOk(yield* guarded([s.root], importRun(s.priv, s.policy), { limit: limitOf(id) }))
          const selected = (v.whole !== undefined ? 0 : 1) + (v.head === "matched" ? 1 : 0)
          expect(r.sources.discovered).toBe(selected)
          if (v.fail !== undefined) {
            expect(rejectedCodes(r)).toEqual(selected > 0 ? { [v.fail]: selected } : {})
            expect(r.sources.accepted).toBe(0)
          } else {
            expect(rejectedCodes(r)).toEqual({})
            expect(r.sources.accepted).toBe(selected)
          }
          expect(r.coverage).toBe(v.fail !== undefined || v.head !== "matched" ? "partial" : "complete")
        }), limitOf(id))
    })
  }

  it.effect("a line cut at EOF after session.end is not an append in progress: MALFORMED_SOURCE", () =>
    Effect.gen(function*() {
      const s = nativeSetup((root, ws) =>
        put(root, `${DATE}/t-1/session.jsonl`, line(metadata(0, ws)) + line(end(1)) + withPrompt(2, "late").slice(0, 30))
      )
      expectFail(yield* guarded([s.root], inspect("muse-code", s.policy, s.locator)), "MALFORMED_SOURCE")
      expectFail(yield* guarded([s.root], stream("muse-code", s.policy, s.locator)), "MALFORMED_SOURCE")
    }), GAUNTLET_TIMEOUT)

  describe(titleOf("symlink-loop"), () => {
    const loops = () => {
      const s = nativeSetup((root, ws) => put(root, `${DATE}/t-1/session.jsonl`, line(metadata(0, ws)) + line(end(1))))
      fs.symlinkSync("loopB", nodePath.join(s.root, "2027"))
      fs.symlinkSync("2027", nodePath.join(s.root, "loopB"))
      fs.symlinkSync(".", nodePath.join(s.root, "2026", "09", "26")) // a day folder that is the month again
      fs.symlinkSync("session.jsonl", nodePath.join(s.root, DATE, "t-1", "self.jsonl"))
      const through: Locator = { locatorClass: "muse-native-session-log", path: nodePath.join(s.root, "2027", "01", "01", "x", "session.jsonl") }
      const viaDay: Locator = { locatorClass: "muse-native-session-log", path: nodePath.join(s.root, "2026", "09", "26", "25", "t-1", "session.jsonl") }
      return { ...s, through, viaDay }
    }
    it.effect("inspect: through the loop, or through a looping day folder: SOURCE_SYMLINK", () =>
      Effect.gen(function*() {
        const s = loops()
        expectFail(yield* guarded([s.root], inspect("muse-code", s.policy, s.through)), "SOURCE_SYMLINK")
        expectFail(yield* guarded([s.root], inspect("muse-code", s.policy, s.viaDay)), "SOURCE_SYMLINK")
      }), GAUNTLET_TIMEOUT)
    it.effect("stream: SOURCE_SYMLINK", () =>
      Effect.gen(function*() {
        const s = loops()
        expectFail(yield* guarded([s.root], stream("muse-code", s.policy, s.viaDay)), "SOURCE_SYMLINK")
      }), GAUNTLET_TIMEOUT)
    it.effect("discover: the loops are skipped and tallied, never followed; the real log is selected", () =>
      Effect.gen(function*() {
        const s = loops()
        const r = expectOk(yield* guarded([s.root], discover("muse-code", s.policy)))
        expect(r.sources.map((x) => x.locator.path)).toEqual([s.t])
        expect((r.receipts as any).museEnumeration.symlinksSkipped).toBe(3)
        expect(r.coverage).toBe("complete")
      }), GAUNTLET_TIMEOUT)
    it.effect("import: the real log imported once", () =>
      Effect.gen(function*() {
        const s = loops()
        const r = expectOk(yield* guarded([s.root], importRun(s.priv, s.policy)))
        expect(r.sources).toMatchObject({ discovered: 1, accepted: 1, rejected: 0 })
        expect(r.eventsAdded).toBe(2)
      }), GAUNTLET_TIMEOUT)
  })

  describe(titleOf("root-is-file"), () => {
    const fileRoot = () => {
      const s = nativeSetup()
      const file = put(s.dir, "sessions-file", line(metadata(0, s.ws)))
      return { ...s, file, policy: { ...s.policy, museRoots: [file] }, locator: { locatorClass: "muse-native-session-log" as const, path: file } }
    }
    it.effect("inspect of the root file itself: SOURCE_OUTSIDE_ALLOWED_ROOT (no usable root covers it)", () =>
      Effect.gen(function*() {
        const s = fileRoot()
        expectFail(yield* guarded([s.file], inspect("muse-code", s.policy, s.locator)), "SOURCE_OUTSIDE_ALLOWED_ROOT")
      }), GAUNTLET_TIMEOUT)
    it.effect("stream: a path through the file: SOURCE_NOT_REGULAR_FILE", () =>
      Effect.gen(function*() {
        const s = fileRoot()
        const through = { ...s.locator, path: nodePath.join(s.file, DATE, "x", "session.jsonl") }
        expectFail(yield* guarded([s.file], stream("muse-code", s.policy, through)), "SOURCE_NOT_REGULAR_FILE")
      }), GAUNTLET_TIMEOUT)
    it.effect("discover: SOURCE_NOT_REGULAR_FILE", () =>
      Effect.gen(function*() {
        const s = fileRoot()
        expectFail(yield* guarded([s.file], discover("muse-code", s.policy)), "SOURCE_NOT_REGULAR_FILE")
      }), GAUNTLET_TIMEOUT)
    it.effect("import: muse-code unavailable (SOURCE_NOT_REGULAR_FILE), coverage partial", () =>
      Effect.gen(function*() {
        const s = fileRoot()
        const r = expectOk(yield* guarded([s.file], importRun(s.priv, s.policy)))
        expect(r.providers.find((p) => p.provider === "muse-code")).toMatchObject({ coverage: "partial", reasonCode: "SOURCE_NOT_REGULAR_FILE" })
        expect(r.coverage).toBe("partial")
      }), GAUNTLET_TIMEOUT)
  })

  // ---- live cases
  const PAD = "w".repeat(900)
  const N = 1400
  const longLog = (ws: string, word = "filler") => {
    let text = line(metadata(0, ws))
    for (let i = 1; i <= N; i++) text += line(withPrompt(i, `${word} ${i} ${PAD}`))
    return Buffer.from(text)
  }
  const allIds = (k: number) => Array.from({ length: N + 1 + k }, (_, i) => `muse-seq-${i}`)
  const growing = (whole: boolean) => {
    let initial = Buffer.alloc(0)
    const s = nativeSetup((root, ws) => {
      initial = longLog(ws)
      put(root, `${DATE}/t-1/session.jsonl`, initial)
    })
    const add = Buffer.from(Array.from({ length: 40 }, (_, i) => line(withPrompt(N + 1 + i, `grown ${i} ${EMOJI}`))).join(""))
    const cuts: Array<number> = []
    for (let o = 11; o < add.length; o += 37) cuts.push(o)
    cuts.push(add.indexOf(Buffer.from(EMOJI)) + 1)
    const pieces = whole ? add.toString("utf8").split(/(?<=\n)/).map((l) => Buffer.from(l)) : cutAt(add, [...new Set(cuts)].sort((a, b) => a - b))
    const before = snapshotDir(s.root)
    return {
      ...s,
      appender: new Appender(s.t, pieces),
      expectedAfter: () => ({ [s.root]: expectedWith(s.root, before, [[s.t, Buffer.concat([initial, add])]]) })
    }
  }
  for (const [id, whole, how] of [
    ["grows-while-streamed", false, "pieces cut mid-line and mid-character"],
    ["sqlite-wal-writer", true, "n/a (no SQLite in this format); closest: a writer appends whole records through its own fd"]
  ] as const) {
    describe(`${titleOf(id)} (${how})`, () => {
      it.effect("stream: a prefix of the written records, never a torn one; no error", () =>
        Effect.gen(function*() {
          const g = growing(whole)
          const es = expectOk(
            yield* guarded(
              [g.root],
              Effect.ensuring(
                stream("muse-code", g.policy, g.locator, { tap: (_, i) => i % 100 === 0 && g.appender.step() }),
                Effect.sync(() => g.appender.finish())
              ),
              { expectedAfter: g.expectedAfter }
            )
          )
          expect(es.length).toBeGreaterThanOrEqual(N + 1)
          expect(es.map((e) => e.eventId)).toEqual(allIds(40).slice(0, es.length))
          for (const e of es.slice(N + 1)) expect(payloadPrompt(e)).toMatch(new RegExp(`^grown \\d+ ${EMOJI}$`, "u"))
        }), GAUNTLET_TIMEOUT)
      it.effect("inspect: accepted, provisional, a count between the sizes", () =>
        Effect.gen(function*() {
          const g = growing(whole)
          const r = expectOk(yield* guarded([g.root], whileAppending(g.appender, inspect("muse-code", g.policy, g.locator)), { expectedAfter: g.expectedAfter }))
          expect(r.status).toBe("provisional")
          expect(r.eventCount).toBeGreaterThanOrEqual(N + 1)
          expect(r.eventCount).toBeLessThanOrEqual(N + 41)
          expect(r.diagnostics.map((d) => d.code).filter((c) => c !== "TORN_TAIL_LEFT_OUT" && c !== "NO_SESSION_END")).toEqual([])
        }), GAUNTLET_TIMEOUT)
      it.effect("discover: selected", () =>
        Effect.gen(function*() {
          const g = growing(whole)
          const r = expectOk(yield* guarded([g.root], whileAppending(g.appender, discover("muse-code", g.policy)), { expectedAfter: g.expectedAfter }))
          expect(r.sources.map((x) => x.locator.path)).toEqual([g.t])
        }), GAUNTLET_TIMEOUT)
      it.effect("import: accepted", () =>
        Effect.gen(function*() {
          const g = growing(whole)
          const r = expectOk(yield* guarded([g.root], whileAppending(g.appender, importRun(g.priv, g.policy)), { expectedAfter: g.expectedAfter }))
          expect(r.sources).toMatchObject({ accepted: 1, rejected: 0 })
          expect(r.eventsAdded).toBeGreaterThanOrEqual(N + 1)
        }), GAUNTLET_TIMEOUT)
    })
  }

  describe(`${titleOf("sqlite-locked")} (n/a: no SQLite in this format; closest: a writer holds the log open with a record half written)`, () => {
    const held = () => {
      const s = nativeSetup((root, ws) => put(root, `${DATE}/t-1/session.jsonl`, line(metadata(0, ws)) + line(filler(1))))
      const appender = new Appender(s.t, cutAt(Buffer.from(line(filler(2))), [33]))
      appender.step()
      return { ...s, appender }
    }
    const close = <A, E>(s: { appender: Appender }, e: Effect.Effect<A, E>) => Effect.ensuring(e, Effect.sync(() => s.appender.close()))
    it.effect("inspect: provisional, TORN_TAIL_LEFT_OUT", () =>
      Effect.gen(function*() {
        const s = held()
        const r = expectOk(yield* close(s, guarded([s.root], inspect("muse-code", s.policy, s.locator))))
        expect(r).toMatchObject({ status: "provisional", eventCount: 2 })
        expect(r.diagnostics.map((d) => d.code)).toEqual(["TORN_TAIL_LEFT_OUT", "NO_SESSION_END"])
      }), GAUNTLET_TIMEOUT)
    it.effect("stream: the half record is not emitted", () =>
      Effect.gen(function*() {
        const s = held()
        expect(expectOk(yield* close(s, guarded([s.root], stream("muse-code", s.policy, s.locator)))).map((e) => e.eventId)).toEqual(["muse-seq-0", "muse-seq-1"])
      }), GAUNTLET_TIMEOUT)
    it.effect("discover: selected (evidence before the torn line)", () =>
      Effect.gen(function*() {
        const s = held()
        expect(expectOk(yield* close(s, guarded([s.root], discover("muse-code", s.policy)))).sourceCount).toBe(1)
      }), GAUNTLET_TIMEOUT)
    it.effect("import: accepted with the two whole records", () =>
      Effect.gen(function*() {
        const s = held()
        const r = expectOk(yield* close(s, guarded([s.root], importRun(s.priv, s.policy))))
        expect(r.sources).toMatchObject({ accepted: 1, rejected: 0 })
        expect(r.eventsAdded).toBe(2)
      }), GAUNTLET_TIMEOUT)
  })

  describe(titleOf("replaced-while-streamed"), () => {
    const replacing = () => {
      let replacementBytes = Buffer.alloc(0)
      const s = nativeSetup((root, ws) => {
        put(root, `${DATE}/t-1/session.jsonl`, longLog(ws))
        replacementBytes = Buffer.from(line(metadata(0, ws)) + line(filler(1)) + line(end(2)))
      })
      const replacement = put(s.priv, "staging/session.jsonl", replacementBytes)
      const before = snapshotDir(s.root)
      return { ...s, replacement, expectedAfter: () => ({ [s.root]: expectedWith(s.root, before, [[s.t, replacementBytes]]) }) }
    }
    it.effect("stream: the open log is read to its end; its cursor on the new log is INVALID_CURSOR", () =>
      Effect.gen(function*() {
        const s = replacing()
        const es = expectOk(yield* guarded([s.root], stream("muse-code", s.policy, s.locator, { tap: (_, i) => i === 0 && fs.renameSync(s.replacement, s.t) }), { expectedAfter: s.expectedAfter }))
        expect(es.map((e) => e.eventId)).toEqual(allIds(0))
        expectFail(yield* guarded([s.root], stream("muse-code", s.policy, s.locator, { cursor: es[es.length - 1].cursor }), { expectedAfter: s.expectedAfter }), "INVALID_CURSOR")
      }), GAUNTLET_TIMEOUT)
    it.effect("inspect: the old or the new log whole, or SOURCE_NOT_AUTHORIZED", () =>
      Effect.gen(function*() {
        const s = replacing()
        const o = yield* guarded([s.root], whileReplacing(s.t, s.replacement, inspect("muse-code", s.policy, s.locator)), { expectedAfter: s.expectedAfter })
        if (o._tag === "fail") expectFail(o, "SOURCE_NOT_AUTHORIZED")
        else expect([N + 1, 3]).toContain(o.value.eventCount)
      }), GAUNTLET_TIMEOUT)
    it.effect("discover: selected (either version carries the evidence)", () =>
      Effect.gen(function*() {
        const s = replacing()
        const r = expectOk(yield* guarded([s.root], whileReplacing(s.t, s.replacement, discover("muse-code", s.policy)), { expectedAfter: s.expectedAfter }))
        expect(r.sourceCount + (r.coverage === "partial" ? 1 : 0)).toBeGreaterThanOrEqual(1)
      }), GAUNTLET_TIMEOUT)
    it.effect("import: one whole version, or a typed rejection", () =>
      Effect.gen(function*() {
        const s = replacing()
        const r = expectOk(yield* guarded([s.root], whileReplacing(s.t, s.replacement, importRun(s.priv, s.policy)), { expectedAfter: s.expectedAfter }))
        if (r.sources.accepted === 1) expect([N + 1, 3]).toContain(r.eventsAdded)
        else expect(Object.keys(rejectedCodes(r)).every((c) => ["SOURCE_NOT_AUTHORIZED", "INVALID_CURSOR"].includes(c))).toBe(true)
      }), GAUNTLET_TIMEOUT)
  })
})

// ---------------------------------------------------------------------------
// Export

const SESSION = "5f1e0c2a-0000-4000-8000-00000000aaaa"
const ev = (seq: number, extra: Record<string, unknown> = {}) => ({
  kind: "record",
  envelope: {
    sequence: seq,
    id: `env-${seq}`,
    causation_id: null,
    stream: { kind: "session", id: SESSION },
    recorded_at: "2026-10-01T12:00:00.000Z",
    record_type: "runtime",
    durability: "durable",
    payload_type: "proposed",
    payload: { event: { kind: "proposed", task: `task ${seq}` } },
    ...extra
  }
})
const doc = (events: ReadonlyArray<unknown>) => ({
  export_schema_version: 1,
  redaction: "raw",
  session_terminated_abnormally: false,
  sessions: [{ session_id: SESSION, turn_count: 1, step_count: events.length }],
  events
})
const pretty = (d: unknown) => JSON.stringify(d, null, 2) + "\n"
const withTask = (task: string) => pretty(doc([ev(0), { ...ev(1), envelope: { ...ev(1).envelope, payload: { event: { kind: "proposed", task } } } }, ev(2)]))
const taskOf = (e: SessionEvent) => ((e.extensions["native.muse"] as any).payload.event.task as string)

interface ExportVerdict {
  readonly bytes: () => string | Buffer
  readonly variant?: string
  readonly fail?: ErrorCode
  readonly count?: number
  readonly events?: (es: ReadonlyArray<SessionEvent>) => void
}

const exportMultibyte = (() => {
  const probe = withTask("@@")
  return "p".repeat(MIB - 1 - Buffer.byteLength(probe.slice(0, probe.indexOf("@@")))) + EMOJI + " end"
})()

const EXPORT: Partial<Record<CaseId, ExportVerdict>> = {
  "empty": { bytes: () => "", fail: "MALFORMED_SOURCE" },
  "bom-only": { bytes: () => BOM, fail: "MALFORMED_SOURCE" },
  "crlf": { variant: "a pretty-printed document with CRLF line ends", bytes: () => pretty(doc([ev(0), ev(1)])).replace(/\n/g, "\r\n"), count: 2 },
  "cut-at-eof": { variant: "the document cut mid-write", bytes: () => pretty(doc([ev(0), ev(1)])).slice(0, 300), fail: "MALFORMED_SOURCE" },
  "torn-continued": {
    variant: "a cut document followed by a whole one in the same file",
    bytes: () => pretty(doc([ev(0)])).slice(0, 200) + pretty(doc([ev(0), ev(1)])),
    fail: "MALFORMED_SOURCE"
  },
  "multibyte-split": {
    variant: "read whole: a 4-byte character straddling 1 MiB of the document",
    bytes: () => withTask(exportMultibyte),
    count: 3,
    events: (es) => expect(taskOf(es[1])).toBe(exportMultibyte)
  },
  "control-nul": { variant: "inside a string of the document", bytes: () => withTask("@@").replace("@@", CONTROL), fail: "MALFORMED_SOURCE" },
  "u2028": { bytes: () => withTask(SEPARATORS), count: 3, events: (es) => expect(taskOf(es[1])).toBe(SEPARATORS) },
  "lone-surrogate": { bytes: () => withTask("@@").replace("\"@@\"", LONE_SURROGATE_JSON), count: 3, events: (es) => expect(taskOf(es[1])).toBe(LONE_SURROGATE) },
  "non-object-lines": { variant: "null, an array and a number as events[] entries", bytes: () => pretty(doc([ev(0), null, [1, 2], 42])), fail: "MALFORMED_SOURCE" },
  "duplicate-keys": {
    variant: "the last occurrence wins (JSON.parse)",
    bytes: () => pretty(doc([ev(0), ev(1)])).replace("\"sequence\": 1,", "\"sequence\": 1,\n\"sequence\": 7,"),
    count: 2,
    events: (es) => expect(es.map((e) => e.eventId)).toEqual(["muse-seq-0", "muse-seq-7"])
  },
  "big-ids": { bytes: () => pretty(doc([ev(0), ev(1)])).replace("\"sequence\": 1,", `"sequence": ${BIG_ID},`), fail: "MALFORMED_SOURCE" },
  "nested-100": { bytes: () => pretty(doc([ev(0), ev(1, { deep: "@@" })])).replace("\"@@\"", nested(100)), fail: "RESOURCE_LIMIT_EXCEEDED" },
  "line-64mib": {
    variant: "a one-line document whose one record is 64 MiB: under the 256 MiB document limit, over the 32 MiB record limit",
    bytes: () => "",
    fail: "RESOURCE_LIMIT_EXCEEDED"
  },
  "ts-no-zone": { bytes: () => pretty(doc([ev(0), ev(1, { recorded_at: NO_ZONE })])), fail: "MALFORMED_SOURCE" },
  "ts-seconds": { bytes: () => pretty(doc([ev(0), ev(1, { recorded_at: EPOCH.seconds })])), count: 2, events: (es) => expect(es[1].occurredAt).toBe(EPOCH_ISO.seconds) },
  "ts-millis": { bytes: () => pretty(doc([ev(0), ev(1, { recorded_at: EPOCH.millis })])), count: 2, events: (es) => expect(es[1].occurredAt).toBe(EPOCH_ISO.millis) },
  "ts-micros": { bytes: () => pretty(doc([ev(0), ev(1, { recorded_at: EPOCH.micros })])), count: 2, events: (es) => expect(es[1].occurredAt).toBe(EPOCH_ISO.micros) },
  "ts-year-10000": { bytes: () => pretty(doc([ev(0), ev(1, { recorded_at: YEAR_10000_MICROS })])), fail: "MALFORMED_SOURCE" }
}

let bigExport: { ws: string; file: string }
beforeAll(() => {
  const d = fileDir()
  bigExport = { ws: d, file: nodePath.join(d, "trajectory.json") }
  const [pre, post] = JSON.stringify(doc([ev(0), { ...ev(1), envelope: { ...ev(1).envelope, payload: { event: { kind: "proposed", task: "@@" } } } }])).split("@@")
  writeBigLineFile(bigExport.file, { head: "", prefix: pre, suffix: post, tail: "" })
  fs.truncateSync(bigExport.file, fs.statSync(bigExport.file).size - 1) // one line, no trailing newline
  snapshotDir(bigExport.ws)
})
afterAll(() => fs.rmSync(bigExport.ws, { recursive: true, force: true }))

const exportSetup = (bytes?: string | Buffer) => {
  const dir = caseDir()
  const priv = nodePath.join(dir, "private")
  fs.mkdirSync(priv)
  const ws = bytes === undefined ? bigExport.ws : nodePath.join(dir, "ws")
  const file = bytes === undefined ? bigExport.file : put(ws, "trajectory.json", bytes)
  const policy = isolatedPolicy(priv, { workspaceRoots: [ws] })
  return { dir, priv, ws, file, policy, locator: { locatorClass: "manual-export" as const, path: file } }
}

describe("gauntlet: muse-code manual-export (fail closed)", () => {
  it("the table covers every case of issue 7", () => {
    const special = ["symlink-loop", "root-is-file", "grows-while-streamed", "replaced-while-streamed", "sqlite-locked", "sqlite-wal-writer"]
    for (const [id] of CASES) expect(id in EXPORT || special.includes(id), id).toBe(true)
  })
  for (const [id, v] of Object.entries(EXPORT) as Array<[CaseId, ExportVerdict]>) {
    const setup = () => exportSetup(id === "line-64mib" ? undefined : v.bytes())
    describe(`${titleOf(id)}${v.variant !== undefined ? ` (closest variant: ${v.variant})` : ""}`, () => {
      it.effect(`inspect: ${v.fail ?? "accepted"}`, () =>
        Effect.gen(function*() {
          const s = setup()
          const o = yield* guarded([s.ws], inspect("muse-code", s.policy, s.locator), { limit: limitOf(id) })
          if (v.fail !== undefined) return expectFail(o, v.fail)
          expect(expectOk(o)).toMatchObject({ status: "complete", eventCount: v.count })
        }), limitOf(id))
      it.effect(`stream: ${v.fail ?? "every record"}`, () =>
        Effect.gen(function*() {
          const s = setup()
          const o = yield* guarded([s.ws], stream("muse-code", s.policy, s.locator), { limit: limitOf(id) })
          if (v.fail !== undefined) return expectFail(o, v.fail)
          const es = expectOk(o)
          expect(es.length).toBe(v.count)
          v.events?.(es)
        }), limitOf(id))
      it.effect("discover (n/a: exports are given explicitly): UNSUPPORTED_OPERATION without --muse-root", () =>
        Effect.gen(function*() {
          const s = setup()
          expectFail(yield* guarded([s.ws], discover("muse-code", s.policy), { limit: limitOf(id) }), "UNSUPPORTED_OPERATION")
        }), limitOf(id))
      it.effect(`import (explicit export): ${v.fail !== undefined ? `rejected ${v.fail}` : "accepted"}`, () =>
        Effect.gen(function*() {
          const s = setup()
          const r = expectOk(yield* guarded([s.ws], importRun(s.priv, s.policy, { exports: [s.file] }), { limit: limitOf(id) }))
          if (v.fail !== undefined) {
            expect(rejectedCodes(r)).toEqual({ [v.fail]: 1 })
            expect(r.coverage).toBe("partial")
          } else {
            expect(r.sources).toMatchObject({ accepted: 1, rejected: 0 })
            expect(r.eventsAdded).toBe(v.count)
          }
        }), limitOf(id))
    })
  }

  describe(titleOf("symlink-loop"), () => {
    const loops = () => {
      const s = exportSetup(pretty(doc([ev(0)])))
      fs.symlinkSync("b", nodePath.join(s.ws, "a"))
      fs.symlinkSync("a", nodePath.join(s.ws, "b"))
      return { ...s, through: { ...s.locator, path: nodePath.join(s.ws, "a", "trajectory.json") } }
    }
    it.effect("inspect / stream through the loop: SOURCE_SYMLINK", () =>
      Effect.gen(function*() {
        const s = loops()
        expectFail(yield* guarded([s.ws], inspect("muse-code", s.policy, s.through)), "SOURCE_SYMLINK")
        expectFail(yield* guarded([s.ws], stream("muse-code", s.policy, s.through)), "SOURCE_SYMLINK")
      }), GAUNTLET_TIMEOUT)
    it.effect("import of the path through the loop: rejected SOURCE_SYMLINK; of the real path: accepted", () =>
      Effect.gen(function*() {
        const s = loops()
        const r = expectOk(yield* guarded([s.ws], importRun(s.priv, s.policy, { exports: [s.through.path, s.file] })))
        expect(rejectedCodes(r)).toEqual({ SOURCE_SYMLINK: 1 })
        expect(r.sources.accepted).toBe(1)
      }), GAUNTLET_TIMEOUT)
  })

  describe(titleOf("root-is-file"), () => {
    it.effect("a workspace root that is the file itself: SOURCE_OUTSIDE_ALLOWED_ROOT for inspect, stream and import", () =>
      Effect.gen(function*() {
        const s = exportSetup(pretty(doc([ev(0)])))
        const policy = { ...s.policy, workspaceRoots: [s.file] }
        expectFail(yield* guarded([s.ws], inspect("muse-code", policy, s.locator)), "SOURCE_OUTSIDE_ALLOWED_ROOT")
        expectFail(yield* guarded([s.ws], stream("muse-code", policy, s.locator)), "SOURCE_OUTSIDE_ALLOWED_ROOT")
        const r = expectOk(yield* guarded([s.ws], importRun(s.priv, policy, { exports: [s.file] })))
        expect(rejectedCodes(r)).toEqual({ SOURCE_OUTSIDE_ALLOWED_ROOT: 1 })
      }), GAUNTLET_TIMEOUT)
  })

  describe("a document that changes while it is streamed (grows, or is replaced): read once, whole", () => {
    for (const [how, change] of [
      ["grows (whitespace appended)", (p: string) => fs.appendFileSync(p, "\n\n")],
      ["is replaced (renamed over)", (p: string, staging: string) => fs.renameSync(staging, p)]
    ] as const) {
      it.effect(`${how}: the stream is the document as read; its cursor on the changed document is INVALID_CURSOR`, () =>
        Effect.gen(function*() {
          const s = exportSetup(pretty(doc([ev(0), ev(1), ev(2)])))
          const staging = put(s.priv, "staging.json", pretty(doc([ev(0)])))
          const es = expectOk(
            yield* settleAll(stream("muse-code", s.policy, s.locator, { tap: (_, i) => i === 0 && change(s.file, staging) }))
          )
          expect(es.map((e) => e.eventId)).toEqual(["muse-seq-0", "muse-seq-1", "muse-seq-2"])
          expectFail(yield* guarded([s.ws], stream("muse-code", s.policy, s.locator, { cursor: es[0].cursor })), "INVALID_CURSOR")
        }), GAUNTLET_TIMEOUT)
    }
  })

  describe("a document being written by another process (n/a: no SQLite; closest to a locked store / a writer appending)", () => {
    it.effect("half written: MALFORMED_SOURCE (inspect, stream, import); once written: accepted", () =>
      Effect.gen(function*() {
        const full = Buffer.from(pretty(doc([ev(0), ev(1)])))
        const s = exportSetup(Buffer.alloc(0))
        const writer = new Appender(s.file, cutAt(full, [Math.floor(full.length / 2)]))
        try {
          writer.step()
          expectFail(yield* guarded([s.ws], inspect("muse-code", s.policy, s.locator)), "MALFORMED_SOURCE")
          expectFail(yield* guarded([s.ws], stream("muse-code", s.policy, s.locator)), "MALFORMED_SOURCE")
          expect(rejectedCodes(expectOk(yield* guarded([s.ws], importRun(s.priv, s.policy, { exports: [s.file] }))))).toEqual({ MALFORMED_SOURCE: 1 })
          writer.finish()
          expect(expectOk(yield* guarded([s.ws], inspect("muse-code", s.policy, s.locator))).eventCount).toBe(2)
        } finally {
          writer.close()
        }
      }), GAUNTLET_TIMEOUT)
  })
})

/** Settle without a source guard (the case itself changes the source). */
const settleAll = <A, E>(e: Effect.Effect<A, E>) => guarded([], e)
