/**
 * A rescan answers what a first scan of the same store answers (seed 002: "a
 * later search reads only what was appended"; issue 13: a rescan may keep
 * what it found before, never a different answer). Generated histories of a
 * store, WAL (a writer kept open, as AgentMux keeps it) and rollback journal:
 * appends of whole and half lines of several sessions (deltas, messages,
 * echoes without a session, unreadable lines), archives ("New conversation"),
 * checkpoints, a zone cleared and rewritten, a zone cut shorter, a VACUUM, the
 * store replaced by another file. After every step, discovery with the state
 * kept since the first step and discovery with a new state (and a new cache)
 * give the same sessions, the same status and the same diagnostics (but the
 * receipts of what was read again); and no read changes a byte of the store's
 * folder.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import type { DiscoveryReport } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { assistant, delta, echo, init, result } from "./fixture.js"
import { appendBytes, createStore, fingerprint, tsidxRecord, writeFile } from "./store-helper.js"

const UID = "u7"
const CURRENT = `agent:${UID}:current`

let dir: string
let storeDir: string
let store: string

beforeEach(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "am-rescan-"))
  storeDir = nodePath.join(dir, "store")
  fs.mkdirSync(storeDir)
  store = nodePath.join(storeDir, "filestore.db")
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

type LineKind = "delta" | "assistant" | "echo" | "init" | "result" | "unreadable"
interface Line {
  readonly kind: LineKind
  readonly sid: number
  readonly size: number
}
type Op =
  | { readonly _tag: "append"; readonly lines: ReadonlyArray<Line>; readonly half: boolean; readonly ms: number }
  | { readonly _tag: "checkpoint" }
  | { readonly _tag: "archive"; readonly ms: number }
  | { readonly _tag: "rewrite"; readonly lines: ReadonlyArray<Line>; readonly sameCreated: boolean }
  | { readonly _tag: "truncate"; readonly keep: number }
  | { readonly _tag: "vacuum" }
  | { readonly _tag: "replace" }

const arbLine = fc.record({
  kind: fc.constantFrom<LineKind>("delta", "delta", "delta", "assistant", "echo", "init", "result", "unreadable"),
  sid: fc.integer({ min: 0, max: 4 }),
  size: fc.integer({ min: 0, max: 3000 })
})
const arbLines = fc.array(arbLine, { minLength: 1, maxLength: 30 })
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ _tag: fc.constant("append" as const), lines: arbLines, half: fc.boolean(), ms: fc.integer({ min: 1, max: 50_000 }) }) },
  { weight: 2, arbitrary: fc.constant({ _tag: "checkpoint" as const }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("archive" as const), ms: fc.integer({ min: 1, max: 1000 }) }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("rewrite" as const), lines: arbLines, sameCreated: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("truncate" as const), keep: fc.double({ min: 0, max: 0.9, noNaN: true }) }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "vacuum" as const }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "replace" as const }) }
)

const sidOf = (n: number) => `S-${n}`
const textOf = (l: Line, i: number) => {
  const pad = "p".repeat(l.size)
  const sid = sidOf(l.sid)
  switch (l.kind) {
    case "delta":
      return delta(sid, `${pad}${i}`)
    case "assistant":
      return assistant(sid, `m${i}`, [{ type: "text", text: `${pad}${i}` }])
    case "echo":
      return echo(`typed ${pad}${i}`)
    case "init":
      return init(sid, `/home/dev/${sid}-${i % 3}`)
    case "result":
      return result(sid, `done ${i}`)
    case "unreadable":
      return `{"type":"assistant","message":${pad}`
  }
}

/** A store written step by step, as AgentMux writes it; the writer kept open in WAL mode. */
class History {
  private writer: Database.Database | null = null
  private half = ""
  private n = 0
  private clock = 1_700_000_000_000
  private created = 1_699_000_000_000
  private archives = 0
  constructor(private readonly wal: boolean) {
    createStore(store, [], { wal })
    this.open()
  }
  private open() {
    this.writer = new Database(store)
    if (!this.wal) this.writer.pragma("journal_mode = DELETE")
  }
  close() {
    this.writer?.close()
    this.writer = null
  }
  private size(zone: string, name: string): number {
    const row = this.writer!.prepare("SELECT size FROM db_wave_file WHERE zoneid = ? AND name = ?").get(zone, name) as
      | { size: number }
      | undefined
    return row?.size ?? -1
  }
  private bytesOf(zone: string, name: string): Buffer {
    const rows = this.writer!.prepare("SELECT data FROM db_file_data WHERE zoneid = ? AND name = ? ORDER BY partidx").all(zone, name) as Array<{ data: Buffer }>
    return Buffer.concat(rows.map((r) => r.data))
  }
  private text(lines: ReadonlyArray<Line>): string {
    return lines.map((l) => `${textOf(l, this.n++)}\n`).join("")
  }
  private newZone(bytes: Buffer, sameCreated = false) {
    if (!sameCreated) this.created += 1000
    writeFile(this.writer!, { zoneId: CURRENT, name: "output", bytes, createdTs: this.created })
    writeFile(this.writer!, { zoneId: CURRENT, name: "output.tsidx", bytes: Buffer.from(tsidxRecord(0, this.clock)) })
  }
  apply(op: Op) {
    const w = this.writer!
    switch (op._tag) {
      case "append": {
        this.clock += op.ms
        const body = this.half + this.text(op.lines)
        const cut = op.half ? Math.floor(body.length / 2) : body.length
        // A half line ends the append when asked (an append in progress); the next append completes it.
        const lastNl = body.lastIndexOf("\n", cut - 1)
        const give = op.half && lastNl >= 0 ? body.slice(0, cut) : body
        this.half = ""
        w.transaction(() => {
          const at = Math.max(0, this.size(CURRENT, "output"))
          if (this.size(CURRENT, "output") < 0) this.newZone(Buffer.alloc(0))
          appendBytes(w, CURRENT, "output", Buffer.from(give, "utf8"))
          appendBytes(w, CURRENT, "output.tsidx", Buffer.from(tsidxRecord(at, this.clock)))
        })()
        if (give.length < body.length) this.half = body.slice(give.length)
        break
      }
      case "checkpoint":
        if (this.wal) w.pragma("wal_checkpoint(TRUNCATE)")
        break
      case "archive": {
        if (this.size(CURRENT, "output") < 0) break
        const zone = `agent:${UID}:archive:${1_700_000_000_000 + ++this.archives * 1000 + op.ms}`
        w.transaction(() => {
          for (const name of ["output", "output.tsidx"]) {
            writeFile(w, { zoneId: zone, name, bytes: this.bytesOf(CURRENT, name), createdTs: this.created })
            w.prepare("DELETE FROM db_wave_file WHERE zoneid = ? AND name = ?").run(CURRENT, name)
            w.prepare("DELETE FROM db_file_data WHERE zoneid = ? AND name = ?").run(CURRENT, name)
          }
        })()
        this.half = ""
        break
      }
      case "rewrite":
        this.half = ""
        w.transaction(() => this.newZone(Buffer.from(this.text(op.lines), "utf8"), op.sameCreated))()
        break
      case "truncate": {
        const bytes = this.bytesOf(CURRENT, "output")
        if (bytes.length === 0) break
        const at = bytes.lastIndexOf(10, Math.floor(bytes.length * op.keep))
        const keep = bytes.subarray(0, at + 1)
        this.half = ""
        w.transaction(() => this.newZone(Buffer.from(keep), true))()
        break
      }
      case "vacuum":
        w.exec("VACUUM")
        break
      case "replace": {
        const files = this.writer!.prepare("SELECT zoneid, name, createdts FROM db_wave_file").all() as Array<{ zoneid: string; name: string; createdts: number }>
        const all = files.map((f) => ({ zoneId: f.zoneid, name: f.name, bytes: this.bytesOf(f.zoneid, f.name), createdTs: f.createdts }))
        this.close()
        for (const s of ["", "-wal", "-shm"]) fs.rmSync(`${store}${s}`, { force: true })
        createStore(store, all, { wal: this.wal })
        this.open()
        break
      }
    }
  }
}

