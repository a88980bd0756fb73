/**
 * A config file's `redaction.patterns` is checked by every command that reads
 * the config file, not only by those that redact: a daily `import` (or
 * `sessions`, `search`, `usage`, `push`, `index migrate`) with a broken
 * pattern stops with `INVALID_ARGUMENT` (exit 2) naming
 * `redaction.patterns[i]`, before it writes anything, as `show` and `export`
 * do (docs/redaction.md, "Redaction": custom patterns). Found by a fresh user: `import
 * --config` took `(`, a lookaround, `(a+)+` and a built-in rule's id, and
 * the broken config was seen only by the next `show`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { fixturesDir, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const claudeRoot = path.join(fixturesDir, "claude-code", "projects")

/** Bad patterns and what their message says. */
const bad: ReadonlyArray<readonly [Array<{ id: string; pattern: string }>, string, number]> = [
  [[{ id: "bad-one", pattern: "(unclosed" }], "does not compile", 0],
  [[{ id: "bad-one", pattern: "(?<=x)y" }], "RE2", 0],
  [[{ id: "bad-one", pattern: "(a+)+" }], "", 0],
  [[{ id: "bad-one", pattern: "a*" }], "empty string", 0],
  [[{ id: "github-token", pattern: "xyz[0-9]+" }], "built-in", 0],
  [[{ id: "fine-one", pattern: "ACME-[0-9]{8}" }, { id: "fine-one", pattern: "BCME-[0-9]{8}" }], "already", 1]
]

describe("a config file with a bad redaction pattern: every command that reads it refuses it, before any write", () => {
  it("import (SQLite, a new index): exit 2, INVALID_ARGUMENT naming redaction.patterns[i], no index created", () => {
    const dir = tempDir("si-config-patterns-")
    for (const [i, [patterns, says, at]] of bad.entries()) {
      const config = path.join(dir, `bad-${i}.json`)
      fs.writeFileSync(config, JSON.stringify({ redaction: { patterns } }))
      const index = path.join(dir, `idx-${i}.db`)
      const r = cli(["import", "--index", index, "--claude-root", claudeRoot, "--config", config, "--json"])
      const what = `${JSON.stringify(patterns)}: ${r.stdout}${r.stderr}`
      expect(r.code, what).toBe(2)
      const env = JSON.parse(r.stdout)
      expect(env.error.code, what).toBe("INVALID_ARGUMENT")
      expect(env.error.message, what).toContain(`redaction.patterns[${at}]`)
      expect(env.error.message, what).toContain(says)
      expect(fs.existsSync(index), what).toBe(false)
      expect(r.stderr).not.toMatch(/\n\s+at /)
    }
  })

  it("sessions, search, usage, push and index migrate against an index: exit 2 naming the pattern; a good pattern is taken", () => {
    const dir = tempDir("si-config-patterns-")
    const index = path.join(dir, "idx.db")
    const imported = cli(["import", "--index", index, "--claude-root", claudeRoot])
    expect([0, 8], imported.stderr).toContain(imported.code)
    const before = fs.readFileSync(index)
    const config = path.join(dir, "bad.json")
    fs.writeFileSync(config, JSON.stringify({ redaction: { patterns: [{ id: "bad-one", pattern: "(?=x)" }] } }))
    const good = path.join(dir, "good.json")
    fs.writeFileSync(good, JSON.stringify({ redaction: { patterns: [{ id: "acme-key", pattern: "ACME-[0-9]{8}" }] } }))
    const commands = [["sessions"], ["search", "hello"], ["usage"], ["import", "--claude-root", claudeRoot]]
    for (const args of commands) {
      const r = cli([...args, "--index", index, "--config", config])
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toMatch(/^session-ingest: INVALID_ARGUMENT: .*redaction\.patterns\[0\]/)
    }
    for (const args of [
      ["push", "--from", index, "--to", "postgres://127.0.0.1:1/none"],
      ["index", "migrate", "--index", "postgres://127.0.0.1:1/none"]
    ]) {
      // Refused for the config before the server is tried (an unreachable one would be STORE_UNAVAILABLE, exit 6).
      const r = cli([...args, "--config", config])
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain("redaction.patterns[0]")
    }
    // The refused runs wrote nothing to the index.
    expect(Buffer.compare(before, fs.readFileSync(index))).toBe(0)
    for (const args of commands) {
      const ok = cli([...args, "--index", index, "--config", good])
      expect([0, 8], `${args.join(" ")}: ${ok.stderr}`).toContain(ok.code)
    }
  })
})
