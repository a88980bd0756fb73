/**
 * `--claude-root ~/.claude` (Claude Code's config folder, not its `projects/`) found nothing and said complete
 * (tester27a F5). A root that holds a `projects/` folder and no session log of its own is said
 * (`CLAUDE_ROOT_IS_CONFIG_DIR`, naming `<root>/projects`) and partial; nothing under `<root>/projects` is read (only
 * the root named is authorized). A projects folder that happens to hold a project named `projects` beside sessions,
 * or the real projects folder, is not flagged.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { claudeTurnsLog } from "../support/claude-import.js"
import { cli } from "../support/run.js"
import { tempDir, withProcessAdapter } from "./helpers.js"

const SID = "aaaaaaaa-1111-4222-8333-444444444427"

/** A Claude config folder `<dir>/dotclaude` with one session log at `projects/-tmp-proj/<SID>.jsonl` (and other config folders). */
const configFolder = (): string => {
  const dot = nodePath.join(tempDir("si-dotclaude-"), "dotclaude")
  fs.mkdirSync(nodePath.join(dot, "projects", "-tmp-proj"), { recursive: true })
  fs.mkdirSync(nodePath.join(dot, "todos"))
  fs.writeFileSync(nodePath.join(dot, "settings.json"), "{}")
  fs.writeFileSync(nodePath.join(dot, "projects", "-tmp-proj", `${SID}.jsonl`), claudeTurnsLog(SID, [["user", "hi"], ["assistant", "hello"]], "2025-10-02T10:00:00Z"))
  return fs.realpathSync(dot)
}

describe("--claude-root naming Claude Code's config folder (tester27a F5)", () => {
  it.effect("discovery says CLAUDE_ROOT_IS_CONFIG_DIR, naming <root>/projects, partial, and lists nothing from it", () =>
    Effect.gen(function*() {
      const dot = configFolder()
      const r = yield* withProcessAdapter({ env: {}, home: "/nonexistent-home" }, (a) => a.discover({}), dot)
      expect([r.status, r.coverage, r.sourceCount, r.reasonCode]).toEqual(["checked", "partial", 0, "CLAUDE_ROOT_IS_CONFIG_DIR"])
      expect(r.diagnostics.map((d) => d.code)).toEqual(["CLAUDE_ROOT_IS_CONFIG_DIR"])
      expect(r.diagnostics[0].message).toContain(`--claude-root ${nodePath.join(dot, "projects")}`)
      expect(r.remediation).toContain(`--claude-root ${nodePath.join(dot, "projects")}`)
      // the projects folder itself: its session, complete
      const right = yield* withProcessAdapter({ env: {}, home: "/nonexistent-home" }, (a) => a.discover({}), nodePath.join(dot, "projects"))
      expect([right.coverage, right.sourceCount, right.reasonCode]).toEqual(["complete", 1, null])
    }))

  it.effect("a projects folder with sessions and a project folder named `projects` is not flagged", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-projects-")
      fs.mkdirSync(nodePath.join(root, "projects"))
      fs.mkdirSync(nodePath.join(root, "-srv"))
      fs.writeFileSync(nodePath.join(root, "-srv", `${SID}.jsonl`), claudeTurnsLog(SID, [["user", "hi"], ["assistant", "hello"]], "2025-10-02T10:00:00Z"))
      const r = yield* withProcessAdapter({ env: {}, home: "/nonexistent-home" }, (a) => a.discover({}), root)
      expect([r.coverage, r.sourceCount, r.reasonCode]).toEqual(["complete", 1, null])
    }))

  it("import says it too: exit 8 (partial), the hint on stderr, nothing imported", () => {
    const dot = configFolder()
    const dir = tempDir("si-dotclaude-import-")
    const env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    const index = nodePath.join(dir, "index.db")
    const r = cli(["import", "--index", index, "--claude-root", dot, "--agents-root", nodePath.join(dir, "none")], { env })
    expect(r.code, r.stderr + r.stdout).toBe(8)
    expect(r.stdout + r.stderr).toContain(nodePath.join(dot, "projects"))
    const listed = cli(["sessions", "--index", index, "--json"], { env })
    expect(JSON.parse(listed.stdout).data).toEqual([])
  })
})
