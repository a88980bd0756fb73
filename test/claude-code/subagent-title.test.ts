/**
 * Claude Code subagents, session 6 leftovers:
 * - a subagent session is titled by its spawning Task call's `description`
 *   (the name the parent gave it: meta.json's `toolUseId`, or the parent's
 *   Task result naming the agent, `toolUseResult.agentId`), else by its own
 *   first prompt; never by the workspace path;
 * - flat `agent-*.jsonl` files that name no session of their folder are
 *   reported, counted, per folder (`CLAUDE_SUBAGENT_UNLINKED`).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { BILLING, copyFixtures, S } from "./helpers.js"

const AGENT = "a7c3e9f1b2d4068e5"
const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

const importAndList = (root: string) => {
  const dir = tempDir("si-claude-sub-")
  const index = path.join(dir, "i.db")
  const r = cli(["import", "--index", index, "--claude-root", root, "--agents-root", path.join(dir, "none"), "--workspace", dir, "--json"], { env })
  expect([0, 8], r.stderr).toContain(r.code)
  const list = JSON.parse(cli(["sessions", "--index", index, "--json"], { env }).stdout).data as Array<{ sessionId: string; title: string | null }>
  const report = JSON.parse(r.stdout.trim().split("\n").pop()!).data
  const claude = report.providers.find((p: { provider: string }) => p.provider === "claude-code")
  return { list, claude, index }
}

describe("Claude Code: subagent session titles", () => {
  it("nested layout: the Task call's description (meta.json toolUseId)", () => {
    const { list } = importAndList(copyFixtures())
    expect(list.find((s) => s.sessionId === `agent-${AGENT}`)?.title).toBe("Survey CSV export code")
  })

  it("flat layout without meta.json: the Task call the parent's result links to the agent", () => {
    const root = copyFixtures()
    fs.renameSync(path.join(root, BILLING, S.S2, "subagents", `agent-${AGENT}.jsonl`), path.join(root, BILLING, `agent-${AGENT}.jsonl`))
    fs.rmSync(path.join(root, BILLING, S.S2), { recursive: true })
    const { list } = importAndList(root)
    expect(list.find((s) => s.sessionId === `agent-${AGENT}`)?.title).toBe("Survey CSV export code")
  })

  it("no Task call names it: its own first prompt, not the workspace", () => {
    const root = copyFixtures()
    const src = fs.readFileSync(path.join(root, BILLING, S.S2, "subagents", `agent-${AGENT}.jsonl`), "utf8")
    // The same subagent under another agent id that no Task result names, beside S2 (nested, no meta.json).
    fs.writeFileSync(path.join(root, BILLING, S.S2, "subagents", "agent-ddd333.jsonl"), src.replaceAll(AGENT, "ddd333").replace("Find where invoices", "Look where invoices"))
    const { list } = importAndList(root)
    const title = list.find((s) => s.sessionId === "agent-ddd333")?.title
    expect(title).toMatch(/^Look where invoices are exported to CSV/)
    expect(title).not.toContain("/home/alice")
  })
})

describe("Claude Code: inline sidechain session titles", () => {
  const S3_FILE = (root: string) => path.join(root, BILLING, `${S.S3}.jsonl`)
  const sidechains = (list: ReadonlyArray<{ sessionId: string; title: string | null }>) =>
    list.filter((s) => s.sessionId.startsWith("sidechain-")).sort((a, b) => (a.sessionId < b.sessionId ? -1 : 1))
  /** S3's lines as objects (line 2: the Task call; lines 3-6: the inline sidechain, root line 3). */
  const linesOf = (root: string) => fs.readFileSync(S3_FILE(root), "utf8").trim().split("\n").map((l) => JSON.parse(l))
  /** The sidechain `side` again under new uuids (`n` tells the copies apart), its first line's prompt `prompt`. */
  const chainCopy = (side: ReadonlyArray<any>, n: number, prompt: string) => {
    const uuid = (i: number) => `99999999-0000-4000-8000-0000000000${n}${i}`
    const copy = side.map((l, i) => ({ ...structuredClone(l), uuid: uuid(i), parentUuid: i === 0 ? null : uuid(i - 1) }))
    copy[0].message.content = prompt
    return copy
  }
  const write = (root: string, lines: ReadonlyArray<unknown>) => fs.writeFileSync(S3_FILE(root), lines.map((l) => JSON.stringify(l)).join("\n") + "\n")

  it("the Task call its first prompt names (an older version's sidechain in the session file): that call's description", () => {
    const { list } = importAndList(copyFixtures())
    expect(sidechains(list).map((s) => s.title)).toEqual(["Find cust_id in migrations"])
  })

  it("two Task calls: each sidechain takes the description of its own call (by prompt, in order); no call names it: its own first prompt", () => {
    const root = copyFixtures()
    const lines = linesOf(root)
    const call = lines[1]
    const side = lines.slice(2, 6)
    // A second Task call with another description and prompt, then its sidechain (same lines, new uuids and prompt).
    const call2 = structuredClone(call)
    call2.uuid = "99999999-0000-4000-8000-000000000001"
    call2.message.content[0].id = "toolu_second"
    call2.message.content[0].input = { description: "Count migration files", prompt: "How many files are in db/migrations?" }
    const side2 = chainCopy(side, 1, "How many files are in db/migrations?")
    // A third sidechain whose prompt no Task call holds: titled by that prompt.
    const side3 = chainCopy(side, 2, "Read the README and say what it is about.")
    write(root, [lines[0], call, call2, ...side, ...side2, ...side3, ...lines.slice(6)])
    const { list } = importAndList(root)
    const byRoot = new Map(sidechains(list).map((s) => [s.sessionId, s.title]))
    expect(byRoot.get(`sidechain-${side[0].uuid}`)).toBe("Find cust_id in migrations")
    expect(byRoot.get(`sidechain-${side2[0].uuid}`)).toBe("Count migration files")
    expect(byRoot.get(`sidechain-${side3[0].uuid}`)).toBe("Read the README and say what it is about.")
    expect(byRoot.size).toBe(3)
  })

  it("a Task call with a blank description: the sidechain's own first prompt, never the parent's", () => {
    const root = copyFixtures()
    const lines = linesOf(root)
    lines[1].message.content[0].input.description = "  "
    write(root, lines)
    const { list } = importAndList(root)
    expect(sidechains(list).map((s) => s.title)).toEqual([expect.stringMatching(/^List every file under db\/migrations that mentions cust_id/)])
  })
})

