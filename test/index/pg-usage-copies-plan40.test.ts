/**
 * `sessions` on a team index holding the same Claude Code logs under several
 * machine names (tester40 F0: the same 300 sessions pushed under ~10 names,
 * 1,902 sessions; the listing took 65-74 s and failed at the 60 s timeout).
 * The usage totals rank the copies of each response across sessions
 * (`firstSeenUsage`, docs/usage-and-cost.md "Copies of a response"); the
 * layer then joined the ranked rows back to `sessions` and `sources`, and
 * PostgreSQL, unable to estimate how many ranked rows are counted (4 guessed,
 * 61,941 there), compared every session with every ranked row in a nested
 * loop (117.7 million rows removed by the join filter).
 *
 * Here: three sessions whose responses have distinct usage, imported under
 * three machine names. Each response counts once, in one copy of its session
 * (the same copy for all of a session's responses: the copies differ only in
 * their source key); the other two copies list it as counted elsewhere. The
 * plan is the one the server ran for the layer's own query (`auto_explain`):
 * the ranked rows are never joined back to `sessions` or `sources` (each is
 * read once, inside the ranking), so no join pairs sessions with ranked rows.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { importClaude } from "../support/claude-import.js"
import { tempDir } from "../support/paths.js"
import { freshDatabase, pgQuery } from "../support/pg.js"
import { cliJson } from "../support/run.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }
const MODEL = "claude-sonnet-4-5-20250929"
const MACHINES = ["mach-a", "mach-b", "mach-c"]

const base = (sid: string) => ({ sessionId: sid, cwd: "/w40", isSidechain: false, userType: "external", version: "2.0.76", parentUuid: null })
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

/** Each session's responses: tokens (input, output, cache read, cache write). */
const SESSIONS: Record<string, ReadonlyArray<readonly [number, number, number, number]>> = {
  "40404040-0000-4000-8000-000000000001": [[3, 30, 300, 3000], [5, 50, 500, 0]],
  "40404040-0000-4000-8000-000000000002": [[7, 11, 0, 13], [17, 19, 23, 29], [1, 1, 1, 1]],
  "40404040-0000-4000-8000-000000000003": [[1000, 2000, 0, 0]]
}
/** What each session used (input, output, cache read, cache write), worked out from the usage above. */
const WANT: Record<string, readonly [number, number, number, number]> = {
  "40404040-0000-4000-8000-000000000001": [8, 80, 800, 3000],
  "40404040-0000-4000-8000-000000000002": [25, 31, 24, 43],
  "40404040-0000-4000-8000-000000000003": [1000, 2000, 0, 0]
}

let url = ""
let dir = ""

const tokensOf = (u: any) => [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens]

