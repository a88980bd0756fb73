/**
 * claude-code subagent files that are not their agent's transcript (tester15
 * F10). A subagent file `agent-<id>.jsonl` is the transcript of the agent its
 * name gives; its records name that agent (`agentId`), and the parent links
 * it by that id (`toolUseResult.agentId`, the meta file's `toolUseId`).
 * - a stray copy whose name gives another id (`agent-A7C3….jsonl`, a copy of
 *   `agent-a7c3….jsonl`, its records naming `a7c3…`) is not read: it takes
 *   neither the events nor the usage of the real subagent, and it is counted
 *   (`subagent-id-mismatch`) with a PARSE_WARNING naming the file;
 * - a 0-byte or all-NUL subagent file is counted (`subagent-file-empty`);
 * - a line that is just `{}` (no record type) is counted as `invalid-record`
 *   like the other lines that are no record (a record of an unknown type
 *   stays skipped silently: forward compatible).
 * Expected values are worked out from the files written here.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { classifyLine } from "../../src/domain/claude-code/records.js"
import { cli } from "../support/run.js"
import { tempDir } from "./helpers.js"

const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" }
const SID = "a7c30000-1111-4000-8000-00000000000f"
const AGENT = "a7c3d1e2f3"
const STRAY = "A7C3D1E2F3"
const j = (v: unknown) => JSON.stringify(v)
const base = { sessionId: SID, cwd: "/x", version: "2.1.14" }

const setup = () => {
  const root = tempDir("si-claude-strays-")
  const file = nodePath.join(root, "-x", `${SID}.jsonl`)
  fs.mkdirSync(nodePath.dirname(file), { recursive: true })
  fs.writeFileSync(file, [
    j({ ...base, type: "user", uuid: "u1", parentUuid: null, isSidechain: false, timestamp: "2026-01-01T00:00:00Z", message: { role: "user", content: "delegate it" } }),
    j({
      ...base, type: "assistant", uuid: "a1", parentUuid: "u1", isSidechain: false, timestamp: "2026-01-01T00:00:01Z", requestId: "req_main",
      message: { id: "msg_main", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "tool_use", id: "toolu_1", name: "Task", input: { description: "look", prompt: "look around" } }], usage: { input_tokens: 1, output_tokens: 2 } }
    }),
    "{}",
    j({
      ...base, type: "user", uuid: "u2", parentUuid: "a1", isSidechain: false, timestamp: "2026-01-01T00:00:09Z", toolUseResult: { agentId: AGENT, status: "completed" },
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "done" }] }
    })
  ].join("\n") + "\n")
  const dir = nodePath.join(root, "-x", SID, "subagents")
  fs.mkdirSync(dir, { recursive: true })
  const sub = [
    j({ ...base, type: "user", agentId: AGENT, isSidechain: true, uuid: "s1", parentUuid: null, timestamp: "2026-01-01T00:00:02Z", message: { role: "user", content: "look around" } }),
    j({
      ...base, type: "assistant", agentId: AGENT, isSidechain: true, uuid: "s2", parentUuid: "s1", timestamp: "2026-01-01T00:00:03Z", requestId: "req_sub",
      message: { id: "msg_sub", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "looked" }], usage: { input_tokens: 100, output_tokens: 200 } }
    })
  ].join("\n") + "\n"
  fs.writeFileSync(nodePath.join(dir, `agent-${AGENT}.jsonl`), sub)
  fs.writeFileSync(nodePath.join(dir, `agent-${AGENT}.meta.json`), j({ agentType: "general-purpose", description: "look", toolUseId: "toolu_1" }))
  // The stray copy: another name, the same records (naming AGENT).
  fs.writeFileSync(nodePath.join(dir, `agent-${STRAY}.jsonl`), sub)
  fs.writeFileSync(nodePath.join(dir, "agent-e0.jsonl"), "")
  fs.writeFileSync(nodePath.join(dir, "agent-n0.jsonl"), Buffer.alloc(4096))
  return { root, file }
}

type Items = Array<{ provider: string; path: string; kind: string; count: number; firstLine: number | null }>

describe("claude-code: subagent files that are not their agent's transcript", () => {
  it("a line `{}` is an invalid record (counted); a record of an unknown type stays skipped silently", () => {
    expect(classifyLine({ text: "{}", lineNumber: 1, terminated: true }, 64)).toEqual({ _tag: "LineWarning", kind: "invalid-record" })
    expect(classifyLine({ text: j({ type: 7 }), lineNumber: 1, terminated: true }, 64)).toEqual({ _tag: "LineWarning", kind: "invalid-record" })
    expect(classifyLine({ text: j({ type: "file-history-snapshot", snapshot: {} }), lineNumber: 1, terminated: true }, 64)._tag).toBe("Ignored")
  })

  it("import: the real subagent keeps its link and its usage; the copy is left out and counted; empty files are counted; on an unchanged run too", () => {
    const { file, root } = setup()
    const dir = tempDir()
    const index = nodePath.join(dir, "idx.db")
    const args = ["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(dir, "none"), "--muse-root", nodePath.join(dir, "none"), "--workspace", dir]
    for (const round of ["first", "unchanged"]) {
      const out = cli([...args, "--json"], { env })
      expect([0, 8], round).toContain(out.code)
      const data = JSON.parse(out.stdout).data
      expect(data.parseWarnings.byKind, round).toMatchObject({ "invalid-record": 1, "subagent-id-mismatch": 1, "subagent-file-empty": 2 })
      const items = (data.parseWarnings.items as Items).filter((i) => i.path === file)
      const byKind = new Map<string, number>()
      for (const i of items) byKind.set(i.kind, (byKind.get(i.kind) ?? 0) + i.count)
      expect([...byKind].sort(), round).toEqual([["invalid-record", 1], ["subagent-file-empty", 2], ["subagent-id-mismatch", 1]])
      // The two subagent kinds count whole files left out, not lines: one line skipped (the `{}`), three files.
      expect({ lines: data.parseWarnings.lines, files: data.parseWarnings.files }, round).toEqual({ lines: 1, files: 3 })
    }
    // The report for people says files for the file kinds, lines for the line kinds.
    const text = cli(args, { env })
    expect(text.stderr + text.stdout).toMatch(
      /parse warnings: 1 line skipped in 1 source \(invalid-record 1\); the rest of each source was read; 3 subagent files left out \(subagent-id-mismatch 1: [^;]*another agent[^;]*; subagent-file-empty 2: [^)]*nothing/
    )
    expect(text.stderr + text.stdout).not.toMatch(/lines? skipped in \d+ sources? \([^)]*subagent-/)
    const sessions = JSON.parse(cli(["sessions", "--index", index, "--json"], { env }).stdout).data as Array<any>
    expect(sessions.map((s) => s.sessionId).sort()).toEqual([SID, `agent-${AGENT}`])
    const sub = sessions.find((s) => s.sessionId === `agent-${AGENT}`)
    expect(sub.usage).toMatchObject({ inputTokens: 100, outputTokens: 200 })
    const usage = JSON.parse(cli(["usage", "--by", "session", "--index", index, "--json"], { env }).stdout).data
    expect(usage.total).toMatchObject({ inputTokens: 101, outputTokens: 202, responses: 2 })
    // inspect names the copy and the empty files.
    const inspect = JSON.parse(cli(["inspect", "claude-code", file, "--claude-root", root, "--json"], { env }).stdout).data
    const messages = (inspect.diagnostics as Array<{ code: string; message: string; details?: { kind?: string } }>).filter((d) => d.code === "PARSE_WARNING")
    expect(messages.find((d) => d.details?.kind === "subagent-id-mismatch")?.message).toMatch(new RegExp(`agent-${STRAY}\\.jsonl.*${AGENT}`))
    expect(messages.filter((d) => d.details?.kind === "subagent-file-empty").map((d) => d.message).join("\n")).toMatch(/agent-e0\.jsonl[\s\S]*agent-n0\.jsonl/)
  })
})
