/**
 * A `RESOURCE_LIMIT_EXCEEDED` names the limit and where a CLI user raises it:
 * the config file's `limits` (`maxDocumentBytes`, `maxRecordBytes`,
 * `maxDepth`), read by `import`. A value that is not a positive integer is
 * `INVALID_ARGUMENT` (exit 2), nothing imported.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { fixturesDir, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const orderly = JSON.parse(fs.readFileSync(path.join(fixturesDir, "muse-code", "export", "orderly.json"), "utf8"))
const nested = (depth: number): unknown => (depth === 0 ? "deep" : { n: nested(depth - 1) })

const setup = () => {
  const dir = tempDir()
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws)
  const doc = structuredClone(orderly)
  doc.events[0].envelope.payload = { ...doc.events[0].envelope.payload, deep: nested(80) }
  const file = path.join(ws, "deep.json")
  fs.writeFileSync(file, JSON.stringify(doc))
  const empty = path.join(dir, "empty")
  fs.mkdirSync(empty)
  const run = (config?: unknown) => {
    const args = ["import", file, "--workspace", ws, "--index", path.join(dir, `i-${Math.random()}.db`), "--agents-root", empty, "--json"]
    if (config !== undefined) {
      const c = path.join(dir, `c-${Math.random()}.json`)
      fs.writeFileSync(c, JSON.stringify(config))
      args.push("--config", c)
    }
    return cli(args, { env: { HOME: empty, NO_COLOR: "1" } })
  }
  return { run }
}

describe("import limits from the config file", () => {
  it("nesting past maxDepth is refused with a remedy naming limits.maxDepth; the config's limits.maxDepth lets it in", () => {
    const s = setup()
    const refused = JSON.parse(s.run().stdout.trim().split("\n").pop()!)
    const rejected = refused.data.rejected as Array<{ code: string; remediation: string }>
    expect(rejected.map((r) => r.code)).toEqual(["RESOURCE_LIMIT_EXCEEDED"])
    expect(rejected[0].remediation).toContain("limits.maxDepth")
    expect(rejected[0].remediation).toContain("config file")
    const let_in = JSON.parse(s.run({ limits: { maxDepth: 128 } }).stdout.trim().split("\n").pop()!)
    expect(let_in.data.rejected).toEqual([])
    expect(let_in.data.eventsAdded).toBe(8)
    // a lower limit than the default refuses what the default takes
    const tight = JSON.parse(s.run({ limits: { maxDepth: 128, maxRecordBytes: 100 } }).stdout.trim().split("\n").pop()!)
    expect(tight.data.rejected.map((r: { code: string }) => r.code)).toEqual(["RESOURCE_LIMIT_EXCEEDED"])
    expect(tight.data.rejected[0].remediation).toContain("limits.maxRecordBytes")
  })

  it("a limit that is not a positive integer is INVALID_ARGUMENT, exit 2, naming the key", () => {
    const s = setup()
    for (const bad of [{ maxDepth: 0 }, { maxDepth: "64" }, { maxRecordBytes: 1.5 }, { maxDocumentBytes: -1 }, { maxWidth: 3 }]) {
      const r = s.run({ limits: bad })
      expect(r.code, JSON.stringify(bad)).toBe(2)
      expect(r.stderr + r.stdout, JSON.stringify(bad)).toMatch(/limits/)
      // The problem, not the optional key's other branch (found by a fresh user: "Expected undefined, actual 0").
      expect(r.stderr + r.stdout, JSON.stringify(bad)).not.toMatch(/Expected undefined/)
    }
  })
})
