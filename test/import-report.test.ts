/**
 * The import report, leftovers found by fresh users: it says how many lines
 * the sources' parse warnings skipped (human and JSON), and a `--workspace`
 * that does not exist is never "complete".
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { copyFixtures, S, sessionPath } from "./claude-code/helpers.js"
import { fixturesDir, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

/** An empty agents root (so the default ~/agents is not read). */
const emptyAgents = (dir: string) => {
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
  return agents
}

describe("import report: parse warnings", () => {
  it("counts the lines skipped in each source, by kind, in --json and in the text report", () => {
    const dir = tempDir("si-import-warn-")
    // The fixtures hold bad lines of their own (fixtures/claude-code/EXPECTED.md): the baseline.
    const base = JSON.parse(
      cli(["import", "--index", path.join(dir, "base.db"), "--claude-root", copyFixtures(), "--agents-root", emptyAgents(dir), "--json"], { env }).stdout.trim().split("\n").pop()!
    ).data.parseWarnings
    expect(base.lines).toBeGreaterThan(0)
    const baseS1 = (base.items as Array<any>).filter((i) => i.path.endsWith(`${S.S1}.jsonl`)).reduce((a: number, i: any) => a + i.count, 0)
    const warnedBefore = new Set((base.items as Array<any>).map((i) => i.path.split("/").pop()))
    const root = copyFixtures()
    // two bad lines in one session, one in another
    fs.appendFileSync(sessionPath(S.S1, root), "this is not json\n{\"broken\": \n")
    fs.appendFileSync(sessionPath(S.S2, root), "[1,2,3]\n")
    const index = path.join(dir, "i.db")
    const args = ["import", "--index", index, "--claude-root", root, "--agents-root", emptyAgents(dir)]
    const r = cli([...args, "--json"], { env })
    expect([0, 8]).toContain(r.code)
    const data = JSON.parse(r.stdout.trim().split("\n").pop()!).data
    expect(data.parseWarnings.lines).toBe(base.lines + 3)
    const sources = new Set([...warnedBefore, `${S.S1}.jsonl`, `${S.S2}.jsonl`]).size
    expect(data.parseWarnings.sources).toBe(sources)
    expect(Object.values(data.parseWarnings.byKind as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(base.lines + 3)
    const items = data.parseWarnings.items as Array<{ provider: string; path: string; kind: string; count: number; firstLine: number }>
    expect(items.filter((i) => i.path.endsWith(`${S.S1}.jsonl`)).reduce((a, i) => a + i.count, 0)).toBe(baseS1 + 2)
    for (const i of items) {
      expect(i.provider).toBe("claude-code")
      expect(i.firstLine).toBeGreaterThan(1)
    }
    // the text report says it too, also on a second run (nothing imported, the lines still skipped)
    const again = cli(args, { env })
    expect(again.stdout).toContain(`parse warnings: ${base.lines + 3} lines skipped in ${sources} sources`)
    expect(again.stdout).toContain(`${S.S1}.jsonl`)
  })

  it("no warnings: the JSON says 0 and the text report has no such line", () => {
    const dir = tempDir("si-import-nowarn-")
    // only the fixture sessions without bad lines
    const root = copyFixtures()
    const probe = JSON.parse(cli(["import", "--index", path.join(dir, "p.db"), "--claude-root", root, "--agents-root", emptyAgents(dir), "--json"], { env }).stdout.trim().split("\n").pop()!).data
    for (const i of probe.parseWarnings.items) fs.rmSync(i.path, { force: true })
    const r = cli(["import", "--index", path.join(dir, "i.db"), "--claude-root", root, "--agents-root", emptyAgents(dir), "--json"], { env })
    const data = JSON.parse(r.stdout.trim().split("\n").pop()!).data
    expect(data.parseWarnings).toEqual({ lines: 0, files: 0, sources: 0, byKind: {}, items: [] })
    const text = cli(["import", "--index", path.join(dir, "i.db"), "--claude-root", root, "--agents-root", emptyAgents(dir)], { env })
    expect(text.stdout).not.toContain("parse warnings")
  })
})

describe("import --workspace that does not exist", () => {
  for (const variant of ["missing", "file"] as const) {
    it(`a ${variant === "missing" ? "missing folder" : "file"} named as a workspace makes coverage partial (exit 8), with a cause and a remedy`, () => {
      const dir = tempDir("si-import-ws-")
      const ws = path.join(dir, variant === "missing" ? "no-such-dir" : "a-file")
      if (variant === "file") fs.writeFileSync(ws, "x")
      const claude = path.join(dir, "claude")
      fs.mkdirSync(path.join(claude, "-p"), { recursive: true })
      const args = ["import", "--index", path.join(dir, "i.db"), "--claude-root", claude, "--agents-root", emptyAgents(dir), "--workspace", ws]
      const r = cli([...args, "--json"], { env })
      expect(r.code).toBe(8)
      const data = JSON.parse(r.stdout.trim().split("\n").pop()!).data
      expect(data.coverage).toBe("partial")
      const cause = (data.causes as Array<any>).find((c) => c.code === "WORKSPACE_NOT_FOUND")
      expect(cause).toBeDefined()
      expect(cause.path).toBe(ws)
      expect(cause.remedy).toContain("--workspace")
      const text = cli(args, { env })
      expect(text.code).toBe(8)
      expect(text.stdout).toContain("import partial")
      expect(text.stdout).toContain(ws)
    })
  }

  it("a workspace that is not on this machine but that native Muse Code logs name is no cause, also when the log is rejected (tester36a F7)", () => {
    // fixtures/muse-code/native: two sessions of 2026/09/25 whose logs name /workspace/demo (the agent ran in a container).
    const dir = tempDir("si-import-ws-native-")
    const native = path.join(dir, "native")
    fs.cpSync(path.join(fixturesDir, "muse-code", "native"), native, { recursive: true })
    fs.rmSync(path.join(native, "2026", "09", "26"), { recursive: true, force: true })
    const none = path.join(dir, "none")
    const args = (ws: string, db: string) => ["import", "--muse-root", native, "--workspace", ws, "--claude-root", none, "--agents-root", none, "--index", path.join(dir, db), "--json"]
    const causes = (r: { stdout: string }) => JSON.parse(r.stdout.trim().split("\n").pop()!).data.causes as Array<any>
    const data = (r: { stdout: string }) => JSON.parse(r.stdout.trim().split("\n").pop()!).data
    const first = cli(args("/workspace/demo", "i.db"), { env })
    expect(data(first).sessionsAdded).toBe(2)
    expect(causes(first).map((c) => c.code)).not.toContain("WORKSPACE_NOT_FOUND")
    expect(data(first)).not.toHaveProperty("workspacesFound")
    // A reused sequence appended to one log: that log is rejected (fail closed), and the workspace still named.
    const log = path.join(native, "2026", "09", "25", "22222222-2222-4222-8222-222222222222", "session.jsonl")
    const last = fs.readFileSync(log, "utf8").trimEnd().split("\n").pop()!
    fs.appendFileSync(log, last.replace('"sequence":9', '"sequence":3').replace("rec-2222-9", "rec-2222-x") + "\n")
    const second = causes(cli(args("/workspace/demo", "i.db"), { env }))
    expect(second.map((c) => c.code)).toContain("MALFORMED_SOURCE")
    expect(second.map((c) => c.code)).not.toContain("WORKSPACE_NOT_FOUND")
    // A mistyped workspace no log names is still a cause.
    const typo = causes(cli(args("/workspace/dem", "j.db"), { env }))
    expect(typo.find((c) => c.code === "WORKSPACE_NOT_FOUND")?.path).toBe("/workspace/dem")
  })

  it("a workspace from the config file is named with its key; an existing workspace changes nothing", () => {
    const dir = tempDir("si-import-ws-cfg-")
    const claude = path.join(dir, "claude")
    fs.mkdirSync(path.join(claude, "-p"), { recursive: true })
    const config = path.join(dir, "config.json")
    fs.writeFileSync(config, JSON.stringify({ workspaces: ["./gone"], agentsRoot: emptyAgents(dir), claudeRoot: claude }))
    const r = cli(["import", "--index", path.join(dir, "i.db"), "--config", config, "--json"], { env })
    expect(r.code).toBe(8)
    const data = JSON.parse(r.stdout.trim().split("\n").pop()!).data
    const cause = (data.causes as Array<any>).find((c) => c.code === "WORKSPACE_NOT_FOUND")
    expect(cause.remedy).toContain("workspaces")
    const ok = cli(["import", "--index", path.join(dir, "j.db"), "--claude-root", claude, "--agents-root", emptyAgents(dir), "--workspace", dir, "--json"], { env })
    expect(ok.code).toBe(0)
  })
})
