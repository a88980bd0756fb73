/**
 * Line-based sources that are not UTF-8 (tester23a F2): a Claude Code log,
 * a Muse agents transcript, a Muse Code `session.jsonl` or export re-saved
 * as UTF-16 (Windows PowerShell's `>` / `Out-File`; with a byte order mark
 * `FF FE` / `FE FF`, or without one, told by its NUL bytes) or UTF-32. The
 * providers read JSONL as UTF-8 bytes and never alter their source
 * (docs/providers.md, "Sources in another encoding than UTF-8"): such a file
 * is refused whole, as `MALFORMED_SOURCE` naming the encoding and the iconv
 * command, skipped by discovery under `SOURCE_NOT_UTF8` (coverage partial),
 * never read as lines of zeroed bytes, never left out as "no-conversation".
 * A UTF-8 BOM (and CRLF) still reads as before.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { foreignEncodingOf } from "../src/domain/text-encoding.js"
import * as App from "../src/layers/app.js"
import { SessionSources } from "../src/services/SessionSource.js"
import { collect, tempDir, withAdapter as withClaude } from "./claude-code/helpers.js"
import { transcriptPath, withAdapter as withAgents } from "./muse-agents/helpers.js"
import { adapterWith, end, jsonl, metadata, writeLog } from "./muse-code/native-helpers.js"
import { fixturesDir } from "./support/paths.js"
import { cli } from "./support/run.js"

/** `text` in UTF-16LE / UTF-16BE / UTF-32LE, with or without a byte order mark. */
const utf16le = (text: string, bom = true) => Buffer.concat([bom ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, "utf16le")])
const utf16be = (text: string, bom = true) => {
  const b = Buffer.from(text, "utf16le").swap16()
  return Buffer.concat([bom ? Buffer.from([0xfe, 0xff]) : Buffer.alloc(0), b])
}
const utf32le = (text: string) => {
  const cps = [0xfeff, ...[...text].map((c) => c.codePointAt(0)!)]
  const b = Buffer.alloc(cps.length * 4)
  cps.forEach((cp, i) => b.writeUInt32LE(cp, i * 4))
  return b
}

describe("foreignEncodingOf: a file's first bytes", () => {
  it("tells UTF-16 and UTF-32 (byte order mark, or NUL at every other place), and nothing else", () => {
    const line = "{\"type\":\"user\",\"x\":1}\n"
    const cases: Array<[Buffer, unknown]> = [
      [utf16le(line), { encoding: "UTF-16LE", byteOrderMark: "FF FE" }],
      [utf16be(line), { encoding: "UTF-16BE", byteOrderMark: "FE FF" }],
      [utf16le(line, false), { encoding: "UTF-16LE", byteOrderMark: null }],
      [utf16be(line, false), { encoding: "UTF-16BE", byteOrderMark: null }],
      [utf32le(line), { encoding: "UTF-32LE", byteOrderMark: "FF FE 00 00" }],
      [Buffer.concat([Buffer.from([0, 0, 0xfe, 0xff]), Buffer.from("{}")]), { encoding: "UTF-32BE", byteOrderMark: "00 00 FE FF" }],
      // UTF-8 (with its BOM or not), a zeroed file, a UTF-8 line cut into a zeroed tail, too little to tell: not refused.
      [Buffer.from(line), undefined],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(line)]), undefined],
      [Buffer.alloc(64), undefined],
      [Buffer.concat([Buffer.from("{\"a"), Buffer.alloc(40)]), undefined],
      [Buffer.concat([Buffer.from("{"), Buffer.alloc(40)]), undefined],
      [Buffer.from([0x7b, 0]), undefined],
      [Buffer.alloc(0), undefined]
    ]
    for (const [bytes, want] of cases) expect([bytes.toString("hex").slice(0, 16), foreignEncodingOf(bytes)]).toEqual([bytes.toString("hex").slice(0, 16), want])
  })
})

const SID = "99999999-0000-4000-8000-000000000010"
const claudeLine = (sid: string, text: string) =>
  JSON.stringify({
    type: "user",
    sessionId: sid,
    uuid: "u0",
    timestamp: "2026-11-18T10:00:00.000Z",
    message: { role: "user", content: text }
  }) + "\r\n"

