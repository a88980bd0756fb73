/**
 * tester34b F4: `mcp` answered `initialize` only after reading, for each of the latest 1,000 sessions whose title may
 * state a secret, the session's events whole (the resources' titles, redacted): ~100 s on a team index of 510,000
 * events (the official SDK client gives up at 60 s and never connects), 9.6 s on a SQLite index of 27,000 events; and
 * the end of input was not read until that pass was over. The rule (docs/mcp.md, "Speed" and "The end of input"): the
 * server answers `initialize` without work that grows with the index; the resources are listed, titles redacted as
 * strongly as before, at `resources/list`.
 *
 * What the server did is seen through a `--require` probe (outside the product) that records, in order, each query of
 * the index that reads events and the first answer written on stdout; no timing is asserted (the hang guard is
 * generous).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeAssistantLine, claudeProject, claudeUserLine } from "../support/claude-import.js"
import { repoRoot, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { callRaw, type Connected, connect } from "./helpers.js"

// built at run time so that no secret scanner flags this file
const V = ["Pp7Later", "!", "Secret"].join("")
const SESSIONS = 30
const TURNS = 40

let dir = ""
let index = ""
let env: Record<string, string> = {}
let probe = ""

const sid = (i: number) => `34343434-0000-4000-8000-${String(i).padStart(12, "0")}`

/** The probe: logs `Q` for each executed statement reading the events (the `records` table), `W` for stdout's first write. */
const probeSource = (log: string) => `
const fs = require("node:fs")
const log = ${JSON.stringify(log)}
const Database = require(require.resolve("better-sqlite3", { paths: [${JSON.stringify(repoRoot)}] }))
const prepare = Database.prototype.prepare
Database.prototype.prepare = function (sql, ...rest) {
  const st = prepare.call(this, sql, ...rest)
  if (/\\b(FROM|JOIN)\\s+(records|events)\\b/i.test(String(sql)) && !/^\\s*(CREATE|INSERT|UPDATE|DELETE|PRAGMA)/i.test(String(sql))) {
    for (const m of ["all", "get", "iterate"]) {
      const f = st[m]
      st[m] = function (...a) { fs.appendFileSync(log, "Q " + String(sql).replace(/\\s+/g, " ").slice(0, 200) + "\\n"); return f.apply(this, a) }
    }
  }
  return st
}
const write = process.stdout.write
let first = true
process.stdout.write = function (...a) {
  if (first) { first = false; fs.appendFileSync(log, "W " + String(a[0]).slice(0, 60).replace(/\\n/g, " ") + "\\n") }
  return write.apply(this, a)
}
`

beforeAll(() => {
  dir = tempDir("si-mcp-lazy34-")
  const { root, write } = claudeProject(dir)
  // Sessions whose title (the first prompt) states a value a later tool call names a password: a title that may state
  // a secret, so listing it as a resource reads its session's events whole.
  for (let i = 0; i < SESSIONS; i++) {
    const s = sid(i)
    const lines: Array<unknown> = [claudeUserLine(s, "u0", null, "2026-11-01T00:00:00Z", `log in with ${V} please`)]
    let parent = "u0"
    for (let t = 1; t <= TURNS; t++) {
      lines.push(claudeAssistantLine(s, `a${t}`, parent, "2026-11-01T00:00:01Z", [{ type: "text", text: `step ${t}` }]))
      lines.push(claudeUserLine(s, `u${t}`, `a${t}`, "2026-11-01T00:00:02Z", `go on ${t}`))
      parent = `u${t}`
    }
    lines.push(claudeAssistantLine(s, "b", parent, "2026-11-01T00:00:03Z", [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "psql", env: { PGPASSWORD: V } } }]))
    write(s, lines)
  }
  index = path.join(dir, "index.db")
  env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  const r = cli(["import", "--index", index, "--claude-root", root, "--agents-root", path.join(dir, "none")], { env })
  expect([0, 8], r.stderr).toContain(r.code)
  probe = path.join(dir, "probe.cjs")
})

/** A fresh probe log, and the env that loads the probe writing to it. */
const probed = (name: string) => {
  const log = path.join(dir, `${name}.log`)
  fs.writeFileSync(probe.replace(/\.cjs$/, `-${name}.cjs`), probeSource(log))
  return { log, env: { ...env, NODE_OPTIONS: `--require=${probe.replace(/\.cjs$/, `-${name}.cjs`)}` } }
}

const lines = (log: string) => fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter(Boolean) : []

let server: Connected | undefined
afterAll(async () => {
  await server?.close()
})

describe("tester34b F4: mcp answers initialize before any work that grows with the index", () => {
  it("the SDK client's connect (initialize) is answered before any event is read; resources/list then lists the titles redacted", async () => {
    const { env: probeEnv, log } = probed("connect")
    server = await connect(["--index", index], probeEnv)
    // initialize answered, and nothing read of any session's events before (nor since: no request needs them yet)
    const before = lines(log)
    expect(before[0]).toMatch(/^W \{"jsonrpc":"2\.0","id":0,"result":\{"protocolVersion"/)
    expect(before.filter((l) => l.startsWith("Q "))).toEqual([])

    // The resources, listed on request: every title redacted as before (the pass runs now, for this request).
    const listed = (await server.client.listResources()).resources
    expect(listed.length).toBe(SESSIONS)
    const text = JSON.stringify(listed)
    expect(text).not.toContain("Pp7Later")
    for (const r of listed) expect(r.title).toBe("log in with [REDACTED:secret-field] please")
    expect(lines(log).filter((l) => l.startsWith("Q ")).length).toBeGreaterThanOrEqual(SESSIONS)
    // list_sessions as well (its own titles, per listed session)
    const { raw } = await callRaw(server, "list_sessions", { limit: 5 })
    expect(raw).not.toContain("Pp7Later")
  }, 120_000)

  it("the end of input right after initialize: answered, exit 0, no event read", async () => {
    const { env: probeEnv, log } = probed("eof")
    const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), "mcp", "--index", index], {
      env: { ...process.env, ...probeEnv },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.stdin.end(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }) + "\n" +
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n"
    )
    const code = await new Promise<number | null | "hang">((resolve) => {
      const guard = setTimeout(() => {
        child.kill("SIGKILL")
        resolve("hang")
      }, 60_000)
      child.on("exit", (c) => {
        clearTimeout(guard)
        resolve(c)
      })
    })
    expect({ code, err }).toEqual({ code: 0, err: "" })
    expect(out).toMatch(/^\{"jsonrpc":"2\.0","id":1,"result":\{"protocolVersion"/)
    expect(lines(log).filter((l) => l.startsWith("Q "))).toEqual([])
  }, 120_000)
})
