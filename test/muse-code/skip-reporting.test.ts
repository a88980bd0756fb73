/**
 * What native Muse Code discovery skipped is said in the human output, not
 * only in the --json receipts: logs of another workspace (a count and the
 * first workspaces seen; seed 001: a confirmed mismatch is not inconclusive,
 * so coverage stays complete and the exit 0), symlinked folders at any level
 * of the layout (SYMLINK_SKIPPED, coverage partial, no MUSE_ROOT_EMPTY), and
 * a remedy that names the real cause of an inconclusive log.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { end, jsonl, metadata, tempDir, writeLog } from "./native-helpers.js"

const json = (stdout: string) => JSON.parse(stdout.trimEnd().split("\n").at(-1)!)

describe("muse-code discovery: logs of another workspace", () => {
  const dir = tempDir()
  const ws = nodePath.join(dir, "ws")
  fs.mkdirSync(ws)
  const others = ["/srv/alpha", "/srv/beta", "/srv/gamma", "/srv/delta"]
  const root = nodePath.join(dir, "sessions")
  others.forEach((o, i) => writeLog(root, "2026/09/25", `s-${i}`, jsonl([metadata(1, o), end(2)])))
  writeLog(root, "2026/09/26", "s-again", jsonl([metadata(1, "/srv/alpha"), end(2)]))

  it("discover says how many logs name another workspace and which, coverage complete, exit 0", () => {
    const r = cli(["discover", "muse-code", "--muse-root", root, "--workspace", ws])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/coverage: complete/)
    expect(r.stdout).toMatch(/5 session log\(s\) name another workspace/)
    expect(r.stdout).toContain("/srv/alpha")
    expect(r.stdout).toContain("/srv/beta")
    const j = json(cli(["discover", "muse-code", "--muse-root", root, "--workspace", ws, "--json"]).stdout).data
    expect(j.coverage).toBe("complete")
    expect(j.omitted).toEqual({ "other-workspace": 5 })
    const d = j.diagnostics.find((x: { code: string }) => x.code === "MUSE_OTHER_WORKSPACE")
    expect(d.details.count).toBe(5)
    // The first few distinct workspaces, in the order seen, no more than three.
    expect(d.details.workspaces).toEqual(["/srv/alpha", "/srv/beta", "/srv/gamma"])
    expect(d.details.distinctWorkspaces).toBe(4)
  })

  it("import says it too (exit 0)", () => {
    const index = nodePath.join(dir, "i.db")
    const r = cli(["import", "--muse-root", root, "--workspace", ws, "--index", index], {
      env: { HOME: dir, XDG_DATA_HOME: dir, CLAUDE_CONFIG_DIR: nodePath.join(dir, "none"), MUSE_AGENTS_DIR: nodePath.join(dir, "none") }
    })
    expect(r.stdout).toMatch(/other-workspace 5/)
    expect(r.stdout).toMatch(/muse-code: 5 session log\(s\) name another workspace/)
    expect(r.stdout).toContain("/srv/alpha")
  })
})

describe("muse-code discovery: symlinked folders", () => {
  const dir = tempDir()
  const ws = nodePath.join(dir, "ws")
  fs.mkdirSync(ws)
  const good = jsonl([metadata(1, ws), end(2)])
  const outside = nodePath.join(dir, "outside")
  writeLog(outside, "2026/09/25", "real", good)

  const cases: ReadonlyArray<readonly [string, (root: string) => string]> = [
    ["session folder", (root) => {
      fs.mkdirSync(nodePath.join(root, "2026/09/25"), { recursive: true })
      const link = nodePath.join(root, "2026/09/25/linked")
      fs.symlinkSync(nodePath.join(outside, "2026/09/25/real"), link)
      return link
    }],
    ["day folder", (root) => {
      fs.mkdirSync(nodePath.join(root, "2026/09"), { recursive: true })
      const link = nodePath.join(root, "2026/09/25")
      fs.symlinkSync(nodePath.join(outside, "2026/09/25"), link)
      return link
    }],
    ["month folder", (root) => {
      fs.mkdirSync(nodePath.join(root, "2026"), { recursive: true })
      const link = nodePath.join(root, "2026/09")
      fs.symlinkSync(nodePath.join(outside, "2026/09"), link)
      return link
    }],
    ["year folder", (root) => {
      fs.mkdirSync(root, { recursive: true })
      const link = nodePath.join(root, "2026")
      fs.symlinkSync(nodePath.join(outside, "2026"), link)
      return link
    }]
  ]
  for (const [name, make] of cases) {
    it(`a symlinked ${name} is SYMLINK_SKIPPED (partial, exit 8), not MUSE_ROOT_EMPTY`, () => {
      const root = nodePath.join(dir, `root-${name.replace(/ /g, "-")}`)
      const link = make(root)
      const r = cli(["discover", "muse-code", "--muse-root", root, "--workspace", ws])
      expect(r.code).toBe(8)
      expect(r.stdout).toContain(`SYMLINK_SKIPPED: ${link}`)
      expect(r.stdout).not.toMatch(/MUSE_ROOT_EMPTY|nothing was found under it/)
      expect(r.stdout).toMatch(/remedy: .*symlink/i)
      const j = json(cli(["discover", "muse-code", "--muse-root", root, "--workspace", ws, "--json"]).stdout).data
      expect(j.coverage).toBe("partial")
      expect(j.reasonCode).toBe("SYMLINK_SKIPPED")
      expect(j.diagnostics.map((d: { code: string; details: { path: string } }) => [d.code, d.details.path])).toEqual([["SYMLINK_SKIPPED", link]])
    })
  }

  it("a layout-named link into the root itself (walked there) or to nothing (a loop) is tallied, not reported", () => {
    const root = nodePath.join(dir, "root-inside")
    writeLog(root, "2026/09/25", "ok", good)
    fs.symlinkSync(nodePath.join(root, "2026/09/25"), nodePath.join(root, "2026/09/26"))
    fs.symlinkSync("2029", nodePath.join(root, "2028"))
    fs.symlinkSync("2028", nodePath.join(root, "2029"))
    const r = cli(["discover", "muse-code", "--muse-root", root, "--workspace", ws, "--json"])
    expect(r.code).toBe(0)
    const j = json(r.stdout).data
    expect(j.coverage).toBe("complete")
    expect(j.sourceCount).toBe(1)
    expect(j.diagnostics).toEqual([])
    expect(j.receipts.museEnumeration.symlinksSkipped).toBe(3)
  })

  it("a symlink whose name does not fit the layout is junk: tallied, not reported", () => {
    const root = nodePath.join(dir, "root-junk")
    writeLog(root, "2026/09/25", "ok", good)
    fs.symlinkSync(nodePath.join(outside, "2026"), nodePath.join(root, "latest"))
    const j = json(cli(["discover", "muse-code", "--muse-root", root, "--workspace", ws, "--json"]).stdout).data
    expect(j.coverage).toBe("complete")
    expect(j.diagnostics).toEqual([])
    expect(j.receipts.museEnumeration.symlinksSkipped).toBe(1)
  })
})

describe("muse-code discovery: the remedy names the cause", () => {
  it("an emptied (0-byte) log is not told to raise the discovery budget", () => {
    const dir = tempDir()
    const ws = nodePath.join(dir, "ws")
    fs.mkdirSync(ws)
    const root = nodePath.join(dir, "sessions")
    writeLog(root, "2026/09/25", "emptied", "")
    const r = cli(["discover", "muse-code", "--muse-root", root, "--workspace", ws])
    expect(r.code).toBe(8)
    expect(r.stdout).toMatch(/NO_WORKSPACE_EVIDENCE|no workspace evidence/)
    const remedy = r.stdout.split("\n").find((l) => l.startsWith("remedy:"))!
    expect(remedy).not.toMatch(/budget/)
    expect(remedy).toMatch(/empty|workspace evidence/)
  })

  it("a malformed log is told it is malformed, not to raise the budget", () => {
    const dir = tempDir()
    const ws = nodePath.join(dir, "ws")
    fs.mkdirSync(ws)
    const root = nodePath.join(dir, "sessions")
    writeLog(root, "2026/09/25", "huge", "x".repeat(10) + "\n" + jsonl([metadata(1, ws), end(2)]))
    const r = cli(["discover", "muse-code", "--muse-root", root, "--workspace", ws, "--json"])
    // A malformed first line stops the scan: the remedy is about malformed input, not the budget.
    const j = json(r.stdout).data
    expect(j.receipts.museSourceInspections[0].reasonCode).toBe("MALFORMED")
    expect(j.remediation).not.toMatch(/budget/)
    expect(j.remediation).toMatch(/malformed|torn/i)
  })
})
