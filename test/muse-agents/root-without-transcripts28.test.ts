/**
 * Session 28 (tester28a F13): a named agents root whose agent folders hold no transcript `<agentId>/sessions/
 * <agentId>.jsonl` (seed 000's only name for one) read as "complete, 0 sources", with nothing saying which file was
 * expected: a transcript under another name (`sessions/s1.jsonl`), or a root one level too deep (`~/agents/ag1`,
 * whose `sessions` folder reads as an agent). A named root that lists no transcript at all is empty
 * (`AGENTS_ROOT_EMPTY`, coverage partial, exit 8, as docs/index.md says for a root you name that turns out empty);
 * each agent whose `sessions/` holds `.jsonl` files but not its own is named (`AGENT_TRANSCRIPT_NOT_FOUND`), also
 * beside agents that do list sessions (a warning there; coverage stays complete). Nothing of those files is read.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { FIXTURE_ROOT, tempDir } from "./helpers.js"
import { cli } from "../support/run.js"

const json = (stdout: string) => JSON.parse(stdout.trimEnd().split("\n").at(-1)!)
const codes = (j: { diagnostics: ReadonlyArray<{ code: string }> }) => j.diagnostics.map((d) => d.code)

/** A transcript from the fixtures (a listed session), copied under `name` into `root/agent/sessions/`. */
const plant = (root: string, agent: string, name: string) => {
  const from = nodePath.join(FIXTURE_ROOT, "delegate", "sessions", "delegate.jsonl")
  fs.mkdirSync(nodePath.join(root, agent, "sessions"), { recursive: true })
  fs.copyFileSync(from, nodePath.join(root, agent, "sessions", name))
}

describe("muse-agents: a named root without transcripts is not complete", () => {
  it("an agent's transcript under another name: AGENTS_ROOT_EMPTY (partial, exit 8) and the agent named", () => {
    const root = nodePath.join(tempDir(), "agents")
    plant(root, "ag1", "s1.jsonl")
    const t = cli(["discover", "muse-agents", "--agents-root", root])
    expect(t.code, t.stderr).toBe(8)
    expect(t.stdout).toContain("ag1/sessions holds 1 .jsonl file but not ag1/sessions/ag1.jsonl")
    const j = json(cli(["discover", "muse-agents", "--agents-root", root, "--json"]).stdout).data
    expect([j.coverage, j.reasonCode, j.sourceCount]).toEqual(["partial", "AGENTS_ROOT_EMPTY", 0])
    expect(codes(j).sort()).toEqual(["AGENTS_ROOT_EMPTY", "AGENT_TRANSCRIPT_NOT_FOUND"])
    expect(j.receipts).toMatchObject({ agentFolders: 1, transcriptsRead: 0, withoutNamedTranscript: 1 })
  })

  it("a root one level too deep (an agent's folder): AGENTS_ROOT_EMPTY", () => {
    const root = nodePath.join(tempDir(), "agents")
    plant(root, "ag1", "ag1.jsonl")
    const j = json(cli(["discover", "muse-agents", "--agents-root", nodePath.join(root, "ag1"), "--json"]).stdout).data
    expect([j.coverage, j.reasonCode, j.sourceCount]).toEqual(["partial", "AGENTS_ROOT_EMPTY", 0])
    expect(j.diagnostics.find((d: { code: string }) => d.code === "AGENT_TRANSCRIPT_NOT_FOUND").details).toEqual({ agentId: "sessions", otherJsonlFiles: 1 })
  })

  it("agent folders that hold nothing (agents that never ran): complete, as before", () => {
    const root = nodePath.join(tempDir(), "agents")
    fs.mkdirSync(nodePath.join(root, "nobody"), { recursive: true })
    fs.mkdirSync(nodePath.join(root, "idle", "sessions"), { recursive: true })
    const j = json(cli(["discover", "muse-agents", "--agents-root", root, "--json"]).stdout).data
    expect([j.coverage, j.reasonCode, j.sourceCount, codes(j)]).toEqual(["complete", null, 0, []])
  })

  it("beside an agent that lists its session: a warning naming the other agent; coverage complete", () => {
    const root = nodePath.join(tempDir(), "agents")
    plant(root, "ag1", "ag1.jsonl")
    plant(root, "ag2", "old.jsonl")
    plant(root, "ag2", "older.jsonl")
    const r = cli(["discover", "muse-agents", "--agents-root", root, "--json"])
    expect(r.code, r.stderr).toBe(0)
    const j = json(r.stdout).data
    expect([j.coverage, j.reasonCode, j.sourceCount]).toEqual(["complete", null, 1])
    expect(codes(j)).toEqual(["AGENT_TRANSCRIPT_NOT_FOUND"])
    expect(j.diagnostics[0].details).toEqual({ agentId: "ag2", otherJsonlFiles: 2 })
  })

  it("a named root with a listed session is complete, with no diagnostic, as before", () => {
    const root = nodePath.join(tempDir(), "agents")
    plant(root, "ag1", "ag1.jsonl")
    const j = json(cli(["discover", "muse-agents", "--agents-root", root, "--json"]).stdout).data
    expect([j.coverage, j.reasonCode, j.sourceCount, codes(j)]).toEqual(["complete", null, 1, []])
  })

  // session 28 (tester28b F2): a root one level too high (the folder that holds `agents/`)
  it("a root one level too high: AGENTS_ROOT_EMPTY naming the agents root to pass", () => {
    const home = tempDir()
    const root = nodePath.join(home, "agents")
    plant(root, "ag1", "ag1.jsonl")
    fs.mkdirSync(nodePath.join(home, "projects", "x"), { recursive: true })
    const t = cli(["discover", "muse-agents", "--agents-root", home])
    expect(t.code, t.stderr).toBe(8)
    expect(t.stdout).toContain(`Pass --agents-root ${root}`)
    const j = json(cli(["discover", "muse-agents", "--agents-root", home, "--json"]).stdout).data
    expect([j.coverage, j.reasonCode, j.sourceCount]).toEqual(["partial", "AGENTS_ROOT_EMPTY", 0])
    expect(j.diagnostics[0].message).toContain(`${root} looks like the agents root`)
  })
})
