/**
 * `discover muse-agents`: one summary per session, with the exact values the
 * seed 000 rules give on the fixture agents root (worked out by hand from
 * `fixtures/muse-agents/generate.py`, whose comments number the lines).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { DiscoveredSource } from "../../src/domain/model.js"
import {
  copyFixtures,
  FIXTURE_ROOT,
  jl,
  removeDir,
  tempDir,
  transcriptPath,
  withAdapter,
  withProcessAdapter,
  writeTranscript
} from "./helpers.js"

const temps: Array<string> = []
afterAll(() => temps.forEach(removeDir))

const discover = (root: string) => withAdapter(root, (a) => a.discover({}))
const byAgent = (sources: ReadonlyArray<DiscoveredSource>, agent: string) =>
  sources.find((s) => s.locator.agentId === agent)

describe("discover muse-agents", () => {
  it.effect("lists exactly the sessions with a header and prompts or tool calls, in folder order", () =>
    Effect.gen(function*() {
      const r = yield* discover(FIXTURE_ROOT)
      expect(r.provider).toBe("muse-agents")
      expect(r.status).toBe("checked")
      expect(r.coverage).toBe("complete")
      expect(r.sourceCount).toBe(3)
      // headless: no session_header (absent); quiet: no prompts, no tool calls (absent)
      expect(r.sources.map((s) => s.locator.agentId)).toEqual(["cron-first", "delegate", "messy"])
      expect(r.receipts).toMatchObject({
        agentFolders: 5,
        transcriptsRead: 5,
        listed: 3,
        withoutHeader: 1,
        withoutPromptsOrToolCalls: 1,
        skipped: 0,
        rootOrigin: "option"
      })
    }))

  it.effect("a session that starts with a cron prompt: directives counted, skipped for firstPrompt and title", () =>
    Effect.gen(function*() {
      const r = yield* discover(FIXTURE_ROOT)
      const s = byAgent(r.sources, "cron-first")!
      const path = fs.realpathSync(transcriptPath("cron-first"))
      expect(s.sessionId).toBe("sess-cron")
      expect(s.locator).toEqual({ locatorClass: "muse-agent-transcript", path, agentId: "cron-first", sessionId: "sess-cron" })
      expect(s.sourceId).toMatch(/^sha256:[0-9a-f]{64}$/)
      expect(s.summary).toEqual({
        provider: "muse-agents",
        sessionId: "sess-cron",
        agentId: "cron-first",
        locator: path,
        // line 2 (scheduler.cron) and line 4 (runtime.feed) are directives, line 5 is the first interactive prompt
        title: "Please fix the flaky login test in the auth suite",
        firstPrompt: "Please fix the flaky login test\nin the auth suite",
        // line 16 ([Subagent Context]) is skipped; line 17 is the second
        firstPrompts: ["Please fix the flaky login test\nin the auth suite", "Now update the changelog"],
        // user messages on lines 2, 4, 5, 16, 17 (the developer message on line 3 is not one)
        promptCount: 5,
        // exec, edit, write, memory_search, read, subagent.spawn
        toolCallCount: 6,
        // Edit (edit) and Write (write)
        editCount: 2,
        compactionCount: 1,
        model: "muse-large-2",
        startedAt: "2025-03-01T08:00:00.000Z",
        updatedAt: "2025-03-01T09:30:00.000Z",
        updatedAtFrom: "sessions-index",
        sizeBytes: fs.statSync(path).size,
        lineCount: 24,
        parseWarningCount: 0,
        parseWarnings: [],
        // the call-ghost output on line 23
        orphanOutputCount: 1,
        diagnostics: [{ kind: "orphan-tool-output", count: 1, firstLine: 23 }],
        sessionsIndex: "found"
      })
      // The same facts, typed (contract 1.1.0): what the index, sessions and show read. No workspace in seed 000.
      expect(s.overview).toEqual({
        sessionId: "sess-cron",
        title: "Please fix the flaky login test in the auth suite",
        workspace: null,
        firstActivityAt: "2025-03-01T08:00:00.000Z",
        lastActivityAt: "2025-03-01T09:30:00.000Z",
        model: "muse-large-2",
        counts: { prompts: 5, toolCalls: 6, runs: null, lines: 24 },
        parseWarnings: [],
        diagnostics: [{ kind: "orphan-tool-output", count: 1, firstLine: 23 }]
      })
    }))

  it.effect("a subagent-context-only session with tool calls stays listed, with no title", () =>
    Effect.gen(function*() {
      const r = yield* discover(FIXTURE_ROOT)
      const s = byAgent(r.sources, "delegate")!
      expect(s.summary).toMatchObject({
        sessionId: "sess-delegate",
        title: null,
        firstPrompt: null,
        firstPrompts: [],
        promptCount: 1,
        toolCallCount: 1,
        editCount: 0,
        compactionCount: 0,
        model: null,
        // epoch-ms created_at 1740816000000 and, last record, 1740816004000
        startedAt: "2025-03-01T08:00:00.000Z",
        updatedAt: "2025-03-01T08:00:04.000Z",
        updatedAtFrom: "last-record",
        lineCount: 5,
        parseWarningCount: 0,
        sessionsIndex: "absent"
      })
    }))

  it.effect("a file of messy lines: warnings counted, good lines kept; a null sessions.json is tolerated", () =>
    Effect.gen(function*() {
      const r = yield* discover(FIXTURE_ROOT)
      const s = byAgent(r.sources, "messy")!
      expect(s.summary).toMatchObject({
        sessionId: "sess-messy",
        title: "first line second line",
        firstPrompt: "first line\u2028second line",
        firstPrompts: ["first line\u2028second line", "para one\u2029para two"],
        promptCount: 2,
        toolCallCount: 1,
        editCount: 0,
        model: null,
        startedAt: "2025-03-02T08:00:00.000Z",
        updatedAt: "2025-03-02T08:00:08.000Z",
        updatedAtFrom: "last-record",
        lineCount: 13,
        parseWarningCount: 6,
        parseWarnings: [
          { kind: "non-object", count: 2, firstLine: 3 },
          { kind: "malformed-json", count: 1, firstLine: 5 },
          { kind: "invalid-record", count: 1, firstLine: 8 },
          { kind: "duplicate-header", count: 1, firstLine: 9 },
          { kind: "truncated-line", count: 1, firstLine: 13 }
        ],
        // Not a line: a diagnostic, not a parse warning (issue 11, item 12).
        diagnostics: [{ kind: "sessions-index-not-object", count: 1, firstLine: null }],
        sessionsIndex: "ignored"
      })
      // The transcripts seed 000 leaves out are named too, in folder order (issue 11, item 6).
      expect(r.diagnostics).toEqual([
        {
          code: "SESSION_OMITTED",
          message: "headless/sessions/headless.jsonl is not listed: it has no session_header record with a session_id (a non-empty string), so it is not a session (seed 000).",
          details: { agentId: "headless", reason: "no-session-header" }
        },
        {
          code: "SESSIONS_INDEX_IGNORED",
          message: "messy/sessions/sessions.json was ignored (sessions-index-not-object); model and updatedAt come from the transcript.",
          details: { agentId: "messy", kind: "sessions-index-not-object" }
        },
        {
          code: "SESSION_OMITTED",
          message: "quiet/sessions/quiet.jsonl is not listed: it has neither prompts nor tool calls (seed 000).",
          details: { agentId: "quiet", reason: "no-prompts-or-tool-calls" }
        }
      ])
    }))

  it.effect("updatedAt falls back to the file's mtime when no record has a time", () =>
    Effect.gen(function*() {
      const root = nodePath.join(tempDir(), "agents")
      temps.push(nodePath.dirname(root))
      const p = writeTranscript(root, "a1", jl({ type: "session_header", session_id: "s1" }) +
        jl({ type: "item", source: "runtime", item: { type: "message", role: "user", text: "hi" } }))
      const mtime = new Date("2024-06-01T12:00:00.000Z")
      fs.utimesSync(p, mtime, mtime)
      const r = yield* discover(root)
      expect(r.sources[0].summary).toMatchObject({ startedAt: null, updatedAt: "2024-06-01T12:00:00.000Z", updatedAtFrom: "file-mtime" })
    }))

  it.effect("a missing root lists nothing, with a diagnostic, and is not an error", () =>
    Effect.gen(function*() {
      const missing = nodePath.join(tempDir(), "no-such-agents")
      temps.push(nodePath.dirname(missing))
      const r = yield* discover(missing)
      expect(r.status).toBe("unavailable")
      expect(r.sourceCount).toBe(0)
      expect(r.sources).toEqual([])
      expect(r.reasonCode).toBe("AGENTS_ROOT_NOT_FOUND")
      expect(r.diagnostics.map((d) => d.code)).toEqual(["AGENTS_ROOT_NOT_FOUND"])
    }))

  it.effect("the root comes from $MUSE_AGENTS_DIR, else ~/agents, when --agents-root is absent", () =>
    Effect.gen(function*() {
      const fromEnv = yield* withProcessAdapter({ env: { MUSE_AGENTS_DIR: FIXTURE_ROOT }, home: "/nonexistent-home" }, (a) => a.discover({}))
      expect(fromEnv.sourceCount).toBe(3)
      expect(fromEnv.receipts).toMatchObject({ rootOrigin: "env" })
      const home = tempDir()
      temps.push(home)
      fs.cpSync(FIXTURE_ROOT, nodePath.join(home, "agents"), { recursive: true })
      const fromHome = yield* withProcessAdapter({ env: {}, home }, (a) => a.discover({}))
      expect(fromHome.sourceCount).toBe(3)
      expect(fromHome.receipts).toMatchObject({ rootOrigin: "default", agentsRoot: fs.realpathSync(nodePath.join(home, "agents")) })
      const none = yield* withProcessAdapter({ env: {}, home: nodePath.join(home, "nope") }, (a) => a.discover({}))
      expect(none.status).toBe("unavailable")
    }))

  it.effect("symlinked agent folders and transcripts are reported, never followed", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      temps.push(nodePath.dirname(root))
      fs.symlinkSync(nodePath.join(root, "delegate"), nodePath.join(root, "linked"))
      fs.mkdirSync(nodePath.join(root, "ln2", "sessions"), { recursive: true })
      fs.symlinkSync(transcriptPath("delegate", root), transcriptPath("ln2", root))
      const r = yield* discover(root)
      expect(r.sources.map((s) => s.locator.agentId)).toEqual(["cron-first", "delegate", "messy"])
      expect(r.coverage).toBe("partial")
      expect(r.reasonCode).toBe("SOURCES_SKIPPED")
      expect(r.diagnostics.filter((d) => d.code === "SYMLINK_SKIPPED").map((d) => d.details)).toEqual([
        { agentId: "linked" },
        { agentId: "ln2" }
      ])
    }))

  it.effect("a non-object sessions.json of another shape (array) is ignored with a diagnostic", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      temps.push(nodePath.dirname(root))
      fs.writeFileSync(nodePath.join(root, "cron-first", "sessions", "sessions.json"), "[1,2]")
      const r = yield* discover(root)
      const s = r.sources.find((x) => x.sessionId === "sess-cron")!
      expect(s.summary).toMatchObject({ model: null, updatedAt: "2025-03-01T08:02:08.000Z", updatedAtFrom: "last-record", sessionsIndex: "ignored" })
      expect(r.diagnostics.map((d) => d.details)).toContainEqual({ agentId: "cron-first", kind: "sessions-index-not-object" })
    }))
})
