/**
 * Tokens and cost per machine on a team index (a leftover of tester 18's F9:
 * the machine was on sessions and search, not on `usage`). Two machines
 * import their own Claude Code logs into one PostgreSQL index; `usage --by
 * machine` gives one row per machine with that machine's responses, and
 * `usage --machine NAME` keeps one machine's usage (an unknown name: none,
 * `no-usage-matches-filters`). On a SQLite index, which names no machines,
 * both are INVALID_ARGUMENT (exit 2), as `sessions --machine` is.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { freshDatabase } from "../support/pg.js"
import { importClaude } from "../support/claude-import.js"
import { cli, cliJson } from "../support/run.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }
const MODEL = "claude-sonnet-4-5-20250929"

const base = (sid: string) => ({ sessionId: sid, cwd: "/w", isSidechain: false, userType: "external", version: "2.0.76", parentUuid: null })
const prompt = (sid: string, uuid: string, ts: string) => ({ ...base(sid), type: "user", uuid, timestamp: ts, message: { role: "user", content: "go on" } })
const answer = (sid: string, uuid: string, ts: string, id: string, u: readonly [number, number, number, number]) => ({
  ...base(sid),
  type: "assistant",
  uuid,
  timestamp: ts,
  requestId: `req_${id}`,
  message: {
    id: `msg_${id}`,
    role: "assistant",
    model: MODEL,
    content: [{ type: "text", text: "done" }],
    usage: { input_tokens: u[0], output_tokens: u[1], cache_read_input_tokens: u[2], cache_creation_input_tokens: u[3] }
  }
})

/** Each machine's log: a session of two responses, with their tokens (input, output, cache read, cache write). */
const MACHINES = {
  "alice-laptop": { sid: "1a1a1a1a-0000-4000-8000-00000000001a", day: "2026-05-01", tokens: [[100, 200, 1000, 400], [10, 50, 2000, 0]] },
  "ci-runner-7": { sid: "2b2b2b2b-0000-4000-8000-00000000002b", day: "2026-05-02", tokens: [[7, 70, 0, 0], [1, 2, 3, 4]] }
} as const
/** What each machine used: the sums of its responses' tokens (input, output, cache read, cache write, responses). */
const WANT = { "alice-laptop": [110, 250, 3000, 400, 2], "ci-runner-7": [8, 72, 3, 4, 2] }

let url = ""
let sqlite = ""
let dir = ""

const json = (args: ReadonlyArray<string>) => cliJson(args, env)
const tokensOf = (r: any) => [r.inputTokens, r.outputTokens, r.cacheReadTokens, r.cacheWriteTokens, r.responses]

beforeAll(async () => {
  dir = tempDir("si-pg-usage-machine-")
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
  url = await freshDatabase()
  expect(cli(["index", "migrate", "--index", url], { env }).code).toBe(0)
  sqlite = path.join(dir, "local.db")
  for (const [machine, m] of Object.entries(MACHINES)) {
    const root = path.join(dir, machine, "projects")
    fs.mkdirSync(path.join(root, "-w"), { recursive: true })
    const lines = m.tokens.flatMap((u, i) => [
      prompt(m.sid, `u${i}`, `${m.day}T09:0${i}:00.000Z`),
      answer(m.sid, `a${i}`, `${m.day}T09:0${i}:02.000Z`, `${machine}-${i}`, u)
    ])
    fs.writeFileSync(path.join(root, "-w", `${m.sid}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
    importClaude(url, root, agents, env, machine)
    if (machine === "alice-laptop") importClaude(sqlite, root, agents, env)
  }
}, 180_000)

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

describe("usage per machine on a team index", () => {
  it("usage --by machine: one row per machine with its own responses' tokens, and the total of both", () => {
    const r = json(["usage", "--index", url, "--by", "machine"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.data.by).toBe("machine")
    expect(r.data.rows.map((x: any) => x.key)).toEqual(["alice-laptop", "ci-runner-7"])
    expect(r.data.rows.map(tokensOf)).toEqual([WANT["alice-laptop"], WANT["ci-runner-7"]])
    expect(tokensOf(r.data.total)).toEqual([118, 322, 3003, 404, 4])
  })

  it("usage --machine NAME keeps that machine's usage (here by day: its one day); an unknown name keeps none", () => {
    const ci = json(["usage", "--index", url, "--machine", "ci-runner-7"])
    expect(ci.code, ci.stderr).toBe(0)
    expect(ci.data.rows.map((x: any) => [x.key, ...tokensOf(x)])).toEqual([["2026-05-02", ...WANT["ci-runner-7"]]])
    expect(tokensOf(ci.data.total)).toEqual(WANT["ci-runner-7"])
    const bySession = json(["usage", "--index", url, "--machine", "alice-laptop", "--by", "session"])
    expect(bySession.data.rows.map((x: any) => [x.key, ...tokensOf(x)])).toEqual([[MACHINES["alice-laptop"].sid, ...WANT["alice-laptop"]]])
    const none = json(["usage", "--index", url, "--machine", "alice"])
    expect(none.code, none.stderr).toBe(0)
    expect([none.data.rows, none.data.empty]).toEqual([[], "no-usage-matches-filters"])
  })

  it("usage --by machine (text): a row named after each machine", () => {
    const r = cli(["usage", "--index", url, "--by", "machine"], { env })
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split("\n")
    expect(lines[0]).toMatch(/^usage by machine;/)
    expect(lines.find((l) => l.startsWith("machine "))).toMatch(/^machine +input +output/)
    expect(lines.some((l) => l.startsWith("alice-laptop ") && l.includes("110") && l.includes("250"))).toBe(true)
    expect(lines.some((l) => l.startsWith("ci-runner-7 ") && l.includes("72"))).toBe(true)
  })

  it("on a SQLite index (one machine's, naming none) --by machine and --machine are INVALID_ARGUMENT", () => {
    for (const args of [["--by", "machine"], ["--machine", "alice-laptop"]]) {
      const r = json(["usage", "--index", sqlite, ...args])
      expect(r.code, r.stderr).toBe(2)
      expect(r.error.code).toBe("INVALID_ARGUMENT")
      expect(r.error.message).toContain("names no machines")
    }
    // The same index's usage without them is its one machine's.
    const all = json(["usage", "--index", sqlite, "--by", "provider"])
    expect(all.data.rows.map(tokensOf)).toEqual([WANT["alice-laptop"]])
  })
})
