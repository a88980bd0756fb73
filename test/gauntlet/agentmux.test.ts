/**
 * The gauntlet for `agentmux` (seed 002; policy: unreadable lines are skipped
 * and counted). The "file" is agent u1's current zone `output` in a real
 * SQLite `filestore.db` (64 KiB parts, as AgentMux writes them): an init line
 * of session S, an assistant line "first", the case's bytes, an assistant
 * line "last", with an `output.tsidx` sidecar. A case about the file itself
 * (empty, BOM only, a symlink loop, a root that is a file) is tested on the
 * store file, where it lands. `inspect`/`stream` read session S.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import type { ErrorCode } from "../../src/domain/errors.js"
import type { Locator, SessionEvent } from "../../src/domain/model.js"
import { assistant, CURRENT, init, UID } from "../agentmux/fixture.js"
import { appendBytes, createStore, type StoreFileSpec, tsidxRecord, withStore } from "../agentmux/store-helper.js"
import {
  BIG_ID,
  BIG_LINE_BYTES,
  BOM,
  CASES,
  type CaseId,
  CONTROL,
  EMOJI,
  EPOCH,
  EPOCH_ISO,
  LONE_SURROGATE,
  LONE_SURROGATE_JSON,
  NO_ZONE,
  nested,
  PART,
  SEPARATORS,
  titleOf
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
  rejectedCodes,
  snapshotDir,
  stream
} from "./harness.js"

const S = "S-1"
const T0 = 1_790_349_213_000
const TSIDX = "output.tsidx"
const text = (t: string) => assistant(S, `m-${Buffer.byteLength(t)}`, [{ type: "text", text: t }])
const FIRST = text("first")
const LAST = text("last")

interface Verdict {
  /** The middle bytes (each line `\n`-terminated, unless cut). */
  readonly middle?: () => string | Buffer
  /** The whole output instead. */
  readonly output?: () => Buffer
  /** The store file's own bytes (a case about the file itself). */
  readonly storeBytes?: () => Buffer
  /** The sidecar records (default: one at offset 0). */
  readonly tsidx?: (middleStart: number) => string
  readonly fail?: ErrorCode
  readonly warnings?: Record<string, number>
  readonly texts?: ReadonlyArray<string>
  readonly times?: ReadonlyArray<string | null>
  /** Scan diagnostics expected among discovery's. */
  readonly diagnostics?: ReadonlyArray<string>
  readonly events?: (es: ReadonlyArray<SessionEvent>) => void
  readonly variant?: string
}

const BOTH = ["first", "last"]
const outputOf = (v: Verdict) => v.output?.() ?? Buffer.concat([Buffer.from(`${init(S, "/w")}\n${FIRST}\n`), Buffer.from(v.middle?.() ?? ""), Buffer.from(`${LAST}\n`)])
const middleStart = () => Buffer.byteLength(`${init(S, "/w")}\n${FIRST}\n`)
const stampAt = (ms: number | string) => (off: number) => tsidxRecord(0, T0) + `{"off":${off},"ms":${typeof ms === "string" ? JSON.stringify(ms) : ms}}\n`
const iso = (ms: number) => new Date(ms).toISOString()

const multibyte = (() => {
  const head = `${init(S, "/w")}\n${FIRST}\n`
  const probe = text("@@")
  const before = Buffer.byteLength(head) + Buffer.byteLength(probe.slice(0, probe.indexOf("@@")))
  return "p".repeat(PART - 2 - before) + EMOJI + " end"
})()

