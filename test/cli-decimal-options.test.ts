/**
 * tester19 F3: the counts a user types (`sessions --limit`, `search --limit`,
 * `show --context`, `stream --limit`) are whole numbers in decimal digits,
 * as `import --jobs` already was: `0x2`, `0b11`, `0o7`, `1e3`, `1.5`, `+2`,
 * ` 3`, `1_0` are INVALID_ARGUMENT (exit 2) naming the option and the value
 * given, not read as 2, 3, 7 or 1000 (`--limit 1e3` silently meant 1000).
 * Decimal digits are taken as before.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "1" }
let index = ""
let log = ""
let agents = ""

beforeAll(() => {
  const dir = tempDir("si-decimal-")
  agents = path.join(dir, "agents")
  const sessions = path.join(agents, "a1", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  log = path.join(sessions, "a1.jsonl")
  const lines = [{ type: "session_header", session_id: "s-dec", agent_id: "a1", created_at: "2026-05-01T00:00:00Z" }] as Array<unknown>
  for (let i = 1; i <= 12; i++) lines.push({ type: "item", seq: i, source: "runtime", item: { type: "message", role: "user", text: `word ${i}` }, created_at: `2026-05-01T00:00:${String(i).padStart(2, "0")}Z` })
  fs.writeFileSync(log, lines.map((l) => JSON.stringify(l) + "\n").join(""))
  index = path.join(dir, "i.db")
  const r = cli(["import", "--agents-root", agents, "--index", index], { env })
  expect([0, 8], r.stderr).toContain(r.code)
})

const BAD = ["0x2", "0b11", "0o7", "1e3", "1.5", "+2", " 3", "3 ", "1_0", "two", ""]

describe("counts in decimal digits", () => {
  it.each([
    ["sessions --limit", (v: string) => ["sessions", "--index", index, "--limit", v], "--limit"],
    ["search --limit", (v: string) => ["search", "word", "--index", index, "--limit", v], "--limit"],
    ["show --context", (v: string) => ["show", "s-dec", "--index", index, "--around", "line-5", "--context", v], "--context"],
    ["stream --limit", (v: string) => ["stream", "muse-agents", log, "--agents-root", agents, "--limit", v], "--limit"]
  ] as const)("%s: other forms are INVALID_ARGUMENT naming the value; decimal digits are taken", (_, args, option) => {
    for (const bad of BAD) {
      const r = cli(args(bad), { env })
      expect(r.code, JSON.stringify(bad)).toBe(2)
      expect(r.stdout, JSON.stringify(bad)).toBe("")
      // (an empty value is refused as empty, as for every option)
      if (bad === "") expect(r.stderr).toContain(`INVALID_ARGUMENT: ${option}: the value is empty`)
      else expect(r.stderr, JSON.stringify(bad)).toContain(`INVALID_ARGUMENT: ${option} takes a whole number of`)
      if (bad !== "") expect(r.stderr, JSON.stringify(bad)).toContain(`in decimal digits (got ${JSON.stringify(bad)})`)
    }
    const ok = cli(args("2"), { env })
    expect(ok.code, ok.stderr).toBe(0)
  }, 120_000)

  it("the values taken mean what they say: --limit 2 lists 2 events, --context 1 shows 3", () => {
    const s = cli(["stream", "muse-agents", log, "--agents-root", agents, "--limit", "02"], { env })
    expect(s.code, s.stderr).toBe(0)
    expect(s.stdout.trim().split("\n").length).toBe(2)
    const around = cli(["show", "s-dec", "--index", index, "--around", "line-5", "--context", "1", "--json"], { env })
    expect(around.code, around.stderr).toBe(0)
    expect(JSON.parse(around.stdout.trim().split("\n").pop()!).data.events.map((e: { eventId: string }) => e.eventId)).toEqual(["line-4", "line-5", "line-6"])
  })
})
