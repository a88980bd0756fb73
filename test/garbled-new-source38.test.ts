/**
 * A line log none of whose lines could be read (every line torn, not JSON, zeroed) is damage, not a session "left
 * out by the provider's spec" (tester37 F2: a Claude Code log of a real prompt and response, every line torn, was
 * `no-conversation`: coverage complete, exit 0, no parse warning; a log zeroed whole the same). Discovery skips it
 * with `SOURCE_GARBLED` (its lines' kinds counted), coverage partial, import exit 8, as it skips a UTF-16 file
 * (docs/providers.md: "not a session left out by the provider's spec"). A file that is empty, or holds one line that
 * reads, stays what the spec says. The same for a Muse agents transcript (was `no-session-header`).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { DiscoveryReport } from "../src/domain/model.js"
import { copyFixtures as copyClaude, tempDir, withProcessAdapter as withClaude } from "./claude-code/helpers.js"
import { copyFixtures as copyAgents, withAdapter as withAgents, writeTranscript } from "./muse-agents/helpers.js"
import { claudeEchoLog, claudeTurnsLog, importedClaudeIndex } from "./support/claude-import.js"
import { cli } from "./support/run.js"

const PROJECT = "-home-me-app"
const TORN = "19191919-0000-4000-8000-000000000038"
const ZEROED = "20202020-0000-4000-8000-000000000038"
const EMPTY = "21212121-0000-4000-8000-000000000038"
const MIXED = "22222222-0000-4000-8000-000000000038"
const NOT_RECORDS = "23232323-0000-4000-8000-000000000038"

/** A real prompt and response, every line cut to its first 60 bytes (3 lines, none of them whole JSON). */
const tornLog = (sid: string): string =>
  claudeTurnsLog(sid, [["user", "please fix the failing build in the billing service"], ["assistant", "done: the test now passes"], ["user", "thanks"]], "2025-10-02T10:00:00Z")
    .split("\n").filter((l) => l !== "").map((l) => l.slice(0, 60) + "\n").join("")

const claudeRoot = (): string => {
  const root = fs.realpathSync(copyClaude())
  const dir = nodePath.join(root, PROJECT)
  fs.mkdirSync(dir)
  fs.writeFileSync(nodePath.join(dir, `${TORN}.jsonl`), tornLog(TORN))
  fs.writeFileSync(nodePath.join(dir, `${ZEROED}.jsonl`), Buffer.alloc(8192))
  fs.writeFileSync(nodePath.join(dir, `${EMPTY}.jsonl`), "")
  // One torn line, then a line that reads (a summary: no conversation): the file is read, the spec leaves it out.
  fs.writeFileSync(nodePath.join(dir, `${MIXED}.jsonl`), `{"type":"user","mess\n{"type":"summary","summary":"s","leafUuid":null}\n`)
  // Lines of JSON that are no records (invalid-record): content, not damage; the spec leaves the file out.
  fs.writeFileSync(nodePath.join(dir, `${NOT_RECORDS}.jsonl`), `{"foo":1}\n{"bar":2}\n`)
  return root
}

const codesOf = (r: DiscoveryReport) => r.diagnostics.map((d) => d.code)

