/**
 * tester36a F4: a Claude Code log rolled back to its first 10 lines with its first prompt (its first event) edited in
 * place lost 15 of its 22 imported events from every view, and `import` said only "1 re-imported as a new
 * generation". The same path and session with a different first event is a rewrite of the imported prefix:
 * `SOURCE_REWRITTEN` (kept 0) in the text report and in `--json`, exit 0 (docs/import.md, "Sources rewritten after a
 * prefix of what was imported": "That is never silent").
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { claudeFixtureCopy } from "../support/source-roots.js"

const AGENTS = path.resolve("fixtures", "muse-agents", "agents")

describe("SOURCE_REWRITTEN when the first event changed (tester36a F4)", () => {
  it("import says it in text and in --json: kept 0, and how many imported events the new generation no longer holds", () => {
    const s = claudeFixtureCopy()
    const args = ["import", "--index", path.join(s.dir, "i.db"), "--claude-root", s.policy.claudeRoot!, "--agents-root", AGENTS]
    const env = { XDG_CONFIG_HOME: path.join(s.dir, "xdg"), XDG_DATA_HOME: path.join(s.dir, "data") }
    const original = fs.readFileSync(s.file, "utf8")
    // Rolled back to its first 10 lines (8 events of the 22 imported), the first prompt (line 3) edited: the edited
    // event and the 14 past line 10 are gone: 15.
    const rolledBack = original.split("\n").slice(0, 10).map((l, i) => (i === 2 ? l.replace("off by one cent", "off by One cent") : l) + "\n").join("")
    expect(rolledBack).toContain("off by One cent")
    for (const json of [false, true]) {
      fs.writeFileSync(s.file, original)
      expect(cli(args, { env }).code).toBe(0)
      fs.writeFileSync(s.file, rolledBack)
      const r = cli(json ? [...args, "--json"] : args, { env })
      expect(r.code, r.stderr + r.stdout).toBe(0)
      if (json) {
        const claude = JSON.parse(r.stdout).data.providers.find((p: { provider: string }) => p.provider === "claude-code")
        const d = claude.diagnostics.find((x: { code: string }) => x.code === "SOURCE_REWRITTEN")
        expect(d?.details).toEqual({ path: s.file, kept: 0, missing: 15, imported: 22, sessionsNoLongerShown: [] })
      } else {
        expect(r.stdout).toContain("SOURCE_REWRITTEN")
        expect(r.stdout).toContain("it no longer holds 15 of the 22 events imported from it")
      }
    }
  })
})
