/**
 * tester38b F3: a Claude Code log the index holds, overwritten in place with torn lines (each cut to its first half),
 * was reported `SOURCE_EMPTIED` (a code for a file that holds nothing: this one held 8 KB of torn JSON), `sources: 0
 * discovered` (the file the report named was counted nowhere), and its one diagnostic was printed twice, under "to
 * reach complete coverage" and under "diagnostics". docs/import.md, "Sources emptied or zeroed on disk": a log none of
 * whose lines reads as JSON is `SOURCE_GARBLED`, the code discovery gives such a log never imported
 * (`src/domain/garbled.ts`), kept as it was with the remedy that says the index keeps the session; it was
 * discovered (and skipped), so it is counted; its cause is printed once.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const FIXTURE = nodePath.resolve("fixtures", "claude-code", "projects", "-home-alice-code-billing-api", "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37.jsonl")
const SID = "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37"

describe("a Claude Code log the index holds, overwritten with torn lines (tester38b F3)", () => {
  it("SOURCE_GARBLED (not EMPTIED), counted as discovered, its session kept, its cause printed once", () => {
    const dir = tempDir("si-garbled39-")
    const root = nodePath.join(dir, "projects")
    fs.mkdirSync(nodePath.join(root, "p"), { recursive: true })
    const file = nodePath.join(root, "p", `${SID}.jsonl`)
    fs.copyFileSync(FIXTURE, file)
    const index = nodePath.join(dir, "i.db")
    const env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    const args = ["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.resolve("fixtures", "muse-agents", "agents")]
    const first = cli([...args, "--json"], { env })
    expect(first.code, first.stderr + first.stdout).toBe(0)
    // The log and the Muse agents fixture's transcripts.
    const discovered = JSON.parse(first.stdout).data.sources.discovered as number
    expect(discovered).toBeGreaterThan(1)
    const lines = fs.readFileSync(file, "utf8").split("\n")
    const torn = lines.map((l) => l.slice(0, Math.floor(l.length / 2))).join("\n")
    fs.writeFileSync(file, torn)
    // The fixture's 24 non-blank lines, none of which reads as JSON once torn.
    const count = lines.filter((l) => l.trim() !== "").length

    const r = cli([...args, "--json"], { env })
    expect(r.code, r.stderr + r.stdout).toBe(8)
    const data = JSON.parse(r.stdout).data
    const cc = data.providers.find((p: { provider: string }) => p.provider === "claude-code")
    expect(cc.diagnostics.map((d: { code: string }) => d.code)).toEqual(["SOURCE_GARBLED"])
    expect(cc.diagnostics[0].details).toMatchObject({ path: file, linesNotJson: count })
    expect(cc.diagnostics[0].message).toContain(`now holds ${count} lines where it held what was imported, none of which reads as JSON`)
    expect(cc.diagnostics[0].remediation).toContain("The index keeps the session meanwhile.")
    expect(data.causes.filter((c: { provider: string }) => c.provider === "claude-code").map((c: { code: string; path: string }) => [c.code, c.path]))
      .toEqual([["SOURCE_GARBLED", file]])
    // Discovered (and skipped): counted, in the report's sources and its provider's.
    expect([data.sources.discovered, data.sources.accepted, data.sources.unchanged, data.sources.superseded]).toEqual([discovered, 0, discovered - 1, 0])
    expect(cc.sourceCount).toBe(1)
    // The session stays listed; the file is not written to.
    const listed = JSON.parse(cli(["sessions", "--index", index, "--json"]).stdout).data as Array<{ sessionId: string; eventCount: number }>
    expect(listed.find((s) => s.sessionId === SID)?.eventCount).toBe(22)
    expect(fs.readFileSync(file, "utf8")).toBe(torn)

    const text = cli(args, { env })
    expect(text.code).toBe(8)
    expect(text.stdout).toMatch(new RegExp(`sources: +${discovered} discovered, 0 imported, ${discovered - 1} unchanged`))
    expect(text.stdout).toMatch(/claude-code +checked +partial +1 source +\(SOURCE_GARBLED\)/)
    const said = text.stdout.split("none of which reads as JSON").length - 1
    expect(said, text.stdout).toBe(1)
    expect(text.stdout).not.toContain("SOURCE_EMPTIED")
  })
})
