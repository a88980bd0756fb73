/**
 * claude-code through the CLI: import the fixture root into an index, then
 * `sessions` (titles, workspace = cwd, times), `show --format transcript`
 * equal to `transcript` for every session, `export --format atif` with the
 * subagent embedded under the Task call, an incremental re-import after an
 * append (to the session file and to a subagent file), and the source tree
 * unchanged throughout.
 */
import { describe, expect, it } from "vitest"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { cli } from "../support/run.js"
import { snapshotTree } from "../support/paths.js"
import { BILLING, copyFixtures, S, sessionPath, tempDir } from "./helpers.js"

const json = (args: ReadonlyArray<string>) => {
  const r = cli([...args, "--json"], { env: { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" } })
  const out = JSON.parse(r.stdout) as { status: string; data: any; error: any }
  return { code: r.code, ...out }
}

const setup = () => {
  const root = copyFixtures()
  const dir = tempDir("si-claude-idx-")
  // Away from ~/agents: a named agents root with one agent folder and no transcript (an empty named root is partial).
  const agents = nodePath.join(dir, "agents")
  fs.mkdirSync(nodePath.join(agents, "nobody"), { recursive: true })
  const index = nodePath.join(dir, "index.db")
  const imp = () => json(["import", "--index", index, "--claude-root", root, "--agents-root", agents])
  return { root, index, imp }
}

describe("claude-code via the CLI", () => {
  it("import, sessions, show = transcript, export atif with the subagent under its Task call; the source is untouched", () => {
    const { imp, index, root } = setup()
    const before = snapshotTree(root)
    const r = imp()
    expect(r.code).toBe(0)
    expect(r.data.coverage).toBe("complete")
    expect(r.data.sources).toMatchObject({ discovered: 6, accepted: 6, rejected: 0 })
    // 6 sessions, plus the nested subagent and the inline sidechain as their own.
    expect(r.data.sessionsAdded).toBe(8)
    const sessions = json(["sessions", "--index", index]).data as Array<any>
    const byId = new Map(sessions.map((s) => [s.sessionId, s]))
    expect(byId.get(S.S1)).toMatchObject({ provider: "claude-code", title: "Fix one-cent rounding error in invoice totals", workspace: "/home/alice/code/billing-api" })
    expect(byId.get(S.S6)).toMatchObject({ title: "The header logo overflows on narrow screens (screenshot). Can you fix the CSS?", workspace: "/home/alice/src/web_app.v2" })
    expect(byId.has("agent-a7c3e9f1b2d4068e5")).toBe(true)
    // A subagent's and an inline sidechain's sessions are not titled by their parent's first prompt; same workspace.
    // Each is titled by the name its Task call gave it: the subagent (session 6) and the inline sidechain (session 7).
    const children = sessions.filter((s) => /^(agent|sidechain)-/.test(s.sessionId))
    expect(children).toHaveLength(2)
    for (const c of children) expect(c).toMatchObject({ workspace: "/home/alice/code/billing-api" })
    expect(byId.get("agent-a7c3e9f1b2d4068e5").title).toBe("Survey CSV export code")
    expect(children.find((c) => c.sessionId.startsWith("sidechain-")).title).toBe("Find cust_id in migrations")
    for (const id of Object.values(S)) {
      const shown = json(["show", id, "--index", index, "--format", "transcript"])
      const direct = json(["transcript", "claude-code", sessionPath(id, root), "--claude-root", root])
      expect(shown.status, id).toBe("ok")
      expect(shown.data, id).toEqual(direct.data)
    }
    const atif = cli(["export", S.S2, "--index", index, "--format", "atif"])
    expect(atif.code).toBe(0)
    const t = JSON.parse(atif.stdout)
    expect(t.schema_version).toBe("ATIF-v1.7")
    expect(t.subagent_trajectories.map((x: any) => x.trajectory_id)).toEqual(["agent-a7c3e9f1b2d4068e5"])
    const refs = t.steps.flatMap((s: any) => s.observation?.results ?? []).filter((x: any) => x.subagent_trajectory_ref !== undefined)
    expect(refs).toHaveLength(1)
    expect(refs[0].source_call_id).toBe("toolu_01eHAkvbUxoE47t9hQusK3Bl")
    const sub = t.subagent_trajectories[0]
    expect(sub.steps.flatMap((s: any) => s.tool_calls ?? []).map((c: any) => c.function_name)).toEqual(["Grep", "Read", "Bash"])
    // The older inline sidechain is embedded under its Task call too.
    const old = JSON.parse(cli(["export", S.S3, "--index", index, "--format", "atif"]).stdout)
    const oldRefs = old.steps.flatMap((s: any) => s.observation?.results ?? []).filter((x: any) => x.subagent_trajectory_ref !== undefined)
    expect(oldRefs.map((x: any) => x.source_call_id)).toEqual(["toolu_01yZCOKYoBMZIHNsja62NPlK"])
    expect(snapshotTree(root)).toEqual(before)
  }, 120_000)

  it("re-import: unchanged is a stat; an append to the session file and to a subagent file adds just the new events", () => {
    const { imp, index, root } = setup()
    expect(imp().code).toBe(0)
    const again = imp()
    expect(again.data.sources).toMatchObject({ unchanged: 6, accepted: 0 })
    expect(again.data.eventsAdded).toBe(0)
    const line = (o: object) => JSON.stringify(o) + "\n"
    fs.appendFileSync(sessionPath(S.S5, root), line({
      type: "user", uuid: "5e0c7d1a-0000-4000-8000-000000000001", parentUuid: null, isSidechain: false, sessionId: S.S5,
      timestamp: "2026-01-15T08:31:00.000Z", message: { role: "user", content: "Also pin urllib3." }
    }))
    const subFile = nodePath.join(root, BILLING, S.S2, "subagents", "agent-a7c3e9f1b2d4068e5.jsonl")
    fs.appendFileSync(subFile, line({
      type: "assistant", uuid: "5e0c7d1a-0000-4000-8000-000000000002", parentUuid: null, isSidechain: true, agentId: "a7c3e9f1b2d4068e5",
      sessionId: S.S2, timestamp: "2026-01-14T15:02:29.000Z", requestId: "req_011CNEW",
      message: { id: "msg_01NEW", role: "assistant", model: "claude-haiku-4-5-20251001", content: [{ type: "text", text: "Done." }], usage: { input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } }
    }))
    const third = imp()
    expect(third.data.sources).toMatchObject({ unchanged: 4, accepted: 2, newGenerations: 0 })
    expect(third.data.eventsAdded).toBe(2)
    const shown = json(["show", S.S5, "--index", index, "--format", "transcript"]).data
    expect(shown.turns.filter((t: any) => t.role === "user").length).toBe(2)
    const sub = json(["show", "agent-a7c3e9f1b2d4068e5", "--index", index, "--format", "transcript"]).data
    expect(sub.turns.at(-1).blocks.at(-1)).toEqual({ type: "text", text: "Done." })
    // A rewrite of an imported line is a new generation, never a mix.
    const p = sessionPath(S.S1, root)
    fs.writeFileSync(p, fs.readFileSync(p, "utf8").replace("off by one cent", "off by two cents"))
    const fourth = imp()
    expect(fourth.data.sources).toMatchObject({ accepted: 1, newGenerations: 1 })
  }, 120_000)

  // tester21b F5: a file under the root whose name is no session log's (`/etc/passwd` with --claude-root /etc) was
  // read as a complete session with the id "" (its name less six characters), exit 0.
  it("a file whose name is not <session-id>.jsonl: MALFORMED_SOURCE (exit 5) from inspect, transcript and stream, not a session", () => {
    const root = tempDir("si-claude-notlog-")
    fs.mkdirSync(nodePath.join(root, "-srv-q"))
    const files = [nodePath.join(root, "passwd"), nodePath.join(root, "-srv-q", "notes.txt"), nodePath.join(root, "-srv-q", ".jsonl")]
    for (const f of files) fs.writeFileSync(f, "root:x:0:0:root:/root:/bin/bash\n")
    for (const f of files) {
      for (const command of ["inspect", "transcript", "stream"]) {
        const r = json([command, "claude-code", f, "--claude-root", root])
        expect(r.code, `${command} ${f}`).toBe(5)
        expect(r.error.code).toBe("MALFORMED_SOURCE")
        expect(r.error.message).toContain("is not a Claude Code session log")
      }
    }
    // a session log's name is still read (its lines not Claude Code's: skipped and counted, as the provider's table says)
    const log = nodePath.join(root, "-srv-q", "99999999-aaaa-4bbb-8ccc-000000000009.jsonl")
    fs.writeFileSync(log, "not json\n")
    const ok = json(["inspect", "claude-code", log, "--claude-root", root])
    expect(ok.code).toBe(0)
    expect(ok.data.sessions.map((x: { sessionId: string }) => x.sessionId)).toEqual(["99999999-aaaa-4bbb-8ccc-000000000009"])
  })
})