/** A projects root: one log in UTF-8 with a BOM and CRLF (read as ever), and one per foreign encoding. */
const claudeRoot = () => {
  const root = tempDir("si-not-utf8-")
  const dir = nodePath.join(root, "-e")
  fs.mkdirSync(dir, { recursive: true })
  const ids = { bom8: "99999999-0000-4000-8000-000000000009", le: SID, be: "99999999-0000-4000-8000-000000000011", bare: "99999999-0000-4000-8000-000000000012" }
  const file = (id: string) => nodePath.join(dir, `${id}.jsonl`)
  fs.writeFileSync(file(ids.bom8), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(claudeLine(ids.bom8, "BOMFIRST prompt"))]))
  fs.writeFileSync(file(ids.le), utf16le(claudeLine(ids.le, "UTF16FIRST prompt")))
  fs.writeFileSync(file(ids.be), utf16be(claudeLine(ids.be, "UTF16BE prompt")))
  fs.writeFileSync(file(ids.bare), utf16le(claudeLine(ids.bare, "BARE prompt"), false))
  return { root, ids, file }
}

describe("claude-code: a log in UTF-16", () => {
  it.effect("discover: skipped as SOURCE_NOT_UTF8 (coverage partial, with the iconv remedy), not omitted as no-conversation; the UTF-8 BOM log listed", () =>
    Effect.gen(function*() {
      const c = claudeRoot()
      const r = yield* withClaude(c.root, (a) => a.discover({}))
      expect(r.sources.map((s) => s.sessionId)).toEqual([c.ids.bom8])
      expect(r.sources[0].summary.promptCount).toBe(1)
      expect(r.omitted ?? {}).toEqual({})
      expect(r.coverage).toBe("partial")
      const skips = r.diagnostics.filter((d) => d.code === "SOURCE_NOT_UTF8")
      expect(skips.map((d) => [d.details?.file, d.details?.encoding, d.details?.byteOrderMark]).sort()).toEqual([
        [`${c.ids.le}.jsonl`, "UTF-16LE", "FF FE"],
        [`${c.ids.be}.jsonl`, "UTF-16BE", "FE FF"],
        [`${c.ids.bare}.jsonl`, "UTF-16LE", null]
      ])
      const le = skips.find((d) => d.details?.file === `${c.ids.le}.jsonl`)!
      expect(le.message).toContain("is encoded as UTF-16LE (byte order mark FF FE), not UTF-8")
      expect(le.remediation).toContain(`iconv -f UTF-16 -t UTF-8 ${c.file(c.ids.le)}`)
      expect(skips.find((d) => d.details?.file === `${c.ids.bare}.jsonl`)!.remediation).toContain("iconv -f UTF-16LE -t UTF-8")
      expect(r.remediation).toContain("not UTF-8")
      expect(r.remediation).not.toContain("may read them")
      expect(r.diagnostics.some((d) => d.code === "SESSION_OMITTED")).toBe(false)
    }))

  it.effect("inspect and stream fail MALFORMED_SOURCE naming the encoding (no zeroed-bytes warning); the UTF-8 BOM log streams", () =>
    Effect.gen(function*() {
      const c = claudeRoot()
      const locator = { locatorClass: "claude-code-session-log" as const, path: c.file(c.ids.le) }
      const i = yield* withClaude(c.root, (a) => Effect.flip(a.inspect(locator)))
      expect(i.code).toBe("MALFORMED_SOURCE")
      expect(i.message).toContain("UTF-16LE")
      expect(i.message).not.toMatch(/zeroed|power loss/)
      expect(i.details).toMatchObject({ reason: "not-utf8", encoding: "UTF-16LE", byteOrderMark: "FF FE" })
      const s = yield* withClaude(c.root, (a) => Effect.flip(collect(a.stream(locator))))
      expect(s.code).toBe("MALFORMED_SOURCE")
      const ok = yield* withClaude(c.root, (a) => collect(a.stream({ locatorClass: "claude-code-session-log" as const, path: c.file(c.ids.bom8) })))
      expect(JSON.stringify(ok)).toContain("BOMFIRST prompt")
    }))

  it.effect("a subagent file in UTF-16: the session is listed, the file named SOURCE_NOT_UTF8, coverage partial", () =>
    Effect.gen(function*() {
      const c = claudeRoot()
      const sub = nodePath.join(c.root, "-e", c.ids.bom8, "subagents")
      fs.mkdirSync(sub, { recursive: true })
      const agentLine = JSON.stringify({ type: "user", isSidechain: true, agentId: "a1", sessionId: c.ids.bom8, uuid: "s0", timestamp: "2026-11-18T10:00:02.000Z", message: { role: "user", content: "sub" } }) + "\n"
      fs.writeFileSync(nodePath.join(sub, "agent-a1.jsonl"), utf16le(agentLine))
      const r = yield* withClaude(c.root, (a) => a.discover({}))
      expect(r.sources.map((s) => s.sessionId)).toEqual([c.ids.bom8])
      const d = r.diagnostics.find((x) => x.code === "SOURCE_NOT_UTF8" && x.details?.agentId === "a1")
      expect(d?.message).toContain("agent-a1.jsonl")
      expect(d?.message).toContain("UTF-16LE")
      expect(r.coverage).toBe("partial")
    }))

  it("import: partial (exit 8), the log named not UTF-8 in the report, nothing omitted as no-conversation, no zeroed-bytes", () => {
    const c = claudeRoot()
    const dir = tempDir("si-not-utf8-idx-")
    const r = cli(["import", "--index", nodePath.join(dir, "i.db"), "--claude-root", c.root, "--agents-root", nodePath.join(dir, "none"), "--json"], {
      env: { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }
    })
    expect(r.code).toBe(8)
    const data = JSON.parse(r.stdout).data
    expect(data.sessionsAdded).toBe(1)
    expect(data.sources.omittedByReason).toEqual({})
    expect(data.parseWarnings.byKind).toEqual({})
    const claude = data.providers.find((p: { provider: string }) => p.provider === "claude-code")
    expect(claude.coverage).toBe("partial")
    expect(claude.diagnostics.filter((d: { code: string }) => d.code === "SOURCE_NOT_UTF8")).toHaveLength(3)
    const text = cli(["import", "--index", nodePath.join(dir, "j.db"), "--claude-root", c.root, "--agents-root", nodePath.join(dir, "none")], {
      env: { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }
    })
    expect(text.stdout).toContain(`${SID}.jsonl is encoded as UTF-16LE (byte order mark FF FE), not UTF-8`)
    expect(text.stdout).not.toContain("no-conversation")
  })
})

