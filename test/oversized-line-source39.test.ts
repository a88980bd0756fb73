/**
 * A line log whose lines could not be read because each is longer than the import limit `maxRecordBytes` is damage
 * (or a session the limit keeps out), never "no conversation" (tester39 F4: a new Claude Code log of one zeroed or
 * garbage line over 32 MiB was `SESSION_OMITTED` no-conversation, coverage complete, exit 0, where the same line under
 * the limit is `SOURCE_GARBLED`, exit 8). Every line over the limit: skipped with the limit's own code
 * (`RESOURCE_LIMIT_EXCEEDED`, `details.limit` `maxRecordBytes`), counted, partial, exit 8; lines over the limit
 * beside lines that are not JSON: `SOURCE_GARBLED`, the oversized ones among its kinds. A log with one line that
 * reads keeps the tolerant policy (the oversized line is a parse warning). The limit is made small through the
 * config file (`{"limits": {"maxRecordBytes": N}}`), and the big lines are sparse files (`truncate`).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { claudeTurnsLog } from "./support/claude-import.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const LIMIT = 4096
const PROJECT = "-home-me-oversized"
const ZEROED = "39393939-0000-4000-8000-000000000001"
const GARBAGE = "39393939-0000-4000-8000-000000000002"
const TWO = "39393939-0000-4000-8000-000000000003"
const MIXED = "39393939-0000-4000-8000-000000000004"
const GOOD = "39393939-0000-4000-8000-000000000005"

interface Diag {
  readonly code: string
  readonly message: string
  readonly details: Record<string, unknown>
}

const setUp = (prefix: string) => {
  const dir = tempDir(prefix)
  const config = nodePath.join(dir, "config.json")
  fs.writeFileSync(config, JSON.stringify({ limits: { maxRecordBytes: LIMIT } }))
  const env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
  const none = nodePath.join(dir, "none")
  fs.mkdirSync(none)
  return { dir, config, env, none }
}

/** Garbage of `n` bytes with no newline (base64 letters). */
const garbage = (n: number): string => {
  let s = ""
  for (let i = 0; s.length < n; i++) s += ((i * 2654435761) >>> 0).toString(36)
  return s.slice(0, n)
}

const providerOf = (data: { providers: ReadonlyArray<{ provider: string; diagnostics: ReadonlyArray<Diag> }> }, id: string) =>
  data.providers.find((p) => p.provider === id)!

