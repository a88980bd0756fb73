/**
 * The gauntlet for `muse-agents` (seed 000; policy TOLERANT: a bad line is
 * skipped and counted as a parse warning, never fatal; only a file with no
 * `session_header` is not a session, `MALFORMED_SOURCE`).
 *
 * Every content case writes one transcript `<root>/a1/sessions/a1.jsonl`:
 * a header, a user message "first prompt", the case's bytes, and an
 * assistant message "last answer". The table states, from the policy, the
 * parse warnings by kind and count, the texts of the events that survive (in
 * order), their times, and the inspection status; each entry point is
 * checked against it.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Locator, SessionEvent } from "../../src/domain/model.js"
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
  padToSplit,
  SEPARATORS,
  titleOf,
  writeBigLineFile,
  YEAR_10000,
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

const AGENT = "a1"
const SID = "S1"
const T_HEADER = "2026-09-25T10:00:00.000Z"
const T_FIRST = "2026-09-25T10:00:01.000Z"
const T_LAST = "2026-09-25T10:00:09.000Z"

const header = (sid = SID) =>
  JSON.stringify({ type: "session_header", session_id: sid, agent_id: AGENT, created_at: "2026-09-25T10:00:00Z" })
const item = (seq: unknown, inner: Record<string, unknown>, createdAt: unknown = "2026-09-25T10:00:05Z") =>
  JSON.stringify({ type: "item", seq, source: "runtime", item: inner, created_at: createdAt })
const user = (text: string, createdAt: unknown = "2026-09-25T10:00:01Z") =>
  item(1, { type: "message", role: "user", text }, createdAt)
const last = () => item(9, { type: "message", role: "assistant", text: "last answer" }, "2026-09-25T10:00:09Z")

/** header + "first prompt" + middle + "last answer", each `\n`-terminated; `middle` brings its own line ends. */
const transcript = (middle: string | Buffer = "", first = user("first prompt")) =>
  Buffer.concat([Buffer.from(`${header()}\n${first}\n`), Buffer.from(middle), Buffer.from(`${last()}\n`)])

/** What the policy implies for a content case. */
interface Verdict {
  /** The file's bytes (or, for the 64 MiB case, a prebuilt agents root shared by the file's cases, read-only). */
  readonly bytes: () => Buffer | { readonly root: string }
  /** `MALFORMED_SOURCE` for inspect/stream: no session header (not a session). */
  readonly notASession?: true
  readonly warnings?: Record<string, number>
  readonly texts?: ReadonlyArray<string>
  readonly times?: ReadonlyArray<string | null>
  readonly status?: "complete" | "provisional"
  /** Extra checks on the streamed events. */
  readonly events?: (events: ReadonlyArray<SessionEvent>) => void
  /** The closest variant tested, when the case does not apply as written. */
  readonly variant?: string
}

const BOTH = ["first prompt", "last answer"] as const

// The first-prompt line starts right after the header line; its text value starts after this JSON prefix.
const userPrefix = (text: string) => user(text).slice(0, user(text).indexOf("\"text\":\"") + 8)

let bigRoot: string
let bigDir: string
beforeAll(() => {
  bigDir = fileDir()
  bigRoot = nodePath.join(bigDir, "agents")
  const big = nodePath.join(bigRoot, AGENT, "sessions", `${AGENT}.jsonl`)
  fs.mkdirSync(nodePath.dirname(big), { recursive: true })
  writeBigLineFile(big, {
    head: `${header()}\n${user("first prompt")}\n`,
    prefix: item(2, { type: "message", role: "user", text: "" }).slice(0, -3),
    suffix: "\"}}",
    tail: `${last()}\n`
  })
  snapshotDir(bigRoot) // digest the 64 MiB input once (cached by inode and ctime)
})
afterAll(() => fs.rmSync(bigDir, { recursive: true, force: true }))

const multibyteText = (() => {
  const headLen = Buffer.byteLength(`${header()}\n`)
  const pad = padToSplit(headLen, Buffer.byteLength(userPrefix("x")), MIB, 1)
  return `${pad}${EMOJI} end`
})()

