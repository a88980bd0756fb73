/**
 * A zone's `output.tsidx` the store cannot give as records, and a
 * `db_wave_file.size` larger than a file's parts (tester16 findings 4c and 8).
 * AgentMux's policy is "skip the line, count it" (README, providers table):
 * - a line of `output.tsidx` that is no `{"off":N,"ms":M}` record (N, M
 *   non-negative safe integers: `garbage line`, `{"off":"x","ms":"y"}`,
 *   `{"off":0,"ms":99999999999999999}`) is skipped and counted as the parse
 *   warning `unreadable-tsidx-line`, for the session whose lines the
 *   sidecar's part holding it dates (first at that session's first line so
 *   dated); a part of `output.tsidx` missing from the store or not bytes (an
 *   INTEGER where the blob should be) is counted as `tsidx-part-missing`,
 *   once a part. Both in `inspect`, `stream` (stderr) and the import report.
 * - `output` whose `db_wave_file.size` says more bytes than its parts hold:
 *   one `MISSING_PART` (the range past the parts), no `PARTIAL_LINE` (no
 *   unterminated bytes are in the store), and the receive times the sidecar's
 *   own parts hold still date the lines.
 * Expected values are worked out from the bytes written here.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import type Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { assistant, CURRENT, init, layout, UID } from "./fixture.js"
import { agentmuxAdapter, createStore, PART, streamedSession, tsidxRecord, withStore } from "./store-helper.js"

const T = 1_735_689_600_000 // 2025-01-01T00:00:00Z
const iso = (ms: number) => new Date(ms).toISOString()
const SID = "S-T"
const z = layout([init(SID, "/home/dev/t"), ...[1, 2, 3, 4].map((i) => assistant(SID, `m${i}`, [{ type: "text", text: `answer ${i}` }]))])
const goodTsidx = z.lines.map((l, i) => tsidxRecord(l.start, T + i * 1000)).join("")
const GARBAGE = "garbage line\n{\"off\":\"x\",\"ms\":\"y\"}\n{\"off\":0,\"ms\":99999999999999999}\n"

/** A store with session S-T in the current zone and `tsidx` as its sidecar; `edit` changes the store after. */
const makeStore = (tsidx: string, edit?: (db: Database.Database) => void) => {
  const dir = tempDir("si-am-tsidx-")
  const store = nodePath.join(dir, "filestore.db")
  createStore(store, [
    { zoneId: CURRENT, name: "output", bytes: z.bytes },
    { zoneId: CURRENT, name: "output.tsidx", bytes: Buffer.from(tsidx) }
  ])
  if (edit !== undefined) withStore(store, edit)
  fs.mkdirSync(nodePath.join(dir, "agents"))
  return { dir, store, state: nodePath.join(dir, "state.db") }
}

const loc = { locatorClass: "agentmux-agent-record" as const, path: "", agentId: UID, sessionId: SID }

/** The session's events and the warnings `stream` hands on after them. */
const streamed = (s: { store: string; state: string }) => streamedSession(s, loc)

