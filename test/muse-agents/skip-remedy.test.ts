/**
 * Muse agents discovery: a named root whose only agent folder is a symlink
 * says SYMLINK_SKIPPED (not AGENTS_ROOT_EMPTY), with a remedy derived from
 * the diagnostics present.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { FIXTURE_ROOT, tempDir } from "./helpers.js"

const json = (stdout: string) => JSON.parse(stdout.trimEnd().split("\n").at(-1)!)
const remedyLine = (stdout: string) => stdout.split("\n").find((l) => l.startsWith("remedy:")) ?? ""

describe("muse-agents discovery: skips and their remedy", () => {
  it("a named root whose only agent folder is a symlink: SYMLINK_SKIPPED, not AGENTS_ROOT_EMPTY", () => {
    const dir = tempDir()
    const root = nodePath.join(dir, "agents")
    fs.mkdirSync(root)
    const agent = fs.readdirSync(FIXTURE_ROOT).find((n) => fs.statSync(nodePath.join(FIXTURE_ROOT, n)).isDirectory())!
    fs.symlinkSync(nodePath.join(FIXTURE_ROOT, agent), nodePath.join(root, agent))
    const r = cli(["discover", "muse-agents", "--agents-root", root])
    expect(r.code).toBe(8)
    expect(r.stdout).toContain("SYMLINK_SKIPPED")
    expect(r.stdout).not.toContain("AGENTS_ROOT_EMPTY")
    expect(remedyLine(r.stdout)).toMatch(/symlink/i)
    const j = json(cli(["discover", "muse-agents", "--agents-root", root, "--json"]).stdout).data
    expect(j.coverage).toBe("partial")
    expect(j.reasonCode).toBe("SOURCES_SKIPPED")
    expect(j.diagnostics.map((d: { code: string }) => d.code)).toEqual(["SYMLINK_SKIPPED"])
  })

  it("a sessions folder that is not readable as a transcript (a folder under the transcript's name): the remedy names it, not symlinks", () => {
    const dir = tempDir()
    const root = nodePath.join(dir, "agents")
    fs.mkdirSync(nodePath.join(root, "a1", "sessions", "a1.jsonl"), { recursive: true })
    const r = cli(["discover", "muse-agents", "--agents-root", root])
    expect(r.code).toBe(8)
    expect(r.stdout).toContain("NOT_A_FILE")
    expect(remedyLine(r.stdout)).toMatch(/not a regular|folder, fifo/)
    expect(remedyLine(r.stdout)).not.toMatch(/symlink/i)
  })
})
