/**
 * tester32a F8: `usage --since/--until` leaves out the responses without a
 * time (their line's `timestamp` missing or not valid: a `timestamp-not-valid`
 * warning at import), as docs/usage-and-cost.md says a filter takes "the
 * responses whose time is at or after D" - but it says so: a
 * `no-time-left-out` note with their count, in `--json` and under the table.
 * Without a time filter they are rows of their own (`(no time)` by day), and
 * no note.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "./support/paths.js"
import { cli, cliJson } from "./support/run.js"

const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" }
const SID = "d6d6d6d6-0000-4000-8000-000000000001"

/** One assistant response of `input` input tokens, with `timestamp` (left out when undefined). */
const response = (id: string, timestamp: string | undefined, input: number) =>
  JSON.stringify({
    isSidechain: false, cwd: "/p", sessionId: SID, version: "2.1.14", parentUuid: null, type: "assistant", requestId: `req-${id}`, uuid: `a-${id}`,
    ...(timestamp !== undefined ? { timestamp } : {}),
    message: { model: "claude-sonnet-4-5", id: `msg_${id}`, type: "message", role: "assistant", content: [{ type: "text", text: "t" }], usage: { input_tokens: input, output_tokens: 0 } }
  })

const indexed = () => {
  const dir = tempDir("si-usage-notime-")
  const root = nodePath.join(dir, "projects")
  fs.mkdirSync(nodePath.join(root, "-p"), { recursive: true })
  // Two responses without a valid time (none; not a date), one on 2026-11-01.
  fs.writeFileSync(nodePath.join(root, "-p", `${SID}.jsonl`), [response("m1", undefined, 1000), response("m2", "garbage", 2000), response("m3", "2026-11-01T00:00:00Z", 3000)].join("\n") + "\n")
  const index = nodePath.join(dir, "idx.db")
  const r = cli(["import", "--claude-root", root, "--agents-root", root, "--index", index], { env })
  expect(r.code, r.stderr).toBe(0)
  return index
}

describe("usage with a time range says what it leaves out for having no time", () => {
  it("--since: the dated response only, and a note counts the 2 without a time", () => {
    const index = indexed()
    const all = cliJson(["usage", "--by", "day", "--index", index], env).data as { rows: Array<{ key: string | null; inputTokens: number }>; notes: Array<{ kind: string }> }
    expect(all.rows.map((r) => [r.key, r.inputTokens])).toEqual([["2026-11-01", 3000], [null, 3000]])
    expect(all.notes.filter((n) => n.kind === "no-time-left-out")).toEqual([])
    for (const range of [["--since", "2000-01-01"], ["--until", "2099-12-31"]]) {
      const since = cliJson(["usage", "--by", "day", ...range, "--index", index], env).data as { rows: Array<{ key: string | null }>; total: { inputTokens: number }; notes: Array<unknown> }
      expect(since.rows.map((r) => r.key)).toEqual(["2026-11-01"])
      expect(since.total.inputTokens).toBe(3000)
      expect(since.notes).toContainEqual({ kind: "no-time-left-out", responses: 2 })
      const table = cli(["usage", "--by", "day", ...range, "--index", index], { env })
      expect(table.code, table.stderr).toBe(0)
      expect(table.stdout).toContain("note: 2 responses without a time (the line's timestamp was not valid) are outside every --since / --until range")
    }
  })

  it("no note when the other filters keep none of them", () => {
    const index = indexed()
    const other = cliJson(["usage", "--since", "2000-01-01", "--provider", "muse-agents", "--index", index], env).data as { notes: Array<{ kind: string }> }
    expect(other.notes.filter((n) => n.kind === "no-time-left-out")).toEqual([])
  })
})
