/**
 * Claude Code discovery: a named root whose only project folder is a symlink
 * says SYMLINK_SKIPPED (not CLAUDE_ROOT_EMPTY), and the coverage remedy names
 * the causes actually counted (derived from the diagnostics), e.g. unlinked
 * flat subagent files are not told about symlinks.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { BILLING, FIXTURE_ROOT } from "./helpers.js"

const json = (stdout: string) => JSON.parse(stdout.trimEnd().split("\n").at(-1)!)
const remedyLine = (stdout: string) => stdout.split("\n").find((l) => l.startsWith("remedy:")) ?? ""

describe("claude-code discovery: skips and their remedy", () => {
  it("unlinked flat subagent files: the remedy names them, not symlinks", () => {
    const dir = tempDir()
    const root = nodePath.join(dir, "projects")
    fs.mkdirSync(nodePath.join(root, "-home-u-proj"), { recursive: true })
    fs.writeFileSync(
      nodePath.join(root, "-home-u-proj", "agent-a1.jsonl"),
      JSON.stringify({ type: "user", sessionId: "00000000-0000-4000-8000-000000000000", message: { role: "user", content: "hi" } }) + "\n"
    )
    const r = cli(["discover", "claude-code", "--claude-root", root])
    expect(r.code).toBe(8)
    expect(r.stdout).toContain("CLAUDE_SUBAGENT_UNLINKED")
    const remedy = remedyLine(r.stdout)
    expect(remedy).toMatch(/subagent/)
    expect(remedy).not.toMatch(/symlink/i)
    const j = json(cli(["discover", "claude-code", "--claude-root", root, "--json"]).stdout).data
    expect(j.diagnostics.map((d: { code: string }) => d.code)).toEqual(["CLAUDE_SUBAGENT_UNLINKED"])
    expect(j.remediation).toMatch(/subagent/)
    expect(j.remediation).not.toMatch(/symlink/i)
  })

  it("a named root whose only project folder is a symlink: SYMLINK_SKIPPED, not CLAUDE_ROOT_EMPTY; the remedy names symlinks", () => {
    const dir = tempDir()
    const root = nodePath.join(dir, "projects")
    fs.mkdirSync(root)
    fs.symlinkSync(nodePath.join(FIXTURE_ROOT, BILLING), nodePath.join(root, BILLING))
    const r = cli(["discover", "claude-code", "--claude-root", root])
    expect(r.code).toBe(8)
    expect(r.stdout).toContain("SYMLINK_SKIPPED")
    expect(r.stdout).not.toContain("CLAUDE_ROOT_EMPTY")
    expect(remedyLine(r.stdout)).toMatch(/symlink/i)
    expect(remedyLine(r.stdout)).not.toMatch(/subagent|permission/i)
    const j = json(cli(["discover", "claude-code", "--claude-root", root, "--json"]).stdout).data
    expect(j.coverage).toBe("partial")
    expect(j.reasonCode).toBe("SOURCES_SKIPPED")
    expect(j.diagnostics.map((d: { code: string }) => d.code)).toEqual(["SYMLINK_SKIPPED"])
  })
})

describe("claude-code discovery: a symlinked nested session folder", () => {
  it("its subagent files are not read: said, coverage partial (exit 8), the remedy names symlinks", () => {
    const dir = tempDir()
    const root = nodePath.join(dir, "projects")
    const outside = nodePath.join(dir, "outside")
    fs.mkdirSync(outside)
    fs.cpSync(nodePath.join(FIXTURE_ROOT, BILLING), nodePath.join(root, BILLING), { recursive: true })
    const nested = fs.readdirSync(nodePath.join(root, BILLING)).find((n) => fs.statSync(nodePath.join(root, BILLING, n)).isDirectory())!
    fs.renameSync(nodePath.join(root, BILLING, nested), nodePath.join(outside, nested))
    fs.symlinkSync(nodePath.join(outside, nested), nodePath.join(root, BILLING, nested))
    const r = cli(["discover", "claude-code", "--claude-root", root])
    expect(r.code).toBe(8)
    expect(remedyLine(r.stdout)).toMatch(/symlink/i)
    const j = json(cli(["discover", "claude-code", "--claude-root", root, "--json"]).stdout).data
    expect(j.coverage).toBe("partial")
    expect(j.reasonCode).toBe("SOURCES_SKIPPED")
    expect(j.diagnostics.map((d: { code: string }) => d.code)).toEqual(["SOURCE_OUTSIDE_ALLOWED_ROOT"])
    // The session itself is still listed.
    expect(j.sources.map((s: { sessionId: string }) => s.sessionId)).toContain(nested)
  })
})
