/**
 * `--machine` of `push` and `import` refuses invisible and look-alike names
 * (tester33c F5). docs/index.md: a machine name is written into the shared
 * index "for every teammate to read"; tester33b F6 refused control
 * characters, line/paragraph separators and the bidirectional controls, but
 * the bidirectional *marks* (U+200E, U+200F, U+061C), zero-width characters
 * (U+200B, U+FEFF), other Unicode spaces (U+00A0, U+3000), a name of spaces
 * only and a name with a space at either end went through: each became a
 * machine of its own that reads as another (`a\u200bb` as `ab`, `m1 ` as
 * `m1`), so the team listing held the same session under look-alike machines.
 *
 * The rule, by Unicode property: no character of general category Cc, Cf,
 * Zl, Zp, or Zs other than U+0020, nor another default-ignorable code point;
 * not blank; no space at either end. The refusal is INVALID_ARGUMENT, exit 2,
 * naming the character escaped and its position (from 1), before anything is
 * read or written (the values are refused as the options are parsed: the
 * --from file here does not exist and the server is not there).
 */
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { machineNameProblem } from "../src/cli/options.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

/** Each class of character, with where it is and how the refusal shows it. */
const REFUSED: ReadonlyArray<readonly [string, string, string]> = [
  ["Cf: right-to-left mark", "m\u200f1", "(\\u200f at character 2)"],
  ["Cf: left-to-right mark", "\u200em1", "(\\u200e at character 1)"],
  ["Cf: Arabic letter mark", "m1\u061c", "(\\u061c at character 3)"],
  ["Cf: zero width space", "a\u200bb", "(\\u200b at character 2)"],
  ["Cf: zero width joiner", "a\u200db", "(\\u200d at character 2)"],
  ["Cf: byte order mark", "\ufeffm1", "(\\ufeff at character 1)"],
  ["Cf: soft hyphen", "m\u00ad1", "(\\xad at character 2)"],
  ["Cf: bidirectional override (as before)", "bidi\u202eevil", "(\\u202e at character 5)"],
  ["Zs: no-break space", "m\u00a01", "(\\xa0 at character 2)"],
  ["Zs: ideographic space", "m1\u3000", "(\\u3000 at character 3)"],
  ["Zs: thin space", "m\u20091", "(\\u2009 at character 2)"],
  ["default ignorable: Hangul filler", "m\u31641", "(\\u3164 at character 2)"],
  ["default ignorable: tag past the BMP", "m\u{e0041}1", "(\\u{e0041} at character 2)"],
  ["Cc: escape (as before)", "evil\u001b[31m", "(\\x1b at character 5)"],
  ["Zl: line separator (as before)", "sep\u2028x", "(\\u2028 at character 4)"]
]

describe("machineNameProblem (tester33c F5)", () => {
  it("refuses each class of invisible or look-alike character, naming it and where it is", () => {
    for (const [, name, shown] of REFUSED) {
      const p = machineNameProblem(name)
      expect(p, name).toContain("a machine name may not hold control characters, line breaks or bidirectional controls, nor invisible characters or spaces other than U+0020")
      expect(p, name).toContain(shown)
    }
  })

  it("refuses a blank name and a space at either end", () => {
    expect(machineNameProblem(" ")).toContain("a machine name may not be blank (only spaces)")
    expect(machineNameProblem("   ")).toContain("a machine name may not be blank (only spaces)")
    expect(machineNameProblem(" m1")).toContain("a machine name may not begin with a space (character 1)")
    expect(machineNameProblem("m1 ")).toContain("a machine name may not end with a space (character 3)")
  })

  // tester34c F6: `café` composed and decomposed read the same and were two machines; a 300-character name went in
  it("refuses a name not in Unicode's composed form (NFC) and one over 255 characters", () => {
    expect(machineNameProblem("e\u0301cole")).toContain("a machine name must be written in Unicode's composed form (NFC)")
    expect(machineNameProblem("lap\u0065\u0301top")).toContain("composed form (NFC)")
    expect(machineNameProblem("lap\u00e9top")).toBeUndefined()
    expect(machineNameProblem("a".repeat(256))).toContain("a machine name may be at most 255 characters (a host name's length), not 256")
    expect(machineNameProblem("\u00e9".repeat(255))).toBeUndefined()
  })

  it("allows a host name's characters, non-ASCII letters and a space between words", () => {
    for (const ok of ["m1", "ci-runner_3.example.\u00e9t\u00e9", "two words", "\u00e9cole", "a".repeat(255), "\u65e5\u672c-laptop", "\u0645\u0627\u0634\u064a\u0646"]) {
      expect(machineNameProblem(ok), ok).toBeUndefined()
    }
  })
})

describe("push --machine and import --machine refuse them: INVALID_ARGUMENT, exit 2 (tester33c F5)", () => {
  it("in --json and in text, escaped, for push and import alike", () => {
    const dir = tempDir("si-machine34-")
    const url = "postgres://si@127.0.0.1:1/postgres"
    const commands = [["push", "--from", path.join(dir, "local.db"), "--to", url], ["import", "--index", url, "--workspace", dir]]
    for (const [what, name, shown] of [...REFUSED.filter(([w]) => !w.includes("as before")), ["blank", " ", "may not be blank"], ["trailing space", "m1 ", "may not end with a space (character 3)"], ["leading space", " m1", "may not begin with a space (character 1)"]] as const) {
      // push for every class; import (the same option) for a few, to keep the spawns few on a shared machine
      for (const args of what.startsWith("Cf: right") || what === "blank" || what === "Zs: no-break space" ? commands : commands.slice(0, 1)) {
        const r = cli([...args, "--machine", name, "--json"])
        expect(r.code, `${args[0]} ${what}`).toBe(2)
        const body = JSON.parse(r.stdout)
        expect(body.error.code, what).toBe("INVALID_ARGUMENT")
        expect(body.error.message, what).toContain(shown)
      }
    }
    const text = cli([...commands[0]!, "--machine", "m\u200f1"])
    expect(text.code).toBe(2)
    expect(text.stderr).toContain("INVALID_ARGUMENT")
    expect(text.stderr).toContain("(\\u200f at character 2)")
    expect(text.stderr).not.toContain("\u200f")
  }, 180_000)
})