const CONTENT: Partial<Record<CaseId, Verdict>> = {
  "empty": { variant: "the store file is empty", storeBytes: () => Buffer.alloc(0), fail: "STORE_UNAVAILABLE" },
  "bom-only": { variant: "the store file is only a BOM", storeBytes: () => BOM, fail: "STORE_UNAVAILABLE" },
  "crlf": { output: () => Buffer.from(outputOf({}).toString("utf8").replace(/\n/g, "\r\n")), warnings: {}, texts: BOTH },
  "cut-at-eof": {
    output: () => Buffer.concat([outputOf({}), Buffer.from(text("cut").slice(0, 40))]),
    warnings: {},
    texts: BOTH,
    diagnostics: ["PARTIAL_LINE"]
  },
  "torn-continued": { middle: () => `${text("torn").slice(0, 45)}${text("continued")}\n`, warnings: { "unreadable-line": 1 }, texts: BOTH, diagnostics: ["UNREADABLE_LINES"] },
  "multibyte-split": {
    variant: "a 4-byte character cut 2|2 by a 64 KiB part",
    middle: () => `${text(multibyte)}\n`,
    warnings: {},
    texts: ["first", multibyte, "last"]
  },
  "control-nul": { middle: () => `${text("@@").replace("@@", CONTROL)}\n`, warnings: { "unreadable-line": 1 }, texts: BOTH, diagnostics: ["UNREADABLE_LINES"] },
  "u2028": { middle: () => `${text(SEPARATORS)}\n`, warnings: {}, texts: ["first", SEPARATORS, "last"] },
  "lone-surrogate": { middle: () => `${text("@@").replace("\"@@\"", LONE_SURROGATE_JSON)}\n`, warnings: {}, texts: ["first", LONE_SURROGATE, "last"] },
  "non-object-lines": { middle: () => "null\n[1,2,3]\n42\n", warnings: { "unreadable-line": 3 }, texts: BOTH, diagnostics: ["UNREADABLE_LINES"] },
  "duplicate-keys": {
    variant: "the last session_id and text win (JSON.parse; the delta fast path also takes the last key)",
    middle: () => `${text("one").replace(`"session_id":"${S}"`, `"session_id":"OTHER","session_id":"${S}"`).replace("\"text\":\"one\"", "\"text\":\"one\",\"text\":\"two\"")}\n`,
    warnings: {},
    texts: ["first", "two", "last"]
  },
  "big-ids": {
    variant: "a session_id that is a number beyond 2^53: not a session id, never rounded into one; the line joins the next owned line's session",
    middle: () => `${text("big").replace(`"session_id":"${S}"`, `"session_id":${BIG_ID}`)}\n`,
    warnings: {},
    texts: ["first", "big", "last"],
    events: (es) => expect((es[1].extensions["native.agentmux"] as any).attributed).toBe("next-owned-line")
  },
  "nested-100": { middle: () => `${text("deep").slice(0, -1)},"deep":${nested(100)}}\n`, warnings: { "too-deep": 1 }, texts: BOTH },
  "line-64mib": { warnings: { "oversized-line": 1 }, texts: BOTH, diagnostics: ["OVERSIZED_LINES"] },
  "ts-no-zone": {
    variant: "the sidecar's ms given as a local time string: that record is unreadable (counted: skip the line, count it), the earlier one dates the lines",
    middle: () => `${text("stamped")}\n`,
    tsidx: stampAt(NO_ZONE),
    warnings: { "unreadable-tsidx-line": 1 },
    texts: ["first", "stamped", "last"],
    times: [iso(T0), iso(T0), iso(T0)]
  },
  "ts-seconds": { middle: () => `${text("stamped")}\n`, tsidx: stampAt(EPOCH.seconds), warnings: {}, texts: ["first", "stamped", "last"], times: [iso(T0), EPOCH_ISO.seconds, EPOCH_ISO.seconds] },
  "ts-millis": { middle: () => `${text("stamped")}\n`, tsidx: stampAt(EPOCH.millis), warnings: {}, texts: ["first", "stamped", "last"], times: [iso(T0), EPOCH_ISO.millis, EPOCH_ISO.millis] },
  "ts-micros": { middle: () => `${text("stamped")}\n`, tsidx: stampAt(EPOCH.micros), warnings: {}, texts: ["first", "stamped", "last"], times: [iso(T0), EPOCH_ISO.micros, EPOCH_ISO.micros] },
  "ts-year-10000": { middle: () => `${text("stamped")}\n`, tsidx: stampAt(253_402_300_800_000), warnings: { "timestamp-not-valid": 2 }, texts: ["first", "stamped", "last"], times: [iso(T0), null, null] }
}

const files = (output: Buffer, tsidx: string): Array<StoreFileSpec> => [
  { zoneId: CURRENT, name: "output", bytes: output },
  { zoneId: CURRENT, name: TSIDX, bytes: Buffer.from(tsidx) }
]