beforeAll(async () => {
  dir = tempDir("si-pg-copies40-")
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
  const root = path.join(dir, "projects")
  fs.mkdirSync(path.join(root, "-w40"), { recursive: true })
  let n = 0
  for (const [sid, responses] of Object.entries(SESSIONS)) {
    const day = `2026-06-0${++n}`
    const lines = responses.flatMap((u, i) => [
      prompt(sid, `${sid}-u${i}`, `${day}T09:0${i}:00.000Z`),
      answer(sid, `${sid}-a${i}`, `${day}T09:0${i}:02.000Z`, `${n}-${i}`, u)
    ])
    fs.writeFileSync(path.join(root, "-w40", `${sid}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
  }
  url = await freshDatabase()
  expect(cliJson(["index", "migrate", "--index", url], env).code).toBe(0)
  // The same logs under three machine names (a synced ~/.claude, a renamed host).
  for (const machine of MACHINES) importClaude(url, root, agents, env, machine)
  await pgQuery(url, "ANALYZE")
}, 180_000)

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "CTE Name"?: string
  readonly "Parent Relationship"?: string
  readonly "Subplan Name"?: string
  readonly "Actual Rows"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** The server log's length in bytes (what a later {@link loggedPlans} skips: other tests' statements). */
const logLength = async (): Promise<number> => {
  const [{ n }] = await pgQuery<{ n: string }>(url, "SELECT (pg_stat_file(current_setting('data_directory') || '/../server.log')).size AS n")
  return Number(n)
}

/** The plans `auto_explain` logged after byte `from` for queries whose text holds `marker` (the server's log, read by the server). */
const loggedPlans = async (from: number, marker: string): Promise<Array<{ query: string; plan: PlanNode }>> => {
  const [{ log }] = await pgQuery<{ log: string }>(
    url,
    `SELECT convert_from(pg_read_binary_file(current_setting('data_directory') || '/../server.log', ${from}, 1000000000), 'UTF8') AS log`
  )
  const out: Array<{ query: string; plan: PlanNode }> = []
  for (const entry of log.split(/\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \w+ \[\d+\] )/)) {
    const at = entry.indexOf("plan:\n")
    if (at < 0) continue
    const body = JSON.parse(entry.slice(at + 6).replace(/^\t/gm, "")) as { "Query Text": string; Plan: PlanNode }
    if (body["Query Text"].includes(marker)) out.push({ query: body["Query Text"], plan: body.Plan })
  }
  return out
}

const nodes = (node: PlanNode): Array<PlanNode> => [node, ...(node.Plans ?? []).flatMap(nodes)]
/** `node` and the nodes below it but for the CTEs defined there (their plans hang below as `InitPlan`s). */
const outside = (node: PlanNode): Array<PlanNode> => [
  node,
  ...(node.Plans ?? []).filter((p) => p["Parent Relationship"] !== "InitPlan").flatMap(outside)
]

describe("sessions on a team index holding copies of the same logs under several machines (tester40 F0)", () => {
  it("each session's responses count once, in one of its copies; the others list that copy as counted elsewhere", () => {
    const all = cliJson(["sessions", "--index", url], env)
    expect(all.code, all.stderr).toBe(0)
    expect(all.data.length).toBe(9)
    for (const [sid, want] of Object.entries(WANT)) {
      const copies = all.data.filter((s: any) => s.sessionId === sid)
      expect(copies.map((s: any) => s.machine).sort()).toEqual(MACHINES)
      const counted = copies.filter((s: any) => s.usage.inputTokens !== null)
      expect(counted.length, sid).toBe(1)
      expect(tokensOf(counted[0].usage)).toEqual(want)
      for (const c of copies.filter((s: any) => s !== counted[0])) {
        expect(tokensOf(c.usage)).toEqual([null, null, null, null])
        expect(c.usage.countedElsewhere).toEqual([
          { provider: "claude-code", sessionId: sid, sessionUid: counted[0].sessionUid, responses: SESSIONS[sid].length }
        ])
      }
      // One machine's listing: the same copy holds the tokens.
      for (const machine of MACHINES) {
        const one = cliJson(["sessions", "--index", url, "--machine", machine], env)
        expect(one.code, one.stderr).toBe(0)
        const s = one.data.find((x: any) => x.sessionId === sid)
        expect(tokensOf(s.usage)).toEqual(machine === counted[0].machine ? want : [null, null, null, null])
      }
    }
    // A part of the listing (its usage ranks only the copies its sessions need): each session as in the whole listing,
    // a copy listed without the one that counts included.
    const whole = new Map(all.data.map((s: any) => [s.sessionUid, tokensOf(s.usage)]))
    for (const limit of [1, 2, 4, 5]) {
      const some = cliJson(["sessions", "--index", url, "--limit", String(limit)], env)
      expect(some.code, some.stderr).toBe(0)
      expect(some.data.length).toBe(limit)
      for (const s of some.data) expect(tokensOf(s.usage), `${limit} ${s.sessionUid}`).toEqual(whole.get(s.sessionUid))
    }
    // The whole index: each of the 6 responses once, the sums of WANT.
    const usage = cliJson(["usage", "--index", url, "--by", "machine"], env)
    expect(usage.code, usage.stderr).toBe(0)
    expect(tokensOf(usage.data.total)).toEqual([1033, 2111, 824, 3043])
    expect(usage.data.total.responses).toBe(6)
  }, 120_000)

  it("the usage totals' plan reads sessions and sources once each (inside the ranking): no join of sessions with the ranked rows", async () => {
    const db = new URL(url).pathname.slice(1)
    await pgQuery(url, `ALTER DATABASE ${db} SET session_preload_libraries = 'auto_explain'`)
    await pgQuery(url, `ALTER DATABASE ${db} SET auto_explain.log_min_duration = 0`)
    await pgQuery(url, `ALTER DATABASE ${db} SET auto_explain.log_format = 'json'`)
    const from = await logLength()
    for (const args of [["sessions"], ["usage", "--by", "machine"], ["usage", "--by", "workspace"]]) {
      const r = cliJson([...args, "--index", url, "--workspace", "/w40"], env)
      expect(r.code, r.stderr).toBe(0)
    }
    const plans = await loggedPlans(from, "WITH ranked AS")
    expect(plans.length).toBeGreaterThanOrEqual(3)
    for (const { plan, query } of plans) {
      const all = nodes(plan)
      const scans = (relation: string) => all.filter((n) => n["Relation Name"] === relation && /Scan$/.test(n["Node Type"]))
      expect(scans("sessions").length, `${query}\n${JSON.stringify(plan)}`).toBe(1)
      expect(scans("sources").length, `${query}\n${JSON.stringify(plan)}`).toBe(1)
      // The one read of each is inside CTE `ranked` (below its window): no join takes the CTE's rows and either table.
      for (const join of all.filter((n) => /Nested Loop|Hash Join|Merge Join/.test(n["Node Type"]))) {
        const below = outside(join)
        const readsRanked = below.some((n) => n["Node Type"] === "CTE Scan" && n["CTE Name"] === "ranked")
        const readsSessions = below.some((n) => n["Relation Name"] === "sessions" || n["Relation Name"] === "sources")
        expect(readsRanked && readsSessions, `${query}\n${JSON.stringify(join)}`).toBe(false)
      }
    }

    // A part of the listing ranks only the copies of its sessions' responses: the rows the ranking reads (counted by
    // the server: `log_analyze`) are the listed session's 3 copies of each of its responses, not the 18 of the index.
    await pgQuery(url, `ALTER DATABASE ${db} SET auto_explain.log_analyze = on`)
    const before = await logLength()
    const one = cliJson(["sessions", "--index", url, "--limit", "1"], env)
    expect(one.code, one.stderr).toBe(0)
    const [{ n }] = await pgQuery<{ n: string }>(url, "SELECT count(*) AS n FROM usage")
    expect(Number(n)).toBe(18)
    const [limited] = await loggedPlans(before, "WITH ranked AS")
    const ranked = nodes(limited.plan).find((x) => x["Subplan Name"] === "CTE ranked")
    expect(ranked?.["Actual Rows"], JSON.stringify(limited.plan)).toBe(3 * SESSIONS[one.data[0].sessionId].length)
  }, 120_000)
})
