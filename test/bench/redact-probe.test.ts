/**
 * The redaction bench probe (bench/probes/redact.ts) reports the string
 * leaves it walked in both modes: the figure's note quotes the count of the
 * `redact` run, which once said "0 string leaves" next to thousands of
 * changed records because only the `floor` mode counted them.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"

const REPO = nodePath.resolve(__dirname, "..", "..")
const TSX = nodePath.join(REPO, "node_modules", ".bin", "tsx")

const probe = (file: string, mode: string) => {
  const r = spawnSync(TSX, [nodePath.join(REPO, "bench", "probes", "redact.ts"), file, mode], { encoding: "utf8" })
  expect(r.status, r.stderr).toBe(0)
  const last = r.stdout.trim().split("\n").pop()!
  return JSON.parse(last) as { leaves: number; changed: number; bytes: number }
}

describe("redact probe", () => {
  it("counts the same string leaves in redact and floor modes, outside the timed step", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "redact-probe-"))
    const file = nodePath.join(dir, "t.jsonl")
    // 3 records: 2 + 3 + 1 string leaves (keys are not leaves); one holds a secret.
    const lines = [
      { a: "hello", b: { c: "world", n: 3 } },
      { msg: ["x", "y", { z: "curl -u admin:hunter2secret https://example.com" }] },
      { only: "plain", flag: true, nil: null }
    ]
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
    try {
      const floor = probe(file, "floor")
      const redact = probe(file, "redact")
      expect(floor.leaves).toBe(6)
      expect(redact.leaves).toBe(6)
      expect(redact.changed).toBeGreaterThanOrEqual(1)
      expect(floor.changed).toBe(0)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
