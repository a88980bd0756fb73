/**
 * `discover` with a root or store the operator named that does not exist,
 * for every provider and every root flag: never "complete" with exit 0
 * (README: "a root you name that turns out missing makes coverage partial";
 * discover exits 8 on partial coverage, as import does). The table must name
 * every registered provider's root flags, so a new one is checked too.
 */
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { providers } from "../src/layers/registry.js"
import { cli } from "./support/run.js"
import { tempDir } from "./support/paths.js"

/** Per provider: each root flag (the `path` settings that name where sources are), with what else discover needs. */
const ROOT_FLAGS: Record<string, ReadonlyArray<{ readonly flag: string; readonly file?: string; readonly extra?: ReadonlyArray<string> }>> = {
  "muse-code": [{ flag: "muse-root" }],
  "muse-agents": [{ flag: "agents-root" }],
  agentmux: [{ flag: "store", file: "filestore.db", extra: ["--agent", "a1"] }, { flag: "agentmux-root", extra: ["--agent", "a1"] }],
  "claude-code": [{ flag: "claude-root" }]
}
/** Path settings that are not where sources are read from. */
const NOT_ROOTS = new Set(["state", "export-file"])

describe("discover with a named root that does not exist", () => {
  it("the table names every provider's root flags", () => {
    const flags = Object.fromEntries(
      providers.map((p) => [
        p.id,
        Object.values(p.settings as Record<string, { path: boolean; flag: string }>)
          .filter((s) => s.path && !NOT_ROOTS.has(s.flag))
          .map((s) => s.flag)
          .sort()
      ])
    )
    expect(flags).toEqual(Object.fromEntries(Object.entries(ROOT_FLAGS).map(([id, fs]) => [id, fs.map((f) => f.flag).sort()])))
  })

  for (const [provider, flags] of Object.entries(ROOT_FLAGS)) {
    for (const { flag, file, extra } of flags) {
      it(`${provider} --${flag} MISSING: partial (exit 8) or a typed error, never complete`, () => {
        const missing = nodePath.join(tempDir("si-missing-"), "no-such-root", ...(file !== undefined ? [file] : []))
        const r = cli(["discover", provider, `--${flag}`, missing, ...(extra ?? []), "--json"], { env: { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" } })
        const out = JSON.parse(r.stdout) as { status: string; data: any; error: any }
        if (out.status === "error") {
          expect(r.code).not.toBe(0)
          expect(out.error.code).toMatch(/NOT_FOUND|ABSENT/)
          return
        }
        const coverage = JSON.stringify(out.data).match(/"coverage":"(\w+)"/g)
        expect(coverage, JSON.stringify(out.data).slice(0, 400)).not.toContain('"coverage":"complete"')
        expect(r.code).toBe(8)
      })
    }
  }

  it("claude-code: the human output of a missing --claude-root says partial", () => {
    const missing = nodePath.join(tempDir("si-missing-"), "nope")
    const r = cli(["discover", "claude-code", "--claude-root", missing], { env: { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" } })
    expect(r.code).toBe(8)
    expect(r.stdout).toMatch(/status: unavailable\s+coverage: partial/)
    expect(r.stdout).toContain("CLAUDE_ROOT_NOT_FOUND")
  })
})