describe("AgentMux: output.tsidx lines that are no record are skipped and counted (tester16 finding 4c)", () => {
  it.effect("a sidecar of garbage lines: every event kept without a time, unreadable-tsidx-line 3 in transcript, inspect and stream", () =>
    Effect.gen(function*() {
      const s = makeStore(GARBAGE)
      const t = yield* agentmuxAdapter(s, (a) => a.transcript(loc))
      expect(t.parseWarnings).toEqual([{ kind: "unreadable-tsidx-line", count: 3, firstLine: 1 }])
      const { events, warnings } = yield* streamed(s)
      // The init line starts the session (no event); the four answers are events.
      expect(events.length).toBe(4)
      expect(events.map((e) => e.occurredAt)).toEqual([null, null, null, null])
      expect(warnings.map((w) => [w.code, w.details])).toEqual([["PARSE_WARNING", { kind: "unreadable-tsidx-line", count: 3, firstLine: 1 }]])
      expect(warnings[0].message).toContain("output.tsidx")
      expect(warnings[0].message).toContain("skipped")
      const i = yield* agentmuxAdapter(s, (a) => a.inspect(loc))
      const w = i.diagnostics.filter((d) => d.code === "PARSE_WARNING")
      expect(w.map((d) => d.details)).toEqual([{ kind: "unreadable-tsidx-line", count: 3, firstLine: 1 }])
    }))

  it.effect("one bad line among good records: counted once; the lines keep the times of the good records", () =>
    Effect.gen(function*() {
      const lines = goodTsidx.split("\n")
      const tsidx = [lines[0], lines[1], "{\"off\":-3,\"ms\":1}", ...lines.slice(2)].join("\n")
      const s = makeStore(tsidx)
      const { events, warnings } = yield* streamed(s)
      expect(events.map((e) => e.occurredAt)).toEqual([1, 2, 3, 4].map((i) => iso(T + i * 1000)))
      expect(warnings.map((w) => w.details)).toEqual([{ kind: "unreadable-tsidx-line", count: 1, firstLine: 1 }])
    }))

  it.effect("a good sidecar: no warning (unchanged)", () =>
    Effect.gen(function*() {
      const { events, warnings } = yield* streamed(makeStore(goodTsidx))
      expect(events.map((e) => e.occurredAt)).toEqual([1, 2, 3, 4].map((i) => iso(T + i * 1000)))
      expect(warnings).toEqual([])
    }))

  it.effect("a sidecar whose blob is an INTEGER, not bytes: tsidx-part-missing 1, no unreadable-tsidx-line", () =>
    Effect.gen(function*() {
      const s = makeStore(goodTsidx, (db) => {
        db.prepare("UPDATE db_file_data SET data = 12345 WHERE zoneid = ? AND name = 'output.tsidx'").run(CURRENT)
      })
      const { events, warnings } = yield* streamed(s)
      expect(events.map((e) => e.occurredAt)).toEqual([null, null, null, null])
      expect(warnings.map((w) => w.details)).toEqual([{ kind: "tsidx-part-missing", count: 1, firstLine: 1 }])
      expect(warnings[0].message).toContain("output.tsidx")
    }))

  it("the CLI: import's report (text and --json) and stream's stderr count them", () => {
    const s = makeStore(GARBAGE)
    const args = ["--store", s.store, "--state", s.state, "--agent", UID]
    const index = nodePath.join(s.dir, "index.db")
    const imp = ["import", ...args, "--agents-root", nodePath.join(s.dir, "agents"), "--index", index]
    const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", MUSE_AGENTS_DIR: "" }
    const j = cli([...imp, "--json"], { env })
    const data = JSON.parse(j.stdout.trim().split("\n").pop()!).data
    expect(data.parseWarnings.byKind).toEqual({ "unreadable-tsidx-line": 3 })
    const t = cli(imp, { env })
    expect(t.stdout).toMatch(/parse warnings: 3 lines skipped in 1 source \(unreadable-tsidx-line 3\)/)
    const st = cli(["stream", "agentmux", ...args, "--session", SID], { env })
    expect(st.code).toBe(0)
    expect(st.stderr).toMatch(/warning: PARSE_WARNING: 3 .*output\.tsidx.*skipped/)
  })

  it("the CLI: a sidecar part missing is counted as a part left out, never as a line skipped", () => {
    const s = makeStore(goodTsidx, (db) => {
      db.prepare("UPDATE db_file_data SET data = 12345 WHERE zoneid = ? AND name = 'output.tsidx'").run(CURRENT)
    })
    const args = ["--store", s.store, "--state", s.state, "--agent", UID]
    const index = nodePath.join(s.dir, "index.db")
    const imp = ["import", ...args, "--agents-root", nodePath.join(s.dir, "agents"), "--index", index]
    const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", MUSE_AGENTS_DIR: "" }
    const data = JSON.parse(cli([...imp, "--json"], { env }).stdout.trim().split("\n").pop()!).data
    expect({ lines: data.parseWarnings.lines, files: data.parseWarnings.files, byKind: data.parseWarnings.byKind })
      .toEqual({ lines: 0, files: 1, byKind: { "tsidx-part-missing": 1 } })
    const t = cli(imp, { env })
    expect(t.stdout).toMatch(/parse warnings: 1 output\.tsidx part left out \(tsidx-part-missing 1: missing from the store[^)]*\) in 1 source; every line was read/)
    expect(t.stdout).not.toMatch(/lines? skipped/)
  })
})

describe("AgentMux: db_wave_file.size larger than the file's parts (tester16 finding 8)", () => {
  const SCALE = 1000
  const lying = () =>
    makeStore(goodTsidx, (db) => {
      db.prepare("UPDATE db_wave_file SET size = size * ? WHERE zoneid = ?").run(SCALE, CURRENT)
    })

  it.effect("one MISSING_PART for the bytes past the parts, no PARTIAL_LINE; the sidecar's records still date the lines", () =>
    Effect.gen(function*() {
      const s = lying()
      const d = yield* agentmuxAdapter(s, (a) => a.discover({ agentId: UID }))
      const size = z.bytes.length * SCALE
      expect(d.diagnostics.map((x) => x.code)).toEqual(["MISSING_PART"])
      expect(d.diagnostics[0].details).toEqual({ zone: CURRENT, lines: 0, ranges: [{ start: z.bytes.length, end: size }] })
      expect(d.coverage).toBe("partial")
      expect(d.sources.map((x) => [x.sessionId, x.overview.firstActivityAt, x.overview.lastActivityAt])).toEqual([[SID, iso(T), iso(T + 4000)]])
      const { events, warnings } = yield* streamed(s)
      expect(events.map((e) => e.occurredAt)).toEqual([1, 2, 3, 4].map((i) => iso(T + i * 1000)))
      // The sidecar's size says ceil(size / 64 KiB) parts; none is whole in the store.
      expect(warnings.map((w) => w.details)).toEqual([{ kind: "tsidx-part-missing", count: Math.ceil((goodTsidx.length * SCALE) / PART), firstLine: 1 }])
    }))

  it("import prints MISSING_PART once, no PARTIAL_LINE", () => {
    const s = lying()
    const r = cli(["import", "--store", s.store, "--state", s.state, "--agent", UID, "--agents-root", nodePath.join(s.dir, "agents"), "--index", nodePath.join(s.dir, "i.db")], {
      env: { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", MUSE_AGENTS_DIR: "" }
    })
    expect(r.code).toBe(8)
    expect(r.stdout.split("MISSING_PART: ").length - 1).toBe(1)
    expect(r.stdout).not.toContain("PARTIAL_LINE")
  })
})
