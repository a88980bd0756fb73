/**
 * tester40 F6: a config file of the wrong shape was refused (exit 2, right)
 * with the schema's whole type as the message (`Expected { readonly index?:
 * string | null | undefined; readonly workspaces?: …` — hundreds of
 * characters), and one mistake told twice (`claudeRoot: Expected string,
 * actual 5; claudeRoot: Expected null, actual 5`). The message says what the
 * file or the key must be, in words, once.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "1" }
const dir = tempDir("si-config-messages-")

const refused = (text: string): string => {
  const file = path.join(dir, `c${Math.random().toString(36).slice(2)}.json`)
  fs.writeFileSync(file, text)
  const r = cli(["sessions", "--config", file, "--index", path.join(dir, "none.db"), "--json"], { env, cwd: dir })
  expect(r.code, r.stdout).toBe(2)
  const e = JSON.parse(r.stdout).error
  expect(e.code).toBe("INVALID_ARGUMENT")
  expect(e.message.startsWith(`The config file ${file} is not valid: `)).toBe(true)
  expect(e.message).not.toMatch(/readonly|ReadonlyArray|\{ readonly/)
  return e.message.slice(`The config file ${file} is not valid: `.length)
}

describe("config file messages (tester40 F6)", () => {
  for (const [text, kind] of [["[1,2]", "an array"], ["null", "null"], ["5", "a number"], ['"x"', "a string"], ["true", "true"]] as const) {
    it(`the file holds ${kind}: it must hold one JSON object`, () => {
      expect(refused(text)).toBe(`it must hold one JSON object ({"key": value, ...}), not ${kind}.`)
    })
  }
  it("a structure expected is named, not written out", () => {
    expect(refused('{"prices":"cheap"}')).toBe('prices: Expected an object, actual "cheap"')
    expect(refused('{"workspaces":"x"}')).toBe('workspaces: Expected a list, actual "x"')
    expect(refused('{"redaction":{"patterns":7}}')).toBe("redaction.patterns: Expected a list, actual 7")
  })
  it("one mistake is told once", () => {
    expect(refused('{"claudeRoot":5}')).toBe("claudeRoot: Expected string or null, actual 5")
    expect(refused('{"index":false}')).toBe("index: Expected string or null, actual false")
  })
})

describe("a key given twice in the config file (tester40 F6)", () => {
  it("at the top: refused, naming the key (JSON.parse kept the last one silently)", () => {
    expect(refused('{"index":"a.db","index":"b.db"}')).toBe('the key "index" is given twice.')
  })
  it("inside an object, named with its path; one written with an escape is the same key", () => {
    expect(refused('{"prices":{"m":{"input":1,"output":2,"inp\\u0075t":3}}}')).toBe('the key "input" is given twice in prices.m.')
    expect(refused('{"redaction":{"patterns":[{"id":"a","pattern":"x"},{"id":"b","id":"c","pattern":"y"}]}}')).toBe('the key "id" is given twice in redaction.patterns.1.')
  })
  it("the same key in two objects, or a key's text inside a value, is no repeat", () => {
    const file = path.join(dir, "same-key-apart.json")
    fs.writeFileSync(file, '{"redaction":{"patterns":[{"id":"a","pattern":"\\"id\\":"},{"id":"b","pattern":"id"}]},"workspaces":["index","index"]}')
    const r = cli(["sessions", "--config", file, "--index", path.join(dir, "none.db"), "--json"], { env, cwd: dir })
    expect(r.stdout).not.toContain("given twice")
  })
})