describe("a line log every line of which is over maxRecordBytes is skipped and counted, not 'no conversation' (tester39 F4)", () => {
  it("Claude Code: zeroed (sparse) and garbage logs of one line over the limit, two such lines, and such lines beside a torn one", () => {
    const { config, dir, env, none } = setUp("si-oversized39-")
    const root = nodePath.join(dir, "projects")
    const project = nodePath.join(root, PROJECT)
    fs.mkdirSync(project, { recursive: true })
    const file = (sid: string) => nodePath.join(project, `${sid}.jsonl`)
    // A sparse file: one line of NUL bytes, twice the limit, no newline (what `truncate -s` leaves).
    fs.writeFileSync(file(ZEROED), "")
    fs.truncateSync(file(ZEROED), 2 * LIMIT + 7)
    fs.writeFileSync(file(GARBAGE), garbage(3 * LIMIT))
    fs.writeFileSync(file(TWO), `${garbage(LIMIT + 1)}\n${garbage(LIMIT + 500)}\n`)
    fs.writeFileSync(file(MIXED), `{"type":"user","mess\n${garbage(LIMIT + 1)}\n`)
    const r = cli(["import", "--index", nodePath.join(dir, "i.db"), "--claude-root", root, "--agents-root", none, "--config", config, "--json"], { env })
    expect(r.code, r.stderr + r.stdout).toBe(8)
    const data = JSON.parse(r.stdout.trim().split("\n").pop()!).data
    expect(data.coverage).toBe("partial")
    const cc = providerOf(data, "claude-code")
    const limited = cc.diagnostics.filter((d) => d.code === "RESOURCE_LIMIT_EXCEEDED")
    expect(limited.map((d) => d.details).sort((a, b) => (String(a.file) < String(b.file) ? -1 : 1))).toEqual([
      { project: PROJECT, file: `${ZEROED}.jsonl`, path: file(ZEROED), lines: 1, byKind: { "oversized-line": 1 }, firstLine: 1, limit: "maxRecordBytes", max: LIMIT },
      { project: PROJECT, file: `${GARBAGE}.jsonl`, path: file(GARBAGE), lines: 1, byKind: { "oversized-line": 1 }, firstLine: 1, limit: "maxRecordBytes", max: LIMIT },
      { project: PROJECT, file: `${TWO}.jsonl`, path: file(TWO), lines: 2, byKind: { "oversized-line": 2 }, firstLine: 1, limit: "maxRecordBytes", max: LIMIT }
    ])
    expect(limited.find((d) => d.details.file === `${TWO}.jsonl`)!.message).toBe(
      `${PROJECT}/${TWO}.jsonl: none of its 2 lines could be read: each is longer than the import limit maxRecordBytes (${LIMIT} bytes); it was not read (a damaged file, zeroed or overwritten, or a session whose records are larger than the limit).`
    )
    const garbled = cc.diagnostics.filter((d) => d.code === "SOURCE_GARBLED")
    expect(garbled.map((d) => d.details)).toEqual([
      { project: PROJECT, file: `${MIXED}.jsonl`, path: file(MIXED), lines: 2, byKind: { "malformed-json": 1, "oversized-line": 1 }, firstLine: 1 }
    ])
    // None of them is a session left out by the spec; each is skipped and counted.
    expect(cc.diagnostics.map((d) => d.code)).not.toContain("SESSION_OMITTED")
    expect(data.omitted ?? {}).toEqual({})
    const remedies = data.causes.filter((c: { provider: string }) => c.provider === "claude-code").map((c: { remedy: string }) => c.remedy)
    expect(remedies.some((m: string) => m.includes("raise limits.maxRecordBytes in the config file"))).toBe(true)
    // The same run with no config: the lines are under the default limit (32 MiB), so the zeroed log is SOURCE_GARBLED.
    const plain = cli(["import", "--index", nodePath.join(dir, "j.db"), "--claude-root", root, "--agents-root", none, "--json"], { env })
    expect(plain.code).toBe(8)
    const ccPlain = providerOf(JSON.parse(plain.stdout.trim().split("\n").pop()!).data, "claude-code")
    expect(ccPlain.diagnostics.map((d) => d.code)).not.toContain("RESOURCE_LIMIT_EXCEEDED")
    expect(ccPlain.diagnostics.find((d) => d.details.file === `${ZEROED}.jsonl`)!.code).toBe("SOURCE_GARBLED")
  })

  it("Claude Code: a session with one line over the limit among lines that read is imported, the line a parse warning", () => {
    const { config, dir, env, none } = setUp("si-oversized39b-")
    const root = nodePath.join(dir, "projects")
    const project = nodePath.join(root, PROJECT)
    fs.mkdirSync(project, { recursive: true })
    const log = claudeTurnsLog(GOOD, [["user", "fix the build"], ["assistant", "done"]], "2025-10-02T10:00:00Z")
    fs.writeFileSync(nodePath.join(project, `${GOOD}.jsonl`), `${garbage(LIMIT + 1)}\n${log}`)
    const r = cli(["import", "--index", nodePath.join(dir, "i.db"), "--claude-root", root, "--agents-root", none, "--config", config, "--json"], { env })
    // (exit 8 only for the empty agents root named beside it)
    const data = JSON.parse(r.stdout.trim().split("\n").pop()!).data
    const cc = data.providers.find((p: { provider: string }) => p.provider === "claude-code")
    expect([cc.coverage, cc.sourceCount, cc.diagnostics]).toEqual(["complete", 1, []])
    expect([data.sources.accepted, data.sources.rejected, data.eventsAdded]).toEqual([1, 0, 2])
    expect(data.parseWarnings.byKind).toEqual({ "oversized-line": 1 })
  })

  it("Muse agents: a transcript of one line over the limit is skipped (RESOURCE_LIMIT_EXCEEDED), not a transcript without a header", () => {
    const { config, dir, env, none } = setUp("si-oversized39c-")
    const agents = nodePath.join(dir, "agents")
    const file = nodePath.join(agents, "big", "sessions", "big.jsonl")
    fs.mkdirSync(nodePath.dirname(file), { recursive: true })
    fs.writeFileSync(file, "")
    fs.truncateSync(file, LIMIT * 4)
    const r = cli(["import", "--index", nodePath.join(dir, "i.db"), "--agents-root", agents, "--claude-root", none, "--config", config, "--json"], { env })
    expect(r.code, r.stderr + r.stdout).toBe(8)
    const data = JSON.parse(r.stdout.trim().split("\n").pop()!).data
    const ma = providerOf(data, "muse-agents")
    expect(ma.diagnostics.filter((d) => d.code === "RESOURCE_LIMIT_EXCEEDED").map((d) => d.details)).toEqual([
      { agentId: "big", path: fs.realpathSync(file), lines: 1, byKind: { "oversized-line": 1 }, firstLine: 1, limit: "maxRecordBytes", max: LIMIT }
    ])
  })
})
