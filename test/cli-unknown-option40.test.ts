/**
 * tester40 F5: an option a command does not have, where `@effect/cli` expects
 * a positional argument (`inspect claude-code --config c.json FILE`), reached
 * the argument as its value and was explained as "an option before it lacks
 * its value", though none did. It says the command may have no such option
 * (exit 2 as before); an option's value that looks like an option keeps the
 * explanation it had.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "1" }

describe("an option the command does not have (tester40 F5)", () => {
  const dir = tempDir("si-unknown-option-")
  const file = path.join(dir, "f.jsonl")
  fs.writeFileSync(file, "")
  fs.writeFileSync(path.join(dir, "c.json"), "{}")
  for (const command of [["inspect", "claude-code"], ["stream", "claude-code"], ["transcript", "muse-agents"]]) {
    it(`${command.join(" ")} --unknown-flag x FILE: exit 2, says the command may have no such option`, () => {
      const r = cli([...command, "--unknown-flag", "c.json", file], { env, cwd: dir })
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("INVALID_ARGUMENT")
      expect(r.stderr).toContain(`"--unknown-flag" looks like an option, not a value: this command has no such option (see its --help)`)
    })
  }

  it("an option's value that looks like an option: an option before it lacks its value", () => {
    const r = cli(["inspect", "claude-code", file, "--claude-root=--nope"], { env, cwd: dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`"--nope" looks like an option, not a value: an option before it lacks its value`)
  })
})
