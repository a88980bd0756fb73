/**
 * `usage` and `sessions` with odd model names, as a source may write them
 * (tester18 F13): a 500-character model keeps the `usage` table narrow (its
 * cell clipped with `…`; JSON keeps it whole); a model with a trailing space
 * is shown quoted, so it is not mistaken for the real one; a response with
 * no model is not told to add a price for it.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { NAME_CELL_MAX, shownName } from "../src/domain/render.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const SID = "a3a3a3a3-0000-4000-8000-000000000001"
const LONG = "M".repeat(500)
const line = (i: number, model: string | null, usage: Record<string, number>) =>
  JSON.stringify({
    isSidechain: false, cwd: "/tmp/um", sessionId: SID, version: "2.1.14", parentUuid: null, type: "assistant", requestId: `req-${i}`,
    uuid: `a${i}`, timestamp: `2026-01-15T08:30:0${i}.000Z`,
    message: { ...(model !== null ? { model } : {}), id: `msg_${i}`, type: "message", role: "assistant", content: [{ type: "text", text: `answer ${i}` }], usage }
  })

const setup = (() => {
  let index: string | undefined
  return () => {
    if (index !== undefined) return index
    const root = nodePath.join(tempDir("si-usage-names-"), "projects")
    fs.mkdirSync(nodePath.join(root, "-tmp-um"), { recursive: true })
    fs.writeFileSync(nodePath.join(root, "-tmp-um", `${SID}.jsonl`), [
      JSON.stringify({ isSidechain: false, cwd: "/tmp/um", sessionId: SID, version: "2.1.14", parentUuid: null, type: "user", uuid: "u0", timestamp: "2026-01-15T08:30:00.000Z", message: { role: "user", content: "weird models" } }),
      line(1, LONG, { input_tokens: 2, output_tokens: 2 }),
      line(2, "", { input_tokens: 3, output_tokens: 3 }),
      line(3, "claude-sonnet-4-5 ", { input_tokens: 4, output_tokens: 4 }),
      line(4, "claude-sonnet-4-5", { input_tokens: 5, output_tokens: 5 })
    ].join("\n") + "\n")
    index = nodePath.join(nodePath.dirname(root), "idx.db")
    const r = cli(["import", "--claude-root", root, "--agents-root", root, "--index", index], { env })
    expect(r.code).toBe(0)
    return index
  }
})()
const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", XDG_CONFIG_HOME: nodePath.join(tempDir("si-xdg-"), "none") }

describe("usage with odd model names (tester18 F13)", () => {
  it("usage --by model: no line wider than the table needs; a 500-character model clipped with …, whole in JSON", () => {
    const index = setup()
    const text = cli(["usage", "--by", "model", "--index", index], { env }).stdout
    const table = text.split("\n").filter((l) => !l.startsWith("note:") && !l.startsWith("usage by"))
    for (const l of table) expect(l.length, l).toBeLessThanOrEqual(NAME_CELL_MAX + 60)
    expect(text).toContain("M".repeat(NAME_CELL_MAX - 1) + "…")
    expect(text).not.toContain("M".repeat(NAME_CELL_MAX))
    const json = JSON.parse(cli(["usage", "--by", "model", "--index", index, "--json"], { env }).stdout)
    expect(json.data.rows.map((r: any) => r.key)).toContain(LONG)
  })

  it("a model with a trailing space is shown quoted, apart from the real one, in the table and its note", () => {
    const index = setup()
    const lines = cli(["usage", "--by", "model", "--index", index], { env }).stdout.split("\n")
    expect(lines.filter((l) => /^claude-sonnet-4-5\s/.test(l))).toHaveLength(1)
    expect(lines.filter((l) => l.startsWith(`"claude-sonnet-4-5 "  `))).toHaveLength(1)
    expect(lines).toContain(`note: "claude-sonnet-4-5 ": 1 response without a price (not in the price table): tokens without a cost; add it under "prices" in the config file.`)
    const sessions = cli(["sessions", "--index", index], { env }).stdout
    expect(sessions).toContain(`"claude-sonnet-4-5 " (1 response)`)
  })

  it("a response with no model is not told to add a price for it", () => {
    const index = setup()
    for (const args of [["usage", "--by", "model"], ["usage"], ["sessions"]]) {
      const out = cli([...args, "--index", index], { env }).stdout
      const noModel = out.split("\n").filter((l) => /no model/.test(l) && /^(note|\?)/.test(l))
      expect(noModel, out).toHaveLength(1)
      expect(noModel[0]).not.toMatch(/prices/)
      expect(noModel[0]).toMatch(/no model/)
    }
  })

  it("shownName: quoted when spaces would hide, controls visible, clipped at either end without splitting a surrogate pair", () => {
    expect(shownName("claude-sonnet-4-5")).toBe("claude-sonnet-4-5")
    expect(shownName("my model")).toBe("my model")
    expect(shownName("m ")).toBe(`"m "`)
    expect(shownName(" m")).toBe(`" m"`)
    expect(shownName("a  b")).toBe(`"a  b"`)
    expect(shownName("a\tb")).toBe(`"a\\tb"`)
    expect(shownName("m\u00a0")).toBe(`"m\\u00a0"`)
    expect(shownName("m\u200b")).toBe(`"m\\u200b"`)
    expect(shownName("")).toBe(`""`)
    expect(shownName("a\u001bb")).toBe("a\\x1bb")
    expect(shownName("x".repeat(50), 10)).toBe("x".repeat(9) + "…")
    expect(shownName("/home/u/" + "p".repeat(50) + "/app", 10, "end")).toBe("…" + "ppppp/app")
    expect(shownName("abcdefgh🎉xyz", 10)).toBe("abcdefgh…")
    expect(shownName("x🎉abcdefgh", 10, "end")).toBe("…abcdefgh")
  })
})