const CONTENT: Partial<Record<CaseId, Verdict>> = {
  "empty": { bytes: () => Buffer.alloc(0), notASession: true },
  "bom-only": { bytes: () => BOM, notASession: true },
  "crlf": {
    bytes: () => Buffer.from(transcript().toString("utf8").replace(/\n/g, "\r\n")),
    warnings: {},
    texts: BOTH,
    status: "complete"
  },
  "cut-at-eof": {
    bytes: () =>
      Buffer.concat([transcript(), Buffer.from(item(10, { type: "message", role: "user", text: "cut short" }).slice(0, 40))]),
    warnings: { "truncated-line": 1 },
    texts: BOTH,
    status: "provisional"
  },
  "torn-continued": {
    bytes: () => transcript(`${user("torn").slice(0, 30)}${item(2, { type: "message", role: "user", text: "continued" })}\n`),
    warnings: { "malformed-json": 1 },
    texts: BOTH,
    status: "complete"
  },
  "multibyte-split": {
    variant: "a 4-byte character cut 1|3 by the 1 MiB read step",
    bytes: () => transcript("", user(multibyteText)),
    warnings: {},
    texts: [multibyteText, "last answer"],
    status: "complete"
  },
  "control-nul": {
    bytes: () => transcript(`${user(CONTROL).replace(JSON.stringify(CONTROL), `"${CONTROL}"`)}\n`),
    warnings: { "malformed-json": 1 },
    texts: BOTH,
    status: "complete"
  },
  "u2028": {
    bytes: () => transcript(`${user(SEPARATORS)}\n`),
    warnings: {},
    texts: ["first prompt", SEPARATORS, "last answer"],
    status: "complete"
  },
  "lone-surrogate": {
    bytes: () => transcript(`${user("@@").replace("\"@@\"", LONE_SURROGATE_JSON)}\n`),
    warnings: {},
    texts: ["first prompt", LONE_SURROGATE, "last answer"],
    status: "complete"
  },
  "non-object-lines": {
    bytes: () => transcript("null\n[1,2,3]\n42\n"),
    warnings: { "non-object": 3 },
    texts: BOTH,
    status: "complete"
  },
  "duplicate-keys": {
    // JSON.parse keeps the last occurrence of a key; the record is read as that.
    bytes: () =>
      transcript(
        "{\"type\":\"bogus\",\"seq\":2,\"type\":\"item\",\"item\":{\"type\":\"message\",\"role\":\"user\",\"text\":\"first\",\"text\":\"second\"},\"created_at\":\"2026-09-25T10:00:05Z\"}\n"
      ),
    warnings: {},
    texts: ["first prompt", "second", "last answer"],
    status: "complete"
  },
  "big-ids": {
    // A seq beyond 2^53 is not kept as a rounded number (null); a call id that is a number is not an id.
    bytes: () =>
      transcript(
        `${item(BIG_ID, { type: "message", role: "user", text: "big seq" }).replace(`"${BIG_ID}"`, BIG_ID)}\n` +
          `${item(3, { type: "function_call", call_id: BIG_ID, name: "exec", arguments: "{}" }).replace(`"${BIG_ID}"`, BIG_ID)}\n`
      ),
    warnings: { "invalid-record": 1 },
    texts: ["first prompt", "big seq", "last answer"],
    status: "complete",
    events: (es) => {
      const n = es.find((e) => e.text === "big seq")!.extensions["native.muse-agents"] as Record<string, unknown>
      expect(n.seq).toBeNull()
    }
  },
  "nested-100": {
    bytes: () => transcript(`${item(2, { type: "message", role: "user", text: "deep" }).slice(0, -1)},"deep":${nested(100)}}\n`),
    warnings: { "too-deep": 1 },
    texts: BOTH,
    status: "complete"
  },
  "line-64mib": {
    bytes: () => ({ root: bigRoot }),
    warnings: { "oversized-line": 1 },
    texts: BOTH,
    status: "complete"
  },
  // A time that is not RFC 3339 (no zone) or out of range (the year 10000): kept without a time, counted (issue 7:
  // "a typed error or a counted warning"; Claude Code counts the same kind).
  "ts-no-zone": {
    bytes: () => transcript("", user("first prompt", NO_ZONE)),
    warnings: { "timestamp-not-valid": 1 },
    texts: BOTH,
    times: [null, T_LAST],
    status: "complete"
  },
  "ts-seconds": {
    bytes: () => transcript("", user("first prompt", EPOCH.seconds)),
    warnings: {},
    texts: BOTH,
    times: [EPOCH_ISO.seconds, T_LAST],
    status: "complete"
  },
  "ts-millis": {
    bytes: () => transcript("", user("first prompt", EPOCH.millis)),
    warnings: {},
    texts: BOTH,
    times: [EPOCH_ISO.millis, T_LAST],
    status: "complete"
  },
  "ts-micros": {
    bytes: () => transcript("", user("first prompt", EPOCH.micros)),
    warnings: {},
    texts: BOTH,
    times: [EPOCH_ISO.micros, T_LAST],
    status: "complete"
  },
  "ts-year-10000": {
    bytes: () => transcript(`${user("micros", YEAR_10000_MICROS)}\n`, user("first prompt", YEAR_10000)),
    warnings: { "timestamp-not-valid": 2 },
    texts: ["first prompt", "micros", "last answer"],
    times: [null, null, T_LAST],
    status: "complete"
  }
}

