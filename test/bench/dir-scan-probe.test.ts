/**
 * The dir-scan probe (bench/probes/dir-scan-tick.ts) on a small root: it
 * builds the folders it says, times the ticks it says, finds nothing in a
 * root that did not change, and finds every session made between ticks when
 * one rotation covers the root (500 folders, 4,000 per tick); it leaves no
 * root behind.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"

const REPO = nodePath.resolve(__dirname, "..", "..")
const TSX = nodePath.join(REPO, "node_modules", ".bin", "tsx")

describe("dir-scan probe", () => {
  it("reports per-tick CPU and wall time of a fresh, an aged and a growing root", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "dir-scan-probe-"))
    try {
      const r = spawnSync(TSX, [nodePath.join(REPO, "bench", "probes", "dir-scan-tick.ts"), dir, "500", "4"], { encoding: "utf8" })
      expect(r.status, r.stderr).toBe(0)
      const out = JSON.parse(r.stdout.trim().split("\n").pop()!)
      expect(out.folders).toBe(500)
      expect(out.ticks).toBe(4)
      for (const k of ["fresh", "aged", "newSession"]) {
        expect(out[k].cpuMsMedian, k).toBeGreaterThanOrEqual(0)
        expect(out[k].wallMsP95, k).toBeGreaterThanOrEqual(out[k].wallMsMedian)
      }
      expect(out.fresh.found).toBe(0)
      expect(out.aged.found).toBe(0)
      // each new session: its folder and its file
      expect(out.newSession.made).toBe(4)
      expect(out.newSession.sessionsFound).toBe(4)
      expect(out.newSession.filesFound).toBe(4)
      expect(out.newSession.found).toBe(8)
      expect(fs.readdirSync(dir)).toEqual([])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