/** A case folder: `storeDir` (watched), `priv` (state database, index). */
const setup = (v: Verdict, shared?: string) => {
  const dir = caseDir()
  const priv = nodePath.join(dir, "private")
  fs.mkdirSync(priv)
  const storeDir = shared ?? nodePath.join(dir, "store")
  const store = nodePath.join(storeDir, "filestore.db")
  if (shared === undefined) {
    fs.mkdirSync(storeDir)
    if (v.storeBytes !== undefined) fs.writeFileSync(store, v.storeBytes())
    else createStore(store, files(outputOf(v), v.tsidx?.(middleStart()) ?? tsidxRecord(0, T0)))
  }
  const policy = isolatedPolicy(priv, { agentmuxStore: store })
  const locator: Locator = { locatorClass: "agentmux-agent-record", path: store, agentId: UID, sessionId: S }
  return { dir, priv, storeDir, store, policy, locator }
}

let bigDir: string
beforeAll(() => {
  // The 64 MiB line, written into the store a part at a time (the test never holds it).
  bigDir = fileDir()
  const store = nodePath.join(bigDir, "filestore.db")
  const head = Buffer.from(`${init(S, "/w")}\n${FIRST}\n`)
  const tail = Buffer.from(`\n${LAST}\n`)
  createStore(store, files(Buffer.alloc(0), tsidxRecord(0, T0)))
  const db = new Database(store)
  db.prepare("DELETE FROM db_file_data WHERE zoneid = ? AND name = 'output'").run(CURRENT)
  const total = head.length + BIG_LINE_BYTES + tail.length
  const ins = db.prepare("INSERT INTO db_file_data VALUES (?, 'output', ?, ?)")
  db.transaction(() => {
    for (let idx = 0; idx * PART < total; idx++) {
      const from = idx * PART
      const part = Buffer.alloc(Math.min(PART, total - from), "x")
      // overlay the head and tail where they fall
      if (from < head.length) head.copy(part, 0, from, Math.min(head.length, from + PART))
      const tailAt = head.length + BIG_LINE_BYTES
      if (from + part.length > tailAt) tail.copy(part, Math.max(0, tailAt - from), Math.max(0, from - tailAt))
      ins.run(CURRENT, idx, part)
    }
    db.prepare("UPDATE db_wave_file SET size = ? WHERE zoneid = ? AND name = 'output'").run(total, CURRENT)
  })()
  db.close()
  snapshotDir(bigDir)
})
afterAll(() => fs.rmSync(bigDir, { recursive: true, force: true }))

const warningsOf = (ds: ReadonlyArray<{ code: string; details?: unknown }>) =>
  Object.fromEntries(ds.filter((d) => d.code === "PARSE_WARNING").map((d) => [(d.details as any).kind, (d.details as any).count]))

