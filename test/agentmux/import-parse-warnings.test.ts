/**
 * The import report lists AgentMux's parse warnings (docs/index.md, "Parse
 * warnings": "each source's parseWarnings, for every source the run
 * discovered, imported or unchanged"; "Token counts that are not valid": the
 * import report says so, Claude Code and AgentMux). AgentMux's discovery reads
 * no session's lines (it scans the record), so what a session's lines hold is
 * known once the session is read: its skipped lines (`unreadable-line`) and
 * lines kept without usage (`usage-not-valid`) are counted for the whole
 * session, in the run that reads it and in every later run that finds it
 * unchanged; they do not make coverage partial and are no provider
 * diagnostics.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { USAGE_NOT_VALID } from "../../src/domain/usage.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { importOnce } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { layout } from "./fixture.js"
import { appendBytes, createStore, tsidxRecord, withStore } from "./store-helper.js"

const j = (v: unknown) => JSON.stringify(v)
const U = (i: unknown, o: unknown) => ({ input_tokens: i, output_tokens: o })
const init = (sid: string) => j({ type: "system", subtype: "init", cwd: "/home/dev/x", session_id: sid, model: "claude-sonnet-4-5", tools: [] })
const user = (sid: string, text: string) => j({ type: "user", message: { role: "user", content: text }, session_id: sid })
const answer = (sid: string, id: string, u: unknown) =>
  j({ type: "assistant", message: { id, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: `answer ${id}` }], usage: u }, session_id: sid })

const ZONE = "agent:u1:current"

/** A store whose current zone holds `texts`, one line each, with their receive times. */
const store = (texts: ReadonlyArray<string>) => {
  const dir = tempDir("si-am-import-warnings-")
  const path = nodePath.join(dir, "filestore.db")
  const laid = layout(texts)
  const tsidx = laid.lines.map((l, i) => tsidxRecord(l.start, Date.UTC(2026, 0, 1, 12) + i)).join("")
  createStore(path, [
    { zoneId: ZONE, name: "output", bytes: laid.bytes, createdTs: 1_700_000_000_000 },
    { zoneId: ZONE, name: "output.tsidx", bytes: Buffer.from(tsidx) }
  ])
  fs.mkdirSync(nodePath.join(dir, "agents", "nobody"), { recursive: true })
  const policy = { workspaceRoots: [], museRoots: [], agentsRoot: nodePath.join(dir, "agents"), agentmuxStore: path, stateFile: nodePath.join(dir, "state.db") }
  return { dir, path, policy, index: nodePath.join(dir, "index.db"), bytes: laid.bytes.length }
}

// S-A: two lines that are no JSON object inside its run (lines 3 and 5 of the session), one answer with counts
// that are not valid (line 6); S-B: clean.
const LINES = [
  init("S-A"),
  user("S-A", "go"),
  "{not json at all",
  answer("S-A", "m1", U(3, 4)),
  "[1, 2, 3]",
  answer("S-A", "m2", U(-5, 1e308)),
  init("S-B"),
  user("S-B", "go"),
  answer("S-B", "m3", U(1, 1))
]

const warningsOf = (report: { readonly parseWarnings: { readonly items: ReadonlyArray<{ provider: string; kind: string; count: number; firstLine: number | null }> } }) =>
  report.parseWarnings.items.filter((i) => i.provider === "agentmux").map((i) => [i.kind, i.count, i.firstLine] as const).sort()

describe("import: AgentMux's parse warnings are in the report", () => {
  it.effect("first import, unchanged re-import, then after an append: the whole session's counts each time; coverage complete", () =>
    Effect.gen(function*() {
      const s = store(LINES)
      const plan = planFromPolicy(s.policy, { agents: ["u1"] })
      const first = yield* importOnce(s.policy, s.index, plan)
      expect(first.sources.accepted).toBe(2)
      const expected = [["unreadable-line", 2, 3], [USAGE_NOT_VALID, 1, 6]].sort()
      expect(warningsOf(first)).toEqual(expected)
      expect(first.parseWarnings.sources).toBe(1)
      expect(first.parseWarnings.lines).toBe(3)
      expect(first.parseWarnings.byKind).toMatchObject({ "unreadable-line": 2, [USAGE_NOT_VALID]: 1 })
      const am = first.providers.find((p) => p.provider === "agentmux")!
      expect(am.coverage).toBe("complete")
      expect(am.diagnostics.map((d) => d.code)).not.toContain("PARSE_WARNING")
      expect(first.coverage).toBe("complete")

      const again = yield* importOnce(s.policy, s.index, plan)
      expect(again.sources.unchanged).toBe(2)
      expect(warningsOf(again)).toEqual(expected)
      expect(again.coverage).toBe("complete")

      // S-A goes on: one more unreadable line and one more answer; its counts are the whole session's again.
      withStore(s.path, (db) => appendBytes(db, ZONE, "output", Buffer.from(`<<garbage>>\n${answer("S-A", "m4", U(2, 2))}\n`)))
      const grown = yield* importOnce(s.policy, s.index, plan)
      // (S-B is read again too: AgentMux's sources of one record share the record's fingerprint; it adds nothing.)
      expect(grown.eventsAdded).toBe(1)
      expect(warningsOf(grown)).toEqual([["unreadable-line", 3, 3], [USAGE_NOT_VALID, 1, 6]].sort())
      expect(grown.coverage).toBe("complete")
    }))

  it("the CLI's import report says so, in text and in --json", () => {
    const s = store(LINES)
    const args = ["import", "--store", s.path, "--state", s.policy.stateFile, "--agents-root", s.policy.agentsRoot, "--agent", "u1", "--index", s.index]
    const json = cli([...args, "--json"], { env: { NO_COLOR: "1" } })
    expect(json.code).toBe(0)
    const data = JSON.parse(json.stdout.trim().split("\n").pop()!).data
    expect(data.parseWarnings.lines).toBe(3)
    expect(data.parseWarnings.byKind).toEqual({ "unreadable-line": 2, [USAGE_NOT_VALID]: 1 })
    const text = cli(args, { env: { NO_COLOR: "1" } })
    expect(text.code).toBe(0)
    expect(text.stdout + text.stderr).toMatch(/parse warnings: 2 lines skipped in 1 source \(unreadable-line 2\); the rest of each source was read; 1 line kept without usage \(usage-not-valid 1: a token count or cost not valid\)/)
  })
})
