/**
 * claude-code: a malformed `agent-<id>.meta.json` is told by `import` too,
 * not only by `inspect` (tester report after session 10): the import
 * report's parse warnings list it (`subagent-meta-not-valid`, kept: the
 * subagent's events are imported), on the run that reads the session and on
 * a later run that finds it unchanged; the session's own line warnings are
 * listed beside it.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { tempDir } from "./helpers.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }
const SID = "eeeeeeee-1111-4000-8000-00000000000e"

const setup = (): { root: string; file: string } => {
  const root = tempDir("si-claude-meta-import-")
  const file = nodePath.join(root, "-x", `${SID}.jsonl`)
  fs.mkdirSync(nodePath.dirname(file), { recursive: true })
  fs.writeFileSync(
    file,
    JSON.stringify({ type: "user", sessionId: SID, uuid: "u1", cwd: "/x", timestamp: "2026-01-01T00:00:00Z", message: { role: "user", content: "go" } }) + "\n" +
      "{not json\n"
  )
  const dir = nodePath.join(root, "-x", SID, "subagents")
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(
    nodePath.join(dir, "agent-a1.jsonl"),
    JSON.stringify({ type: "user", sessionId: SID, agentId: "a1", isSidechain: true, uuid: "s1", timestamp: "2026-01-01T00:00:01Z", message: { role: "user", content: "sub prompt" } }) + "\n"
  )
  fs.writeFileSync(nodePath.join(dir, "agent-a1.meta.json"), "{not json")
  return { root, file }
}

type Items = Array<{ provider: string; path: string; kind: string; count: number; firstLine: number | null }>

describe("claude-code: a malformed subagent meta.json in the import report", () => {
  it("is listed as a parse warning (kept, not skipped), on the first run and on an unchanged one", () => {
    const { file, root } = setup()
    const dir = tempDir()
    const index = nodePath.join(dir, "idx.db")
    const args = ["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(dir, "none"), "--muse-root", nodePath.join(dir, "none"), "--workspace", dir]
    for (const round of ["first", "unchanged"]) {
      const json = cli([...args, "--json"], { env })
      expect([0, 8], round).toContain(json.code)
      const data = JSON.parse(json.stdout).data
      if (round === "first") expect(data.sources.accepted, round).toBe(1)
      else expect(data.sources.unchanged, round).toBe(1)
      const items = (data.parseWarnings.items as Items).filter((i) => i.provider === "claude-code")
      expect(items.map((i) => [i.path, i.kind, i.count]).sort(), round).toEqual([
        [file, "malformed-json", 1],
        [file, "subagent-meta-not-valid", 1]
      ])
      expect(data.parseWarnings.byKind["subagent-meta-not-valid"], round).toBe(1)
      const text = cli(args, { env })
      expect(text.stdout, round).toMatch(/subagent-meta-not-valid 1/)
      // the malformed line is skipped; the subagent's meta is not a skipped line
      expect(text.stdout, round).toMatch(/1 line skipped/)
      expect(text.stdout, round).not.toMatch(/2 lines skipped/)
    }
    // the subagent's events were imported
    const s = cli(["search", "sub prompt", "--index", index, "--json"], { env })
    expect(s.code).toBe(0)
    expect((JSON.parse(s.stdout).data.hits as Array<unknown>).length).toBeGreaterThan(0)
  })
})
