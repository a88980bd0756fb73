/**
 * tester32a F5: a name that must be quoted (it holds a line feed, runs of spaces, ...) and is longer than its cell
 * stays recognisably quoted when it is clipped (docs/usage-and-cost.md, `usage`: "quoted as JSON writes it" and "at
 * most 40 characters, a longer one ending with `…` (a workspace and a session id keep their end ...)"): kept at its
 * end it reads `"…tail"`, at its start `"head…`, never cut inside an escape, so a source's `cwd` cannot print a tail of
 * its own choosing (`total  999  999  $1000.00`) in the name column of `usage --by workspace` as if it were numbers.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { NAME_CELL_MAX, shownName } from "../src/domain/render.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" }
const SID = "f5f5f5f5-0000-4000-8000-000000000005"
const EVIL = "/home/t/evil\ntotal                 999     999  $1000.00"

describe("a quoted name clipped to its cell stays quoted", () => {
  it("kept at its end: `\"…` then the tail with its closing quote; at its start: `\"` then the head and `…`", () => {
    const end = shownName(EVIL, NAME_CELL_MAX, "end")
    expect(end.length).toBeLessThanOrEqual(NAME_CELL_MAX)
    expect(end.startsWith(`"…`)).toBe(true)
    expect(end.endsWith(`$1000.00"`)).toBe(true)
    const start = shownName(EVIL, NAME_CELL_MAX, "start")
    expect(start.length).toBeLessThanOrEqual(NAME_CELL_MAX)
    expect(start.startsWith(`"/home/t/evil\\ntotal`)).toBe(true)
    expect(start.endsWith("…")).toBe(true)
  })

  it("never cut inside an escape (\\n, \\uHHHH, \\\"): the cut moves to the escape's edge", () => {
    // `"ab\ncdefgh"` is 12 characters: a cell of 10 keeping the end would start at the `n` of `\n`.
    expect(shownName("ab\ncdefgh", 10, "end")).toBe(`"…cdefgh"`)
    expect(shownName("ab\ncdefgh", 11, "end")).toBe(`"…\\ncdefgh"`)
    // `"a\u00a0bcdefg"`: a cut in the middle of `\u00a0` keeps none of it.
    expect(shownName("a\u00a0bcdefg", 10, "end")).toBe(`"…bcdefg"`)
    // at the start: `"abc\u00a0…` is never written as `"abc\u0…`
    expect(shownName("abc\u00a0  defgh", 9, "start")).toBe(`"abc…`)
    expect(shownName("abc\u00a0  defgh", 11, "start")).toBe(`"abc\\u00a0…`)
    // an escaped quote is one character of the name: not split into a lone backslash
    expect(shownName("x  \"yz", 6, "end")).toBe(`"…yz"`)
  })

  it("a plain name is clipped as before", () => {
    expect(shownName("/home/u/" + "p".repeat(50) + "/app", 10, "end")).toBe("…" + "ppppp/app")
    expect(shownName("x".repeat(50), 10)).toBe("x".repeat(9) + "…")
  })

  it("usage --by workspace: the forged tail stays inside a quoted cell (docs/usage-and-cost.md)", () => {
    const dir = tempDir("si-usage-clip-")
    const root = nodePath.join(dir, "projects")
    fs.mkdirSync(nodePath.join(root, "-home-t-evil"), { recursive: true })
    const base = { isSidechain: false, cwd: EVIL, sessionId: SID, version: "2.1.14", parentUuid: null }
    fs.writeFileSync(
      nodePath.join(root, "-home-t-evil", `${SID}.jsonl`),
      [
        JSON.stringify({ ...base, type: "user", uuid: "u0", timestamp: "2026-01-15T08:30:00.000Z", message: { role: "user", content: "hi" } }),
        JSON.stringify({
          ...base, type: "assistant", requestId: "req-1", uuid: "a1", timestamp: "2026-01-15T08:30:01.000Z",
          message: { model: "claude-sonnet-4-5", id: "msg_1", type: "message", role: "assistant", content: [{ type: "text", text: "ok" }], usage: { input_tokens: 1000, output_tokens: 1000 } }
        })
      ].join("\n") + "\n"
    )
    const index = nodePath.join(dir, "idx.db")
    const imported = cli(["import", "--claude-root", root, "--agents-root", root, "--index", index], { env })
    expect(imported.code, imported.stderr).toBe(0)
    const r = cli(["usage", "--by", "workspace", "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    const row = r.stdout.split("\n").find((l) => l.includes("1,000"))!
    expect(row, r.stdout).toBeDefined()
    // The name cell: quoted, opening `"…`, its tail closed by `"`, then the real numbers.
    expect(row.startsWith(`"…`), row).toBe(true)
    expect(row).toMatch(/\$1000\.00" +1,000 +1,000 /)
  })
})