describe("gauntlet: agentmux (skip and count unreadable lines)", () => {
  it("the table covers every case of issue 7", () => {
    const special = ["symlink-loop", "root-is-file", "grows-while-streamed", "replaced-while-streamed", "sqlite-locked", "sqlite-wal-writer"]
    for (const [id] of CASES) expect(id in CONTENT || special.includes(id), id).toBe(true)
  })

  for (const [id, v] of Object.entries(CONTENT) as Array<[CaseId, Verdict]>) {
    const mk = () => setup(v, id === "line-64mib" ? bigDir : undefined)
    describe(`${titleOf(id)}${v.variant !== undefined ? ` (closest variant: ${v.variant})` : ""}`, () => {
      it.effect(`inspect: ${v.fail ?? "skips and counts"}`, () =>
        Effect.gen(function*() {
          const s = mk()
          const o = yield* guarded([s.storeDir], inspect("agentmux", s.policy, s.locator), { limit: limitOf(id) })
          if (v.fail !== undefined) return expectFail(o, v.fail)
          const r = expectOk(o)
          expect(r.eventCount).toBe(v.texts!.length)
          expect(warningsOf(r.diagnostics)).toEqual(v.warnings)
        }), limitOf(id))
      it.effect(`stream: ${v.fail ?? "the readable messages"}`, () =>
        Effect.gen(function*() {
          const s = mk()
          const o = yield* guarded([s.storeDir], stream("agentmux", s.policy, s.locator), { limit: limitOf(id) })
          if (v.fail !== undefined) return expectFail(o, v.fail)
          const es = expectOk(o)
          expect(es.map((e) => e.text)).toEqual(v.texts)
          if (v.times !== undefined) expect(es.map((e) => e.occurredAt)).toEqual(v.times)
          v.events?.(es)
        }), limitOf(id))
      it.effect(`discover: ${v.fail ?? `session S only${v.diagnostics ? `, ${v.diagnostics.join(", ")}` : ""}`}`, () =>
        Effect.gen(function*() {
          const s = mk()
          const o = yield* guarded([s.storeDir], discover("agentmux", s.policy, { agentId: UID }), { limit: limitOf(id) })
          if (v.fail !== undefined) return expectFail(o, v.fail)
          const r = expectOk(o)
          expect(r.sources.map((x) => x.sessionId)).toEqual([S])
          const codes = r.diagnostics.map((d) => d.code)
          for (const c of v.diagnostics ?? []) expect(codes).toContain(c)
          expect(codes.filter((c) => !(v.diagnostics ?? []).includes(c))).toEqual([])
        }), limitOf(id))
      it.effect(`import: ${v.fail !== undefined ? `agentmux unavailable (${v.fail})` : "accepted"}`, () =>
        Effect.gen(function*() {
          const s = mk()
          const r = expectOk(yield* guarded([s.storeDir], importRun(s.priv, s.policy, { agents: [UID] }), { limit: limitOf(id) }))
          expect(rejectedCodes(r)).toEqual({})
          if (v.fail !== undefined) {
            expect(r.providers.find((p) => p.provider === "agentmux")).toMatchObject({ status: "unavailable", coverage: "partial", reasonCode: v.fail })
            return
          }
          expect(r.sources).toMatchObject({ accepted: 1, rejected: 0 })
          expect(r.eventsAdded).toBe(v.texts!.length)
        }), limitOf(id))
    })
  }

  for (const [id, variant, code, make] of [
    ["symlink-loop", "the store path is a symlink to itself", "SOURCE_SYMLINK", (p: string) => fs.symlinkSync("filestore.db", p)],
    ["root-is-file", "the store path is a folder (the store is agentmux's one root)", "SOURCE_NOT_REGULAR_FILE", (p: string) => fs.mkdirSync(p)]
  ] as const) {
    describe(`${titleOf(id)} (closest variant: ${variant})`, () => {
      const mk = () => {
        const s = setup({ storeBytes: () => Buffer.alloc(0) })
        fs.rmSync(s.store)
        make(s.store)
        return s
      }
      it.effect(`inspect, stream, discover: ${code}`, () =>
        Effect.gen(function*() {
          const s = mk()
          expectFail(yield* guarded([s.storeDir], inspect("agentmux", s.policy, s.locator)), code)
          expectFail(yield* guarded([s.storeDir], stream("agentmux", s.policy, s.locator)), code)
          expectFail(yield* guarded([s.storeDir], discover("agentmux", s.policy, { agentId: UID })), code)
        }), GAUNTLET_TIMEOUT)
      it.effect(`import: agentmux unavailable (${code}), coverage partial`, () =>
        Effect.gen(function*() {
          const s = mk()
          const r = expectOk(yield* guarded([s.storeDir], importRun(s.priv, s.policy, { agents: [UID] })))
          expect(r.providers.find((p) => p.provider === "agentmux")).toMatchObject({ coverage: "partial", reasonCode: code })
        }), GAUNTLET_TIMEOUT)
    })
  }

  describe(`${titleOf("grows-while-streamed")} (a writer appends a torn line, then ends it, to the zone)`, () => {
    it.effect("the torn line is never read (PARTIAL_LINE); stream during the append emits whole lines only; the next scan reads it whole", () =>
      Effect.gen(function*() {
        const s = setup({})
        const add = Buffer.from(`${text(`grown ${EMOJI}`)}\n`)
        withStore(s.store, (db) => appendBytes(db, CURRENT, "output", add.subarray(0, 30)))
        let after = snapshotDir(s.storeDir)
        const d = expectOk(yield* guarded([s.storeDir], discover("agentmux", s.policy, { agentId: UID })))
        expect(d.diagnostics.map((x) => x.code)).toEqual(["PARTIAL_LINE"])
        const es = expectOk(
          yield* guarded(
            [s.storeDir],
            stream("agentmux", s.policy, s.locator, {
              tap: (_, i) => {
                if (i !== 0) return
                withStore(s.store, (db) => appendBytes(db, CURRENT, "output", add.subarray(30)))
                after = snapshotDir(s.storeDir)
              }
            }),
            { expectedAfter: () => ({ [s.storeDir]: after }) }
          )
        )
        expect(es.map((e) => e.text)).toEqual(BOTH)
        const r = expectOk(yield* guarded([s.storeDir], inspect("agentmux", s.policy, s.locator)))
        expect(r.eventCount).toBe(3)
        const again = expectOk(yield* guarded([s.storeDir], stream("agentmux", s.policy, s.locator)))
        expect(again.map((e) => e.text)).toEqual([...BOTH, `grown ${EMOJI}`])
        const imp = expectOk(yield* guarded([s.storeDir], importRun(s.priv, s.policy, { agents: [UID] })))
        expect(imp.eventsAdded).toBe(3)
      }), GAUNTLET_TIMEOUT)
  })

  describe(`${titleOf("replaced-while-streamed")} (another store renamed over filestore.db)`, () => {
    it.effect("the stream is the store as read; its cursor on the new store is INVALID_CURSOR; the next scan reads the new store", () =>
      Effect.gen(function*() {
        const s = setup({})
        const staging = nodePath.join(s.priv, "staging.db")
        createStore(staging, files(Buffer.from(`${init(S, "/w")}\n${text("replaced")}\n`), tsidxRecord(0, T0)))
        let after: Record<string, string> = {}
        const es = expectOk(
          yield* guarded(
            [s.storeDir],
            stream("agentmux", s.policy, s.locator, {
              tap: (_, i) => {
                if (i !== 0) return
                fs.renameSync(staging, s.store)
                after = snapshotDir(s.storeDir)
              }
            }),
            { expectedAfter: () => ({ [s.storeDir]: after }) }
          )
        )
        expect(es.map((e) => e.text)).toEqual(BOTH)
        expectFail(yield* guarded([s.storeDir], stream("agentmux", s.policy, s.locator, { cursor: es[1].cursor })), "INVALID_CURSOR")
        const r = expectOk(yield* guarded([s.storeDir], inspect("agentmux", s.policy, s.locator)))
        expect(r.eventCount).toBe(1)
        const d = expectOk(yield* guarded([s.storeDir], discover("agentmux", s.policy, { agentId: UID })))
        expect(d.sources.map((x) => x.sessionId)).toEqual([S])
        expect(expectOk(yield* guarded([s.storeDir], importRun(s.priv, s.policy, { agents: [UID] }))).eventsAdded).toBe(1)
      }), GAUNTLET_TIMEOUT)
  })

  describe(titleOf("sqlite-locked"), () => {
    // A writer holds an EXCLUSIVE lock (rollback journal) with a write in progress: readers must give up, typed and quickly.
    const locked = <A>(f: (s: ReturnType<typeof setup>) => Effect.Effect<A>) =>
      Effect.gen(function*() {
        const s = setup({})
        const db = new Database(s.store)
        db.exec("BEGIN EXCLUSIVE")
        db.prepare("UPDATE db_wave_file SET modts = modts + 1").run()
        try {
          return yield* f(s)
        } finally {
          db.exec("ROLLBACK")
          db.close()
        }
      })
    it.effect("inspect: STORE_UNAVAILABLE", () =>
      locked((s) => Effect.map(guarded([s.storeDir], inspect("agentmux", s.policy, s.locator)), (o) => expectFail(o, "STORE_UNAVAILABLE"))), GAUNTLET_TIMEOUT)
    it.effect("stream: STORE_UNAVAILABLE", () =>
      locked((s) => Effect.map(guarded([s.storeDir], stream("agentmux", s.policy, s.locator)), (o) => expectFail(o, "STORE_UNAVAILABLE"))), GAUNTLET_TIMEOUT)
    it.effect("discover: STORE_UNAVAILABLE, saying it is locked", () =>
      locked((s) =>
        Effect.map(guarded([s.storeDir], discover("agentmux", s.policy, { agentId: UID })), (o) => {
          expectFail(o, "STORE_UNAVAILABLE")
          if (o._tag === "fail") expect(o.error.message).toMatch(/locked/)
        })), GAUNTLET_TIMEOUT)
    it.effect("import after an earlier one: the cause names the store, the provider has the error as its diagnostic with the sources kept (tester34a F3)", () =>
      Effect.gen(function*() {
        const s = setup({})
        const first = expectOk(yield* guarded([s.storeDir], importRun(s.priv, s.policy, { agents: [UID] })))
        expect(first.sources.accepted).toBeGreaterThan(0)
        const db = new Database(s.store)
        db.exec("BEGIN EXCLUSIVE")
        db.prepare("UPDATE db_wave_file SET modts = modts + 1").run()
        try {
          const r = expectOk(yield* guarded([s.storeDir], importRun(s.priv, s.policy, { agents: [UID] })))
          const real = fs.realpathSync(s.store)
          expect(r.causes.filter((c) => c.provider === "agentmux")).toEqual([expect.objectContaining({ code: "STORE_UNAVAILABLE", path: real })])
          const p = r.providers.find((x) => x.provider === "agentmux")!
          expect(p.diagnostics).toEqual([
            expect.objectContaining({ code: "STORE_UNAVAILABLE", details: { path: real, kept: first.sources.accepted } })
          ])
          expect(p.diagnostics[0].message).toContain(`the ${first.sources.accepted} source(s) imported from it before are kept`)
        } finally {
          db.exec("ROLLBACK")
          db.close()
        }
      }), GAUNTLET_TIMEOUT)
    it.effect("import: agentmux unavailable (STORE_UNAVAILABLE), coverage partial; the run itself succeeds", () =>
      locked((s) =>
        Effect.map(guarded([s.storeDir], importRun(s.priv, s.policy, { agents: [UID] })), (o) => {
          expect(expectOk(o).providers.find((p) => p.provider === "agentmux")).toMatchObject({ coverage: "partial", reasonCode: "STORE_UNAVAILABLE" })
        })), GAUNTLET_TIMEOUT)
  })

  describe(titleOf("sqlite-wal-writer"), () => {
    // The store in WAL mode, a writer connection open with autocheckpoint off: its commits live in -wal (and -shm).
    const walWriter = <A>(f: (s: ReturnType<typeof setup>, append: (t: string) => void) => Effect.Effect<A>) =>
      Effect.gen(function*() {
        const s = setup({})
        const db = new Database(s.store)
        db.pragma("journal_mode = WAL")
        db.pragma("wal_autocheckpoint = 0")
        const append = (t: string) => db.transaction(() => appendBytes(db, CURRENT, "output", Buffer.from(`${text(t)}\n`)))()
        append("in wal")
        try {
          return yield* f(s, append)
        } finally {
          db.close()
        }
      })
    it.effect("inspect: reads the committed appends (snapshot of main + -wal); nothing created or changed beside the store", () =>
      walWriter((s) =>
        Effect.map(guarded([s.storeDir], inspect("agentmux", s.policy, s.locator)), (o) => {
          expect(expectOk(o).eventCount).toBe(3)
        })), GAUNTLET_TIMEOUT)
    it.effect("stream: a writer commits during the stream; the stream is one consistent snapshot", () =>
      walWriter((s, append) =>
        Effect.gen(function*() {
          let after: Record<string, string> = {}
          const o = yield* guarded(
            [s.storeDir],
            stream("agentmux", s.policy, s.locator, {
              tap: (_, i) => {
                if (i !== 0) return
                append("during")
                after = snapshotDir(s.storeDir)
              }
            }),
            { expectedAfter: () => ({ [s.storeDir]: after }) }
          )
          expect(expectOk(o).map((e) => e.text)).toEqual(["first", "last", "in wal"])
        })), GAUNTLET_TIMEOUT)
    it.effect("discover: session S with every committed line", () =>
      walWriter((s) =>
        Effect.map(guarded([s.storeDir], discover("agentmux", s.policy, { agentId: UID })), (o) => {
          const r = expectOk(o)
          expect(r.sources.map((x) => x.sessionId)).toEqual([S])
          expect((r.receipts as any).storeMode).toBe("snapshot")
        })), GAUNTLET_TIMEOUT)
    it.effect("import: accepted with every committed line", () =>
      walWriter((s) =>
        Effect.map(guarded([s.storeDir], importRun(s.priv, s.policy, { agents: [UID] })), (o) => {
          expect(expectOk(o).eventsAdded).toBe(3)
        })), GAUNTLET_TIMEOUT)
  })
})