describe("claude-code: a log imported, then re-saved as UTF-16", () => {
  it("the next import keeps its session as it was (SOURCE_NOT_UTF8, coverage partial, not superseded); converted back, complete and unchanged", () => {
    const root = tempDir("si-not-utf8-resaved-")
    const dir = nodePath.join(root, "-e")
    fs.mkdirSync(dir, { recursive: true })
    const file = nodePath.join(dir, `${SID}.jsonl`)
    const utf8 = Buffer.from(claudeLine(SID, "RESAVED prompt"))
    fs.writeFileSync(file, utf8)
    const index = nodePath.join(tempDir("si-not-utf8-resaved-idx-"), "i.db")
    const env = { env: { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" } }
    const run = () => cli(["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(root, "none"), "--json"], env)
    const claudeCoverage = (stdout: string) =>
      (JSON.parse(stdout).data.providers as Array<{ provider: string; coverage: string }>).find((p) => p.provider === "claude-code")?.coverage
    const first = run()
    expect(JSON.parse(first.stdout).data.sessionsAdded).toBe(1)
    expect(claudeCoverage(first.stdout)).toBe("complete")
    const listed = () => (JSON.parse(cli(["sessions", "--index", index, "--json"], env).stdout).data as Array<{ sessionId: string }>).map((x) => x.sessionId)
    expect(listed()).toEqual([SID])
    fs.writeFileSync(file, utf16le(claudeLine(SID, "RESAVED prompt")))
    const resaved = run()
    expect(resaved.code).toBe(8)
    expect(claudeCoverage(resaved.stdout)).toBe("partial")
    const data = JSON.parse(resaved.stdout).data
    expect(data.sources.superseded).toBe(0)
    const cause = data.causes.find((c: { code: string }) => c.code === "SOURCE_NOT_UTF8")
    expect(cause?.problem).toContain("is encoded as UTF-16LE (byte order mark FF FE), not UTF-8")
    expect(cause?.problem).toContain("kept as it was")
    expect(cause?.remedy).toContain("iconv -f UTF-16 -t UTF-8")
    expect(listed()).toEqual([SID])
    fs.writeFileSync(file, utf8)
    const back = run()
    expect(claudeCoverage(back.stdout)).toBe("complete")
    // read again (its file changed), the same bytes as imported: nothing new, nothing superseded
    expect(JSON.parse(back.stdout).data).toMatchObject({ eventsAdded: 0, sessionsAdded: 0, sources: { superseded: 0 } })
    expect(listed()).toEqual([SID])
  })
})

describe("muse-agents: a transcript in UTF-16", () => {
  it.effect("discover skips it as SOURCE_NOT_UTF8 (coverage partial); inspect fails MALFORMED_SOURCE naming UTF-16LE", () =>
    Effect.gen(function*() {
      const root = nodePath.join(tempDir("si-not-utf8-agents-"), "agents")
      const text = fs.readFileSync(transcriptPath("quiet", nodePath.join(fixturesDir, "muse-agents", "agents")), "utf8")
      const p = transcriptPath("quiet", root)
      fs.mkdirSync(nodePath.dirname(p), { recursive: true })
      fs.writeFileSync(p, utf16le(text))
      const r = yield* withAgents(root, (a) => a.discover({}))
      expect(r.sources).toEqual([])
      expect(r.omitted ?? {}).toEqual({})
      expect(r.coverage).toBe("partial")
      const d = r.diagnostics.find((x) => x.code === "SOURCE_NOT_UTF8")
      expect(d?.details).toMatchObject({ agentId: "quiet", encoding: "UTF-16LE", byteOrderMark: "FF FE" })
      expect(d?.remediation).toContain("iconv -f UTF-16 -t UTF-8")
      const e = yield* withAgents(root, (a) => Effect.flip(a.inspect({ locatorClass: "muse-agent-transcript", path: p })))
      expect(e.code).toBe("MALFORMED_SOURCE")
      expect(e.message).toContain("is encoded as UTF-16LE")
    }))
})

describe("muse-code: a native log or an export in UTF-16", () => {
  it.effect("native discovery: inconclusive NOT_UTF8 with the iconv remedy; inspect and stream fail MALFORMED_SOURCE naming UTF-16BE", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-not-utf8-muse-")
      const ws = nodePath.join(dir, "ws")
      fs.mkdirSync(ws)
      const root = nodePath.join(dir, "sessions")
      const log = writeLog(root, "2026/09/25", "s1", utf16be(jsonl([metadata(1, ws), end(2)])))
      const adapter = yield* adapterWith({ policy: { workspaceRoots: [ws], museRoots: [root] } })
      const r = yield* adapter.discover({})
      expect(r.sources).toEqual([])
      const receipts = r.receipts.museSourceInspections as ReadonlyArray<{ outcome: string; reasonCode: string }>
      expect(receipts.map((x) => [x.outcome, x.reasonCode])).toEqual([["inconclusive", "NOT_UTF8"]])
      const d = r.diagnostics.find((x) => x.code === "MUSE_SOURCE_INCONCLUSIVE")
      expect(d?.message).toContain("is encoded as UTF-16BE (byte order mark FE FF), not UTF-8")
      expect(d?.remediation).toContain("iconv -f UTF-16 -t UTF-8")
      expect(r.remediation).toContain("UTF-16")
      const locator = { locatorClass: "muse-native-session-log" as const, path: log }
      const i = yield* Effect.flip(adapter.inspect(locator))
      expect([i.code, i.details]).toMatchObject(["MALFORMED_SOURCE", { encoding: "UTF-16BE" }])
      const s = yield* Effect.flip(collect(adapter.stream(locator)))
      expect([s.code, s.details]).toMatchObject(["MALFORMED_SOURCE", { encoding: "UTF-16BE" }])
    }))

  it.effect("an export in UTF-16 (no byte order mark): MALFORMED_SOURCE naming UTF-16LE, not \"not JSON\"", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-not-utf8-export-")
      const p = nodePath.join(dir, "trajectory.json")
      fs.writeFileSync(p, utf16le(fs.readFileSync(nodePath.join(fixturesDir, "muse-code", "export", "orderly.json"), "utf8"), false))
      const e = yield* Effect.flatMap(SessionSources, (r) => r.get("muse-code")).pipe(
        Effect.flatMap((a) => Effect.flip(a.inspect({ locatorClass: "manual-export", path: p }))),
        Effect.provide(App.layer({ workspaceRoots: [dir] }))
      )
      expect(e.code).toBe("MALFORMED_SOURCE")
      expect(e.message).toContain("is encoded as UTF-16LE (no byte order mark")
      expect(e.remediation).toContain("iconv -f UTF-16LE -t UTF-8")
    }))
})
