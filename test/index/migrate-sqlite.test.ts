/**
 * `index migrate --index FILE` creates a missing SQLite index at the current
 * schema (docs/cli-output.md: "create or bring up to date the index's schema"), and says
 * so; a second run finds it current, and says that.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"

describe("index migrate on a SQLite file", () => {
  it("a missing file: created (with its folders) at the current schema, said so; then current", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "migrate-sqlite-"))
    try {
      const file = nodePath.join(dir, "newidx", "sub", "x.db")
      const r = cli(["index", "migrate", "--index", file], { cwd: dir })
      expect(r.code, r.stderr).toBe(0)
      expect(fs.existsSync(file)).toBe(true)
      expect(r.stdout).toMatch(/^created /)
      expect(r.stdout).toContain(file)
      expect(r.stdout).toMatch(/schema version \d+/)
      expect(r.stdout).not.toContain("nothing to apply")
      const j = cli(["index", "migrate", "--json", "--index", file], { cwd: dir })
      const body = JSON.parse(j.stdout.trim()).data
      expect(body.created).toBe(false)
      expect(body.applied).toEqual([])
      expect(typeof body.version).toBe("number")
      const again = cli(["index", "migrate", "--index", file], { cwd: dir })
      expect(again.stdout).toMatch(/is at the current schema \(version \d+\); nothing to apply/)
      const other = nodePath.join(dir, "other.db")
      const jc = JSON.parse(cli(["index", "migrate", "--json", "--index", other], { cwd: dir }).stdout.trim()).data
      expect(jc.created).toBe(true)
      expect(jc.applied.length).toBeGreaterThan(0)
      expect(jc.version).toBe(body.version)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