const warningsOf = (ws: ReadonlyArray<{ kind: string; count: number }>) =>
  Object.fromEntries(ws.map((w) => [w.kind, w.count]))

/** A case's folder: `root` (the agents root, watched) and `priv` (state, index). */
const setup = (v: Verdict) => {
  const dir = caseDir()
  const priv = nodePath.join(dir, "private")
  fs.mkdirSync(priv, { recursive: true })
  const b = v.bytes()
  const root = Buffer.isBuffer(b) ? nodePath.join(dir, "agents") : b.root
  const file = nodePath.join(root, AGENT, "sessions", `${AGENT}.jsonl`)
  if (Buffer.isBuffer(b)) put(root, nodePath.relative(root, file), b)
  const policy = isolatedPolicy(priv, { agentsRoot: root })
  const locator: Locator = { locatorClass: "muse-agent-transcript", path: file }
  return { dir, root, priv, file, policy, locator }
}

describe("gauntlet: muse-agents (tolerant)", () => {
  it("the table covers every case of issue 7", () => {
    const special: ReadonlyArray<CaseId> = [
      "symlink-loop",
      "root-is-file",
      "grows-while-streamed",
      "replaced-while-streamed",
      "sqlite-locked",
      "sqlite-wal-writer"
    ]
    for (const [id] of CASES) expect(id in CONTENT || special.includes(id), id).toBe(true)
  })

  for (const [id, v] of Object.entries(CONTENT) as Array<[CaseId, Verdict]>) {
    const name = `${titleOf(id)}${v.variant !== undefined ? ` (closest variant: ${v.variant})` : ""}`
    describe(name, () => {
      it.effect("inspect", () =>
        Effect.gen(function*() {
          const s = setup(v)
          const o = yield* guarded([s.root], inspect("muse-agents", s.policy, s.locator), { limit: limitOf(id) })
          if (v.notASession) return expectFail(o, "MALFORMED_SOURCE")
          const r = expectOk(o)
          expect(r.status).toBe(v.status)
          expect(r.eventCount).toBe(v.texts!.length)
          expect(warningsOf(r.diagnostics.filter((d) => d.code === "PARSE_WARNING").map((d) => d.details as any))).toEqual(
            v.warnings
          )
        }), limitOf(id))

      it.effect("stream", () =>
        Effect.gen(function*() {
          const s = setup(v)
          const o = yield* guarded([s.root], stream("muse-agents", s.policy, s.locator), { limit: limitOf(id) })
          if (v.notASession) return expectFail(o, "MALFORMED_SOURCE")
          const events = expectOk(o)
          expect(events.map((e) => e.text)).toEqual(v.texts)
          for (const e of events) expect(e.text).not.toContain("\uFFFD")
          if (v.times !== undefined) expect(events.map((e) => e.occurredAt)).toEqual(v.times)
          v.events?.(events)
        }), limitOf(id))

      it.effect("discover", () =>
        Effect.gen(function*() {
          const s = setup(v)
          const r = expectOk(yield* guarded([s.root], discover("muse-agents", s.policy), { limit: limitOf(id) }))
          expect(r.coverage).toBe("complete")
          if (v.notASession) {
            expect(r.sources).toEqual([])
            expect(r.receipts).toMatchObject({ transcriptsRead: 1, withoutHeader: 1 })
            return
          }
          expect(r.sources.length).toBe(1)
          expect(warningsOf(r.sources[0].summary.parseWarnings as any)).toEqual(v.warnings)
        }), limitOf(id))

      it.effect("import", () =>
        Effect.gen(function*() {
          const s = setup(v)
          const r = expectOk(yield* guarded([s.root], importRun(s.priv, s.policy), { limit: limitOf(id) }))
          expect(rejectedCodes(r)).toEqual({})
          if (v.notASession) {
            expect(r.sources).toMatchObject({ discovered: 0, accepted: 0 })
            return
          }
          expect(r.sources).toMatchObject({ discovered: 1, accepted: 1, rejected: 0 })
          expect(r.eventsAdded).toBe(v.texts!.length)
        }), limitOf(id))
    })
  }

  describe(titleOf("symlink-loop"), () => {
    // loopA -> loopB -> loopA under the root, and b1's transcript a symlink to itself.
    const loops = () => {
      const s = setup({ bytes: () => transcript() })
      fs.symlinkSync("loopB", nodePath.join(s.root, "loopA"))
      fs.symlinkSync("loopA", nodePath.join(s.root, "loopB"))
      const b1 = nodePath.join(s.root, "b1", "sessions")
      fs.mkdirSync(b1, { recursive: true })
      fs.symlinkSync("b1.jsonl", nodePath.join(b1, "b1.jsonl"))
      const through: Locator = { locatorClass: "muse-agent-transcript", path: nodePath.join(s.root, "loopA", "sessions", "loopA.jsonl") }
      const self: Locator = { locatorClass: "muse-agent-transcript", path: nodePath.join(b1, "b1.jsonl") }
      return { ...s, through, self }
    }
    it.effect("inspect: through the loop, and of a self-linked transcript: SOURCE_SYMLINK", () =>
      Effect.gen(function*() {
        const s = loops()
        expectFail(yield* guarded([s.root], inspect("muse-agents", s.policy, s.through)), "SOURCE_SYMLINK")
        expectFail(yield* guarded([s.root], inspect("muse-agents", s.policy, s.self)), "SOURCE_SYMLINK")
      }), GAUNTLET_TIMEOUT)
    it.effect("stream: SOURCE_SYMLINK", () =>
      Effect.gen(function*() {
        const s = loops()
        expectFail(yield* guarded([s.root], stream("muse-agents", s.policy, s.through)), "SOURCE_SYMLINK")
        expectFail(yield* guarded([s.root], stream("muse-agents", s.policy, s.self)), "SOURCE_SYMLINK")
      }), GAUNTLET_TIMEOUT)
    it.effect("discover: the good session listed, three symlinks skipped with diagnostics, coverage partial", () =>
      Effect.gen(function*() {
        const s = loops()
        const r = expectOk(yield* guarded([s.root], discover("muse-agents", s.policy)))
        expect(r.sources.map((x) => x.sessionId)).toEqual([SID])
        expect(r.diagnostics.filter((d) => d.code === "SYMLINK_SKIPPED").length).toBe(3)
        expect(r.coverage).toBe("partial")
      }), GAUNTLET_TIMEOUT)
    it.effect("import: the good session imported, coverage partial", () =>
      Effect.gen(function*() {
        const s = loops()
        const r = expectOk(yield* guarded([s.root], importRun(s.priv, s.policy)))
        expect(r.sources).toMatchObject({ accepted: 1, rejected: 0 })
        expect(r.eventsAdded).toBe(2)
        expect(r.coverage).toBe("partial")
      }), GAUNTLET_TIMEOUT)
  })

  describe(titleOf("root-is-file"), () => {
    const fileRoot = () => {
      const s = setup({ bytes: () => transcript() })
      const rootFile = nodePath.join(s.dir, "agents-file")
      fs.writeFileSync(rootFile, transcript())
      const policy = { ...s.policy, agentsRoot: rootFile }
      const locator: Locator = { locatorClass: "muse-agent-transcript", path: nodePath.join(rootFile, AGENT, "sessions", `${AGENT}.jsonl`) }
      return { ...s, rootFile, policy, locator }
    }
    it.effect("inspect: a path through the file: SOURCE_NOT_REGULAR_FILE", () =>
      Effect.gen(function*() {
        const s = fileRoot()
        expectFail(yield* guarded([s.root, s.rootFile], inspect("muse-agents", s.policy, s.locator)), "SOURCE_NOT_REGULAR_FILE")
      }), GAUNTLET_TIMEOUT)
    it.effect("stream: SOURCE_NOT_REGULAR_FILE", () =>
      Effect.gen(function*() {
        const s = fileRoot()
        expectFail(yield* guarded([s.root, s.rootFile], stream("muse-agents", s.policy, s.locator)), "SOURCE_NOT_REGULAR_FILE")
      }), GAUNTLET_TIMEOUT)
    it.effect("discover: unavailable, AGENTS_ROOT_UNREADABLE (SOURCE_NOT_REGULAR_FILE), coverage partial", () =>
      Effect.gen(function*() {
        const s = fileRoot()
        const r = expectOk(yield* guarded([s.root, s.rootFile], discover("muse-agents", s.policy)))
        expect(r).toMatchObject({ status: "unavailable", reasonCode: "AGENTS_ROOT_UNREADABLE", coverage: "partial", sources: [] })
        expect(r.diagnostics[0].details).toMatchObject({ code: "SOURCE_NOT_REGULAR_FILE" })
      }), GAUNTLET_TIMEOUT)
    it.effect("import: nothing imported, muse-agents partial, the run's coverage partial", () =>
      Effect.gen(function*() {
        const s = fileRoot()
        const r = expectOk(yield* guarded([s.root, s.rootFile], importRun(s.priv, s.policy)))
        expect(r.sources).toMatchObject({ discovered: 0, accepted: 0, rejected: 0 })
        expect(r.providers.find((p) => p.provider === "muse-agents")).toMatchObject({
          status: "unavailable",
          coverage: "partial",
          reasonCode: "AGENTS_ROOT_UNREADABLE"
        })
        expect(r.coverage).toBe("partial")
      }), GAUNTLET_TIMEOUT)
  })

  // ---- live cases: a writer appends (through its own fd) or replaces the transcript while it is read.

  /** Lines of the live cases' transcripts: ~1.3 MiB, so reads take two 1 MiB steps. */
  const N_LONG = 1400
  /** A transcript of `n` filler items after the header and first prompt (~1 KB a line). */
  const PAD = "w".repeat(900)
  const long = (n: number, sid = SID, word = "filler") => {
    const lines = [header(sid), user("first prompt")]
    for (let i = 0; i < n; i++) lines.push(item(i + 2, { type: "message", role: "assistant", text: `${word} ${i} ${PAD}` }))
    return Buffer.from(lines.join("\n") + "\n")
  }
  /** New lines appended in pieces cut mid-line and mid-character. */
  const appended = (k: number) => {
    const lines = Array.from({ length: k }, (_, i) => item(1000 + i, { type: "message", role: "user", text: `grown ${i} ${EMOJI}` }))
    const bytes = Buffer.from(lines.map((l) => l + "\n").join(""))
    const cuts: Array<number> = []
    for (let o = 7; o < bytes.length; o += 23) cuts.push(o)
    const emojiAt = bytes.indexOf(Buffer.from(EMOJI))
    cuts.push(emojiAt + 2)
    cuts.sort((a, b) => a - b)
    return { texts: lines.map((_, i) => `grown ${i} ${EMOJI}`), bytes, pieces: cutAt(bytes, [...new Set(cuts)]) }
  }
  const growing = (wholeLines: boolean) => {
    const initial = long(N_LONG)
    const s = setup({ bytes: () => initial })
    const add = appended(40)
    const pieces = wholeLines ? add.bytes.toString("utf8").split(/(?<=\n)/).map((l) => Buffer.from(l)) : add.pieces
    const all = ["first prompt", ...Array.from({ length: N_LONG }, (_, i) => `filler ${i} ${PAD}`), ...add.texts]
    const before = snapshotDir(s.root)
    const expectedAfter = () => ({ [s.root]: expectedWith(s.root, before, [[s.file, Buffer.concat([initial, add.bytes])]]) })
    return { ...s, appender: new Appender(s.file, pieces), all, expectedAfter, initialCount: N_LONG + 1 }
  }
  /** Every event is a whole line that was written, in file order: a prefix of `all`, never torn, never mangled. */
  const wholeLinesOnly = (events: ReadonlyArray<SessionEvent>, all: ReadonlyArray<string>, atLeast: number) => {
    const texts = events.map((e) => e.text)
    expect(texts.length).toBeGreaterThanOrEqual(atLeast)
    expect(texts).toEqual(all.slice(0, texts.length))
  }
  const growCases = [
    ["grows-while-streamed", false, "pieces cut mid-line and mid-character"],
    ["sqlite-wal-writer", true, "n/a (no SQLite in this format); closest: a writer appends whole lines through its own fd"]
  ] as const
  for (const [id, whole, how] of growCases) {
    describe(`${titleOf(id)} (${how})`, () => {
      it.effect("stream: only whole written lines are emitted, in order; no torn or mangled line", () =>
        Effect.gen(function*() {
          const g = growing(whole)
          const o = yield* guarded(
            [g.root],
            Effect.ensuring(
              stream("muse-agents", g.policy, g.locator, { tap: (_, i) => i % 100 === 0 && g.appender.step() }),
              Effect.sync(() => g.appender.finish())
            ),
            { expectedAfter: g.expectedAfter }
          )
          wholeLinesOnly(expectOk(o), g.all, g.initialCount)
        }), GAUNTLET_TIMEOUT)
      it.effect("inspect: no error; at most one truncated-line warning; a count between the two sizes", () =>
        Effect.gen(function*() {
          const g = growing(whole)
          const r = expectOk(
            yield* guarded([g.root], whileAppending(g.appender, inspect("muse-agents", g.policy, g.locator)), {
              expectedAfter: g.expectedAfter
            })
          )
          const ws = warningsOf(r.diagnostics.filter((d) => d.code === "PARSE_WARNING").map((d) => d.details as any))
          expect(Object.keys(ws).filter((k) => k !== "truncated-line")).toEqual([])
          expect(ws["truncated-line"] ?? 0).toBeLessThanOrEqual(1)
          expect(r.eventCount).toBeGreaterThanOrEqual(g.initialCount)
          expect(r.eventCount).toBeLessThanOrEqual(g.all.length)
        }), GAUNTLET_TIMEOUT)
      it.effect("discover: listed; no warning but a possible truncated last line", () =>
        Effect.gen(function*() {
          const g = growing(whole)
          const r = expectOk(
            yield* guarded([g.root], whileAppending(g.appender, discover("muse-agents", g.policy)), {
              expectedAfter: g.expectedAfter
            })
          )
          expect(r.sources.length).toBe(1)
          const ws = warningsOf(r.sources[0].summary.parseWarnings as any)
          expect(Object.keys(ws).filter((k) => k !== "truncated-line")).toEqual([])
        }), GAUNTLET_TIMEOUT)
      it.effect("import: accepted; the events are whole lines", () =>
        Effect.gen(function*() {
          const g = growing(whole)
          const r = expectOk(
            yield* guarded([g.root], whileAppending(g.appender, importRun(g.priv, g.policy)), {
              expectedAfter: g.expectedAfter
            })
          )
          expect(r.sources).toMatchObject({ accepted: 1, rejected: 0 })
          expect(r.eventsAdded).toBeGreaterThanOrEqual(g.initialCount)
          expect(r.eventsAdded).toBeLessThanOrEqual(g.all.length)
        }), GAUNTLET_TIMEOUT)
    })
  }

  describe(`${titleOf("sqlite-locked")} (n/a: no SQLite in this format; closest: a writer holds the transcript open with a line half written)`, () => {
    const held = () => {
      const s = setup({ bytes: () => transcript() })
      const rest = Buffer.from(`${item(10, { type: "message", role: "user", text: "held" })}\n`)
      const appender = new Appender(s.file, cutAt(rest, [25]))
      appender.step()
      return { ...s, appender, rest }
    }
    it.effect("inspect: provisional, truncated-line 1; once the writer ends the line, complete with it", () =>
      Effect.gen(function*() {
        const s = held()
        try {
          const r = expectOk(yield* guarded([s.root], inspect("muse-agents", s.policy, s.locator)))
          expect(r.status).toBe("provisional")
          expect(r.eventCount).toBe(2)
          s.appender.finish()
          const again = expectOk(yield* guarded([s.root], inspect("muse-agents", s.policy, s.locator)))
          expect(again).toMatchObject({ status: "complete", eventCount: 3 })
        } finally {
          s.appender.close()
        }
      }), GAUNTLET_TIMEOUT)
    it.effect("stream: the half line is not emitted", () =>
      Effect.gen(function*() {
        const s = held()
        try {
          expect(expectOk(yield* guarded([s.root], stream("muse-agents", s.policy, s.locator))).map((e) => e.text)).toEqual(BOTH)
        } finally {
          s.appender.close()
        }
      }), GAUNTLET_TIMEOUT)
    it.effect("discover: listed with truncated-line 1", () =>
      Effect.gen(function*() {
        const s = held()
        try {
          const r = expectOk(yield* guarded([s.root], discover("muse-agents", s.policy)))
          expect(warningsOf(r.sources[0].summary.parseWarnings as any)).toEqual({ "truncated-line": 1 })
        } finally {
          s.appender.close()
        }
      }), GAUNTLET_TIMEOUT)
    it.effect("import: accepted with the two whole lines", () =>
      Effect.gen(function*() {
        const s = held()
        try {
          const r = expectOk(yield* guarded([s.root], importRun(s.priv, s.policy)))
          expect(r.sources).toMatchObject({ accepted: 1, rejected: 0 })
          expect(r.eventsAdded).toBe(2)
        } finally {
          s.appender.close()
        }
      }), GAUNTLET_TIMEOUT)
  })

  describe(titleOf("replaced-while-streamed"), () => {
    const replacing = () => {
      const original = long(N_LONG)
      const s = setup({ bytes: () => original })
      const replacementBytes = long(10, "S2", "other")
      const replacement = put(s.priv, "staging/a1.jsonl", replacementBytes)
      const before = snapshotDir(s.root)
      const expectedAfter = () => ({ [s.root]: expectedWith(s.root, before, [[s.file, replacementBytes]]) })
      return { ...s, replacement, expectedAfter, originalCount: N_LONG + 1, replacementCount: 11 }
    }
    it.effect("stream: the open file is read to its end (the old bytes); its cursor on the new file is INVALID_CURSOR", () =>
      Effect.gen(function*() {
        const s = replacing()
        const events = expectOk(
          yield* guarded(
            [s.root],
            stream("muse-agents", s.policy, s.locator, { tap: (_, i) => i === 0 && fs.renameSync(s.replacement, s.file) }),
            { expectedAfter: s.expectedAfter }
          )
        )
        expect(events.length).toBe(s.originalCount)
        expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set([SID]))
        const resumed = yield* guarded(
          [s.root],
          stream("muse-agents", s.policy, s.locator, { cursor: events[events.length - 1].cursor }),
          { expectedAfter: s.expectedAfter }
        )
        expectFail(resumed, "INVALID_CURSOR")
      }), GAUNTLET_TIMEOUT)
    it.effect("inspect: the old or the new file whole, or SOURCE_NOT_AUTHORIZED (replaced after authorization)", () =>
      Effect.gen(function*() {
        const s = replacing()
        const o = yield* guarded([s.root], whileReplacing(s.file, s.replacement, inspect("muse-agents", s.policy, s.locator)), {
          expectedAfter: s.expectedAfter
        })
        if (o._tag === "fail") expectFail(o, "SOURCE_NOT_AUTHORIZED")
        else expect([s.originalCount, s.replacementCount]).toContain(o.value.eventCount)
      }), GAUNTLET_TIMEOUT)
    it.effect("discover: the old or the new session, whole; or skipped with a diagnostic", () =>
      Effect.gen(function*() {
        const s = replacing()
        const r = expectOk(
          yield* guarded([s.root], whileReplacing(s.file, s.replacement, discover("muse-agents", s.policy)), {
            expectedAfter: s.expectedAfter
          })
        )
        if (r.sources.length === 0) expect(r.diagnostics.map((d) => d.code)).toContain("SOURCE_NOT_AUTHORIZED")
        else expect(["S1", "S2"]).toContain(r.sources[0].sessionId)
      }), GAUNTLET_TIMEOUT)
    it.effect("import: accepted (one whole version) or rejected with a typed code", () =>
      Effect.gen(function*() {
        const s = replacing()
        const r = expectOk(
          yield* guarded([s.root], whileReplacing(s.file, s.replacement, importRun(s.priv, s.policy)), {
            expectedAfter: s.expectedAfter
          })
        )
        expect(r.sources.accepted + r.sources.rejected).toBeLessThanOrEqual(1)
        if (r.sources.accepted === 1) expect([s.originalCount, s.replacementCount]).toContain(r.eventsAdded)
        else expect(Object.keys(rejectedCodes(r)).every((c) => c === "SOURCE_NOT_AUTHORIZED" || c === "INVALID_CURSOR")).toBe(true)
      }), GAUNTLET_TIMEOUT)
  })
})