describe("Claude Code: flat agent files that name no session", () => {
  it("are counted in one diagnostic per folder, with their names", () => {
    const root = copyFixtures()
    const src = fs.readFileSync(path.join(root, BILLING, S.S2, "subagents", `agent-${AGENT}.jsonl`), "utf8")
    fs.writeFileSync(path.join(root, BILLING, "agent-ccc222.jsonl"), src.replaceAll(S.S2, "00000000-0000-4000-8000-000000000000").replaceAll(AGENT, "ccc222"))
    fs.writeFileSync(path.join(root, BILLING, "agent-eee444.jsonl"), "not json\n")
    // One naming a session of the folder is linked, not reported.
    fs.writeFileSync(path.join(root, BILLING, "agent-fff555.jsonl"), src.replaceAll(S.S2, S.S1).replaceAll(AGENT, "fff555"))
    const { claude } = importAndList(root)
    const d = claude.diagnostics.filter((x: { code: string }) => x.code === "CLAUDE_SUBAGENT_UNLINKED")
    expect(d).toHaveLength(1)
    expect(d[0].details.count).toBe(2)
    expect(d[0].details.files).toEqual(["agent-ccc222.jsonl", "agent-eee444.jsonl"])
    expect(d[0].message).toContain(BILLING)
    const human = cli(["import", "--index", path.join(tempDir("si-claude-sub-"), "i.db"), "--claude-root", root, "--agents-root", "/nonexistent-x"], { env })
    expect(human.stdout + human.stderr).toContain("CLAUDE_SUBAGENT_UNLINKED")
  })
})
