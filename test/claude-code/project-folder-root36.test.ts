/**
 * `--claude-root` naming a folder that is not Claude Code's projects root read as "checked complete 0 sources", exit 0,
 * no diagnostic (tester36a F9). README "Where sessions are looked for": a root you name that turns out missing or empty
 * makes coverage partial (exit 8).
 * - One project's folder (its own entries are `<session-uuid>.jsonl` logs, beside a session's `<uuid>/subagents/`
 *   folder): `CLAUDE_ROOT_IS_PROJECT_FOLDER`, naming its parent, partial.
 * - A named root with folders but no session log in any of them, one of them not named as an encoded cwd
 *   (`--claude-root fixtures`, `~/code`): `CLAUDE_ROOT_EMPTY`, partial.
 * - Kept complete: a real projects root; one whose project folders (`-home-me-app`) are all empty (their logs removed by
 *   Claude Code's cleanup); the default root, whatever it holds.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { claudeTurnsLog } from "../support/claude-import.js"
import { cli } from "../support/run.js"
import { tempDir, withProcessAdapter } from "./helpers.js"

const SID = "bbbbbbbb-1111-4222-8333-444444444436"
const FIXTURES = nodePath.resolve("fixtures")
const AGENTS = nodePath.join(FIXTURES, "muse-agents", "agents")
const log = () => claudeTurnsLog(SID, [["user", "hi"], ["assistant", "hello"]], "2025-10-02T10:00:00Z")

/** `<dir>/projects/-home-me-app/<SID>.jsonl` with its `<SID>/subagents/agent-a1.jsonl`; returns the projects folder. */
const projectsRoot = (): string => {
  const projects = nodePath.join(tempDir("si-claude-f9-"), "projects")
  const app = nodePath.join(projects, "-home-me-app")
  fs.mkdirSync(nodePath.join(app, SID, "subagents"), { recursive: true })
  fs.writeFileSync(nodePath.join(app, `${SID}.jsonl`), log())
  fs.writeFileSync(nodePath.join(app, SID, "subagents", "agent-a1.jsonl"), "")
  return fs.realpathSync(projects)
}

const discover = (root: string, home = "/nonexistent-home") =>
  withProcessAdapter({ env: {}, home }, (a) => a.discover({}), root)

describe("--claude-root that is not the projects root (tester36a F9)", () => {
  it.effect("one project's folder (a session with subagents): CLAUDE_ROOT_IS_PROJECT_FOLDER, naming its parent, partial", () =>
    Effect.gen(function*() {
      const projects = projectsRoot()
      const app = nodePath.join(projects, "-home-me-app")
      const r = yield* discover(app)
      expect([r.status, r.coverage, r.sourceCount, r.reasonCode]).toEqual(["checked", "partial", 0, "CLAUDE_ROOT_IS_PROJECT_FOLDER"])
      expect(r.diagnostics.map((d) => d.code)).toEqual(["CLAUDE_ROOT_IS_PROJECT_FOLDER"])
      expect(r.diagnostics[0].message).toContain(`did you mean --claude-root ${projects}?`)
      expect(r.remediation).toContain(`--claude-root ${projects}`)
      // its parent, the projects root: the session, complete
      const right = yield* discover(projects)
      expect([right.coverage, right.sourceCount, right.reasonCode]).toEqual(["complete", 1, null])
    }))

  it.effect("a named root with folders and no session log anywhere (fixtures/, two empty folders): CLAUDE_ROOT_EMPTY, partial", () =>
    Effect.gen(function*() {
      const fx = yield* discover(FIXTURES)
      expect([fx.coverage, fx.sourceCount, fx.reasonCode]).toEqual(["partial", 0, "CLAUDE_ROOT_EMPTY"])
      expect(fx.diagnostics.map((d) => d.code)).toEqual(["CLAUDE_ROOT_EMPTY"])
      const w = tempDir("si-claude-f9-ab-")
      fs.mkdirSync(nodePath.join(w, "a"))
      fs.mkdirSync(nodePath.join(w, "b"))
      const ab = yield* discover(w)
      expect([ab.coverage, ab.sourceCount, ab.reasonCode]).toEqual(["partial", 0, "CLAUDE_ROOT_EMPTY"])
      expect(ab.diagnostics[0].message).toContain("holds 2 folders but no session log")
    }))

  it.effect("kept complete: a projects root whose project folders are empty; the default root holding a project's logs", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-f9-cleaned-")
      fs.mkdirSync(nodePath.join(root, "-home-me-app"))
      fs.mkdirSync(nodePath.join(root, "C--Users-me-app"))
      const cleaned = yield* discover(root)
      expect([cleaned.coverage, cleaned.sourceCount, cleaned.reasonCode, cleaned.diagnostics]).toEqual(["complete", 0, null, []])
      // The default root (~/.claude/projects) is never called a project folder: one holding a stray folder is complete.
      const home = tempDir("si-claude-f9-home-")
      const def = nodePath.join(home, ".claude", "projects")
      fs.mkdirSync(nodePath.join(def, "stray"), { recursive: true })
      const byDefault = yield* withProcessAdapter({ env: {}, home }, (a) => a.discover({}))
      expect([byDefault.coverage, byDefault.sourceCount, byDefault.reasonCode]).toEqual(["complete", 0, null])
      // A log of its own there is not read, and said so (tester36b F13; test/claude-code/log-in-projects-root37).
      fs.writeFileSync(nodePath.join(def, `${SID}.jsonl`), log())
      const withLog = yield* withProcessAdapter({ env: {}, home }, (a) => a.discover({}))
      expect([withLog.coverage, withLog.sourceCount, withLog.reasonCode]).toEqual(["partial", 0, "SOURCES_SKIPPED"])
      expect(withLog.diagnostics.map((d) => d.code)).toEqual(["CLAUDE_LOG_IN_PROJECTS_ROOT"])
    }))

  it("discover and import: exit 8 with the hint for a project folder and for fixtures/; exit 0 for the projects root", () => {
    const projects = projectsRoot()
    const app = nodePath.join(projects, "-home-me-app")
    const dir = tempDir("si-claude-f9-import-")
    const env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    const d = cli(["discover", "claude-code", "--claude-root", app], { env })
    expect(d.code, d.stderr + d.stdout).toBe(8)
    expect(d.stdout).toContain("CLAUDE_ROOT_IS_PROJECT_FOLDER")
    const imp = (root: string, index: string) => cli(["import", "--index", index, "--claude-root", root, "--agents-root", AGENTS], { env })
    const wrong = imp(app, nodePath.join(dir, "wrong.db"))
    expect(wrong.code, wrong.stderr + wrong.stdout).toBe(8)
    expect(wrong.stdout + wrong.stderr).toContain(`--claude-root ${projects}`)
    const fx = imp(FIXTURES, nodePath.join(dir, "fx.db"))
    expect(fx.code, fx.stderr + fx.stdout).toBe(8)
    expect(fx.stdout + fx.stderr).toContain("CLAUDE_ROOT_EMPTY")
    const right = imp(projects, nodePath.join(dir, "right.db"))
    expect(right.code, right.stderr + right.stdout).toBe(0)
  })
})
