/**
 * A config file nested thousands of levels deep (hostile or broken) is an
 * `INVALID_ARGUMENT` (exit 2) naming the nesting, for every command that
 * reads it, with `--json` an error envelope: never a `RangeError` stack
 * trace (found by a fresh user: "Maximum call stack size exceeded" on
 * stdout, exit 1, from the schema error's formatting). A config is a short
 * list of settings: more than 64 levels (seed 001's depth rule) is refused.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "./support/run.js"
import { tempDir } from "./support/paths.js"

const deep = (levels: number, key = "index") => `{"${key}":${"[".repeat(levels)}${"]".repeat(levels)}}`

describe("a config file nested too deep", () => {
  for (const [what, text] of [
    ["5,000 arrays under a key", deep(5000)],
    ["20,000 objects", `${'{"a":'.repeat(20000)}1${"}".repeat(20000)}`],
    ["65 levels under redaction", `{"redaction":${deep(63, "patterns")}}`]
  ] as const) {
    it(`${what}: INVALID_ARGUMENT, exit 2, an envelope with --json, no stack trace`, () => {
      const dir = tempDir("si-config-deep-")
      const config = nodePath.join(dir, "config.json")
      fs.writeFileSync(config, text)
      for (const args of [["sessions", "--config", config], ["usage", "--json", "--config", config], ["import", "--json", "--config", config]]) {
        const r = cli(args, { cwd: dir })
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2)
        expect(r.stdout + r.stderr).not.toMatch(/RangeError|Maximum call stack|\n\s+at /)
        if (args.includes("--json")) {
          const env = JSON.parse(r.stdout.trim().split("\n").pop()!)
          expect(env.error.code).toBe("INVALID_ARGUMENT")
          expect(env.error.message).toContain(config)
          expect(env.error.message).toMatch(/nest/)
        } else expect(r.stderr).toContain("INVALID_ARGUMENT")
      }
    })
  }
})
