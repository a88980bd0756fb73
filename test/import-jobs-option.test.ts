/**
 * `import --jobs N` (tester14's finding 6): only a whole number of threads
 * written in decimal digits, 1 to 64, is taken; `0x2`, `1e1`, `1.5`, `0`,
 * `65`, `-1`, `+2` and ` 2` are refused with one INVALID_ARGUMENT line
 * (exit 2) that says what `--jobs` takes, before anything is read. More than
 * the machine's cores runs with the cores, said on stderr.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jobsFor } from "../src/cli/commands/import.js"
import { cli } from "./support/run.js"
import { tempDir } from "./support/paths.js"

const home = tempDir("si-jobs-home-")
const env = { NO_COLOR: "1", HOME: home, CLAUDE_CONFIG_DIR: "", MUSE_AGENTS_DIR: "" }

const setup = () => {
  const dir = tempDir("si-jobs-")
  const root = path.join(dir, "agents", "a0", "sessions")
  fs.mkdirSync(root, { recursive: true })
  fs.writeFileSync(
    path.join(root, "a0.jsonl"),
    JSON.stringify({ type: "session_header", session_id: "s-0", agent_id: "a0", created_at: "2025-04-01T10:00:00Z" }) + "\n"
  )
  const index = path.join(dir, "i.db")
  return { index, args: ["import", "--agents-root", path.join(dir, "agents"), "--workspace", dir, "--index", index] }
}

describe("import --jobs N", () => {
  it("refuses what is not a whole number 1..64 in decimal digits, saying what it takes: INVALID_ARGUMENT, exit 2, nothing imported", () => {
    const { index, args } = setup()
    for (const bad of ["0x2", "1e1", "1.5", "0", "65", "-1", "+2", " 2", "2 ", "two", "0b10", "1_0"]) {
      const r = cli([...args, "--jobs", bad], { env })
      expect(r.code, bad).toBe(2)
      expect(r.stdout, bad).toBe("")
      expect(r.stderr, bad).toMatch(/^session-ingest: INVALID_ARGUMENT: [^\n]*--jobs takes a whole number of threads, 1 to 64, in decimal digits \(got [^\n]*\)\n {2}remedy: [^\n]+\n$/)
      expect(fs.existsSync(index), bad).toBe(false)
    }
    const empty = cli([...args, "--jobs", ""], { env })
    expect(empty.code).toBe(2)
    expect(empty.stderr).toMatch(/^session-ingest: INVALID_ARGUMENT: --jobs/)
  }, 120_000)

  it("takes 1 and the machine's cores as given; more than the cores runs with the cores and says so", () => {
    const cores = os.availableParallelism()
    const { args } = setup()
    for (const n of ["1", String(cores), "01"]) {
      const r = cli([...args, "--jobs", n, "--json"], { env })
      expect(r.code, `${n}: ${r.stderr}`).toBe(0)
      expect(r.stderr).toBe("")
    }
    const over = cli([...args, "--jobs", String(cores + 1), "--json"], { env })
    expect(over.code, over.stderr).toBe(0)
    expect(over.stderr).toBe(`session-ingest: --jobs ${cores + 1}: this machine has ${cores} core${cores === 1 ? "" : "s"}; using ${cores} parse thread${cores === 1 ? "" : "s"}.\n`)
    expect(JSON.parse(over.stdout).status).toBe("ok")
  }, 120_000)

  it("jobsFor: at most the cores", () => {
    expect(jobsFor(1, 2)).toEqual({ jobs: 1, note: null })
    expect(jobsFor(2, 2)).toEqual({ jobs: 2, note: null })
    expect(jobsFor(64, 2).jobs).toBe(2)
    expect(jobsFor(64, 2).note).toBe("session-ingest: --jobs 64: this machine has 2 cores; using 2 parse threads.")
    expect(jobsFor(3, 1).jobs).toBe(1)
  })
})
