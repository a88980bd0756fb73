/**
 * A session log lying in the Claude Code projects root itself (`projects/<session-uuid>.jsonl`, beside the project
 * folders) was passed over in silence: not read, not said, coverage complete (tester36b F13). Claude Code writes a
 * session's log in its project's folder (`<encoded-cwd>/<session-uuid>.jsonl`); one lying elsewhere under the root is
 * content the import does not hold, so it is said (`CLAUDE_LOG_IN_PROJECTS_ROOT`, naming the files), counted as
 * skipped, and coverage is partial (import exit 8), as every other skip under an authorized root.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { claudeTurnsLog } from "../support/claude-import.js"
import { cli } from "../support/run.js"
import { copyFixtures, S, tempDir, withProcessAdapter } from "./helpers.js"

const STRAY = ["aaaaaaaa-1111-4222-8333-444444444437", "cccccccc-1111-4222-8333-444444444437"]
const AGENTS = nodePath.resolve("fixtures", "muse-agents", "agents")

/** The fixture root (6 sessions in 2 project folders) with `n` stray logs in the root itself. */
const rootWithStrays = (n: number): string => {
  const root = fs.realpathSync(copyFixtures())
  for (const sid of STRAY.slice(0, n)) {
    fs.writeFileSync(nodePath.join(root, `${sid}.jsonl`), claudeTurnsLog(sid, [["user", "hi"], ["assistant", "hello"]], "2025-10-02T10:00:00Z"))
  }
  return root
}

const discover = (root: string) => withProcessAdapter({ env: {}, home: "/nonexistent-home" }, (a) => a.discover({}), root)

describe("session logs in the projects root itself (tester36b F13)", () => {
  it.effect("beside project folders: the sessions listed, the strays named and counted, coverage partial", () =>
    Effect.gen(function*() {
      const clean = yield* discover(rootWithStrays(0))
      expect([clean.coverage, clean.sourceCount, clean.reasonCode]).toEqual(["complete", 6, null])
      const root = rootWithStrays(2)
      const r = yield* discover(root)
      expect([r.status, r.coverage, r.sourceCount, r.reasonCode]).toEqual(["checked", "partial", 6, "SOURCES_SKIPPED"])
      expect(r.diagnostics.map((d) => d.code)).toEqual(["CLAUDE_LOG_IN_PROJECTS_ROOT"])
      const d = r.diagnostics[0]
      expect(d.details).toMatchObject({ count: 2, files: STRAY.map((s) => `${s}.jsonl`) })
      expect(d.message).toContain(`2 session logs lie in the projects root ${root} itself`)
      expect(d.message).toContain(`${STRAY[0]}.jsonl, ${STRAY[1]}.jsonl`)
      expect((r.receipts as Record<string, unknown>).skipped).toBe(2)
      expect(r.remediation).toContain("move it into its project's folder")
    }))

  it.effect("a fifo under a session log's name in the root: said (SOURCE_NOT_REGULAR_FILE) and counted, never opened (tester37 F3)", () =>
    Effect.gen(function*() {
      const root = rootWithStrays(0)
      const fifo = nodePath.join(root, `${STRAY[1]}.jsonl`)
      execFileSync("mkfifo", [fifo])
      const r = yield* discover(root)
      expect([r.coverage, r.sourceCount, r.reasonCode]).toEqual(["partial", 6, "SOURCES_SKIPPED"])
      expect(r.diagnostics.map((d) => d.code)).toEqual(["SOURCE_NOT_REGULAR_FILE"])
      expect(r.diagnostics[0].details).toMatchObject({ file: `${STRAY[1]}.jsonl` })
      expect((r.receipts as Record<string, unknown>).skipped).toBe(1)
    }))

  it("import: the six sessions imported, the stray said, exit 8 (partial); no write to the source", () => {
    const root = rootWithStrays(1)
    const before = fs.readFileSync(nodePath.join(root, `${STRAY[0]}.jsonl`))
    const dir = tempDir("si-claude-f13-")
    const env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    const r = cli(["import", "--index", nodePath.join(dir, "i.db"), "--claude-root", root, "--agents-root", AGENTS, "--json"], { env })
    expect(r.code, r.stderr + r.stdout).toBe(8)
    expect(r.stdout).toContain("CLAUDE_LOG_IN_PROJECTS_ROOT")
    const s = cli(["sessions", "--index", nodePath.join(dir, "i.db"), "--provider", "claude-code", "--json"], { env })
    expect(s.code, s.stderr).toBe(0)
    const ids = (JSON.parse(s.stdout) as { data: Array<{ sessionId: string }> }).data.map((x) => x.sessionId)
    // the six fixture sessions (and their two subagent sessions, listed as sessions of their own)
    expect(ids.filter((id) => /^[0-9a-f]{8}-/.test(id)).sort()).toEqual(Object.values(S).slice().sort())
    expect(ids).not.toContain(STRAY[0])
    expect(fs.readFileSync(nodePath.join(root, `${STRAY[0]}.jsonl`))).toEqual(before)
  })
})
