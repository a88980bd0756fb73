/**
 * tester19 F13: `--out -` is stdout (the Unix convention), not a file named
 * `-`; and `mcp`, whose stdout carries only the protocol and which has no
 * `--json`, refuses `--json` on stderr (exit 2), never with a JSON envelope on
 * stdout (docs/mcp.md: "Stdout carries only the protocol").
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "1" }
let dir = ""
let index = ""

beforeAll(() => {
  dir = tempDir("si-out-dash-")
  const sessions = path.join(dir, "agents", "a1", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  fs.writeFileSync(
    path.join(sessions, "a1.jsonl"),
    [
      { type: "session_header", session_id: "s-dash", agent_id: "a1", created_at: "2026-05-01T00:00:00Z" },
      { type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "hello" }, created_at: "2026-05-01T00:00:01Z" }
    ].map((r) => JSON.stringify(r) + "\n").join("")
  )
  index = path.join(dir, "i.db")
  const r = cli(["import", "--agents-root", path.join(dir, "agents"), "--index", index], { env })
  expect([0, 8], r.stderr).toContain(r.code)
})

describe("--out - and mcp --json", () => {
  it("export and replay with --out - write to stdout, as without --out, and leave no file named -", () => {
    for (const args of [["export", "s-dash", "--format", "ndjson"], ["export", "s-dash"], ["replay", "s-dash"]]) {
      const plain = cli([...args, "--index", index], { env, cwd: dir })
      const dash = cli([...args, "--index", index, "--out", "-"], { env, cwd: dir })
      expect(dash.code, dash.stderr).toBe(0)
      expect(plain.code, plain.stderr).toBe(0)
      expect(dash.stdout.length).toBeGreaterThan(0)
      // The same document (the replay page and the trajectory carry the time they were made: compared without it).
      const strip = (s: string) => s.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "T")
      expect(strip(dash.stdout)).toBe(strip(plain.stdout))
      expect(fs.existsSync(path.join(dir, "-"))).toBe(false)
    }
  })

  it("mcp --json: refused on stderr, exit 2, nothing on stdout", () => {
    const r = cli(["mcp", "--json", "--index", index], { env })
    expect(r.code).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toContain("INVALID_ARGUMENT")
    expect(r.stderr).toContain("--json")
  })
})