let fresh = 0
const discover = (state: string) =>
  Effect.runPromise(
    Effect.flatMap(SessionSources, (s) => s.get("agentmux")).pipe(
      Effect.flatMap((a) => a.discover({ agentId: UID })),
      Effect.provide(App.layer({ agentmuxStore: store, stateFile: state }))
    )
  )
/** What a rescan must agree on with a first scan: everything but the receipts and the "read again" notes. */
const answer = (r: DiscoveryReport) => ({
  status: r.status,
  coverage: r.coverage,
  reasonCode: r.reasonCode,
  sourceCount: r.sourceCount,
  sources: r.sources,
  diagnostics: r.diagnostics.filter((d) => d.code !== "ZONE_READ_AGAIN")
})

let histories = 0
const history = async (wal: boolean, ops: ReadonlyArray<Op>) => {
  for (const name of fs.readdirSync(storeDir)) fs.rmSync(nodePath.join(storeDir, name))
  const h = new History(wal)
  const kept = nodePath.join(dir, `kept-${histories++}`, "state.db")
  try {
    for (const [i, op] of ops.entries()) {
      h.apply(op)
      const before = fingerprint(storeDir)
      const rescan = await discover(kept)
      const first = await discover(nodePath.join(dir, `fresh-${fresh++}`, "state.db"))
      expect(fingerprint(storeDir), `step ${i} (${op._tag}) changed the store's folder`).toEqual(before)
      expect(answer(rescan), `step ${i}: ${op._tag}`).toStrictEqual(answer(first))
    }
  } finally {
    h.close()
  }
}

const cases = (seed: number) => fc.sample(fc.array(arbOp, { minLength: 3, maxLength: 9 }), { numRuns: 12, seed })

describe("a rescan answers what a first scan of the same store answers", () => {
  it("WAL store, a writer kept open (generated histories)", async () => {
    for (const ops of cases(8)) await history(true, ops)
  }, 240_000)

  it("rollback-journal store (generated histories)", async () => {
    for (const ops of cases(9)) await history(false, ops)
  }, 240_000)

  it("one session's lines appended over many rescans, between other sessions' runs (the touched run moves first)", async () => {
    const line = (kind: LineKind, sid: number): Line => ({ kind, sid, size: 40 })
    const ops: Array<Op> = [{ _tag: "append", lines: [0, 1, 2, 3, 4].flatMap((s) => [line("init", s), line("delta", s)]), half: false, ms: 10 }]
    for (let i = 0; i < 8; i++) {
      ops.push({ _tag: "append", lines: [line("delta", i % 5), line("assistant", i % 5)], half: i % 3 === 0, ms: i % 2 === 0 ? 5 : 0 })
      if (i === 4) ops.push({ _tag: "checkpoint" })
    }
    await history(true, ops)
  }, 120_000)
})