describe("a line log none of whose lines reads is skipped as SOURCE_GARBLED (tester37 F2)", () => {
  it.effect("Claude Code discovery: the torn and the zeroed log skipped, named and counted; empty and mixed stay no-conversation", () =>
    Effect.gen(function*() {
      const root = claudeRoot()
      const r = yield* withClaude({ env: {}, home: "/nonexistent-home" }, (a) => a.discover({}), root)
      expect([r.coverage, r.reasonCode, r.sourceCount]).toEqual(["partial", "SOURCES_SKIPPED", 6])
      const garbled = r.diagnostics.filter((d) => d.code === "SOURCE_GARBLED")
      expect(garbled.map((d) => d.details)).toEqual([
        { project: PROJECT, file: `${TORN}.jsonl`, path: nodePath.join(root, PROJECT, `${TORN}.jsonl`), lines: 3, byKind: { "malformed-json": 3 }, firstLine: 1 },
        { project: PROJECT, file: `${ZEROED}.jsonl`, path: nodePath.join(root, PROJECT, `${ZEROED}.jsonl`), lines: 1, byKind: { "zeroed-bytes": 1 }, firstLine: 1 }
      ].sort((a, b) => (a.file < b.file ? -1 : 1)))
      expect(garbled.find((d) => d.details?.file === `${TORN}.jsonl`)!.message).toBe(
        `${PROJECT}/${TORN}.jsonl: none of its 3 lines reads as JSON (malformed-json 3): a damaged file (torn, zeroed or overwritten), not a session left out by the provider's spec; it was not read.`
      )
      // The empty file, the one whose summary line reads, the one of JSON lines that are no records: left out by the
      // spec, as before.
      expect(r.omitted).toEqual({ "no-conversation": 3 })
      expect((r.receipts as Record<string, unknown>).skipped).toBe(2)
      expect(r.remediation).toContain("restore it from a backup")
    }))

  it.effect("Muse agents discovery: a transcript whose every line is torn is SOURCE_GARBLED, not no-session-header", () =>
    Effect.gen(function*() {
      const root = copyAgents()
      const before = yield* withAgents(root, (a) => a.discover({}))
      expect(before.coverage).toBe("complete")
      const file = writeTranscript(root, "torn", `{"type":"session_header","session_id":"x\n{"type":"message","ro\n`)
      const r = yield* withAgents(root, (a) => a.discover({}))
      expect([r.coverage, r.reasonCode, r.sourceCount]).toEqual(["partial", "SOURCES_SKIPPED", before.sourceCount])
      expect(codesOf(r).filter((c) => c === "SOURCE_GARBLED")).toHaveLength(1)
      expect(r.diagnostics.find((d) => d.code === "SOURCE_GARBLED")!.details).toEqual({
        agentId: "torn",
        path: fs.realpathSync(file),
        lines: 2,
        byKind: { "malformed-json": 2 },
        firstLine: 1
      })
      expect(r.omitted ?? {}).toEqual(before.omitted ?? {})
    }))

  it("import: exit 8, the skip said, the readable sessions imported; the files never written", () => {
    const root = claudeRoot()
    const torn = nodePath.join(root, PROJECT, `${TORN}.jsonl`)
    const bytes = fs.readFileSync(torn)
    const dir = tempDir("si-garbled38-")
    const env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    const agents = nodePath.join(dir, "agents")
    fs.mkdirSync(agents)
    const r = cli(["import", "--index", nodePath.join(dir, "i.db"), "--claude-root", root, "--agents-root", agents, "--json"], { env })
    expect(r.code, r.stderr + r.stdout).toBe(8)
    const data = JSON.parse(r.stdout).data
    expect(data.coverage).toBe("partial")
    const cc = data.providers.find((p: { provider: string }) => p.provider === "claude-code")
    expect(cc.diagnostics.filter((d: { code: string }) => d.code === "SOURCE_GARBLED")).toHaveLength(2)
    expect(fs.readFileSync(torn)).toEqual(bytes)
    const text = cli(["import", "--index", nodePath.join(dir, "i2.db"), "--claude-root", root, "--agents-root", agents], { env })
    expect(text.code).toBe(8)
    expect(text.stdout + text.stderr).toContain(`SOURCE_GARBLED: ${PROJECT}/${TORN}.jsonl: none of its 3 lines reads as JSON (malformed-json 3)`)
  })

  it("a log imported before, garbled since: said once, as the kept source it is (the importer's SOURCE_GARBLED), not also as a skip", () => {
    const sid = "24242424-0000-4000-8000-000000000038"
    const { project, index, env } = importedClaudeIndex("si-garbled38b-", { [sid]: claudeEchoLog(sid, ["first text", "second text"]) })
    const file = project.file(sid)
    const good = fs.readFileSync(file)
    fs.writeFileSync(file, Buffer.from(good.map((b) => (b === 0x0a ? 0x0a : 0x7a))))
    const none = nodePath.join(nodePath.dirname(project.root), "none")
    const r = cli(["import", "--index", index, "--claude-root", project.root, "--agents-root", none, "--json"], { env })
    expect(r.code, r.stderr + r.stdout).toBe(8)
    const data = JSON.parse(r.stdout.trim().split("\n").pop()!).data
    const cc = data.providers.find((p: { provider: string }) => p.provider === "claude-code")
    expect(cc.diagnostics.map((d: { code: string }) => d.code)).toEqual(["SOURCE_GARBLED"])
    // The importer's (the kept source: its remedy says the index keeps the session), not discovery's skip.
    expect(cc.diagnostics[0].remediation).toContain("The index keeps the session meanwhile.")
    expect(data.causes.filter((c: { provider: string }) => c.provider === "claude-code").map((c: { code: string; path: string }) => [c.code, c.path]))
      .toEqual([["SOURCE_GARBLED", file]])
    expect(data.sources.superseded).toBe(0)
  })

  it("a Muse agents transcript imported before, garbled since: said once (the importer's SOURCE_GARBLED), no skip cause beside it", () => {
    const root = copyAgents()
    const dir = tempDir("si-garbled38c-")
    const index = nodePath.join(dir, "i.db")
    const env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    const args = ["import", "--index", index, "--agents-root", root, "--claude-root", nodePath.join(dir, "none"), "--json"]
    cli(args, { env })
    const file = nodePath.join(root, "cron-first", "sessions", "cron-first.jsonl")
    const good = fs.readFileSync(file)
    fs.writeFileSync(file, Buffer.from(good.map((b) => (b === 0x0a ? 0x0a : 0x78))))
    const data = JSON.parse(cli(args, { env }).stdout).data
    const ma = data.providers.find((p: { provider: string }) => p.provider === "muse-agents")
    const garbled = ma.diagnostics.filter((d: { code: string }) => d.code === "SOURCE_GARBLED")
    expect(garbled).toHaveLength(1)
    expect(garbled[0].remediation).toContain("The index keeps the session meanwhile.")
    expect(data.causes.filter((c: { provider: string }) => c.provider === "muse-agents").map((c: { code: string; path: string | null }) => [c.code, c.path]))
      .toEqual([["SOURCE_GARBLED", fs.realpathSync(file)]])
    expect(data.sources.superseded).toBe(0)
  })
})

