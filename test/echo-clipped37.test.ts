/**
 * What an error echoes of its input stays bounded and printable (tester36b F12): `show` given a 100 kB id echoed it
 * whole in SOURCE_NOT_FOUND (text and `--json`); the MCP server answered an id holding U+0000 with the raw character in
 * its error's message. Now a run of more than 4,096 non-space characters in a CLI error keeps its first 200 and says how
 * many follow (`…[+N characters]`, `src/domain/echo.ts`), a path (at most 4,096 bytes) is kept whole, and the MCP
 * server's error texts show control characters as escapes (`\x00`), as the CLI's do.
 */
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { clippedEchoes } from "../src/domain/echo.js"
import { claudeUserLine, importedClaudeIndex } from "./support/claude-import.js"
import { cli } from "./support/run.js"
import { connect } from "./mcp/helpers.js"

const SID = "eeeeeeee-1111-4222-8333-444444444437"

describe("clippedEchoes", () => {
  const b = { maxRun: 10, keep: 4, maxText: 200 }
  it("cuts a long run to its start and the count of the rest; text within the bounds unchanged", () => {
    expect(clippedEchoes("id abcdefghijklmnop end", b)).toBe("id abcd…[+12 characters] end")
    expect(clippedEchoes("id abcdefghij end", b)).toBe("id abcdefghij end")
    expect(clippedEchoes("x".repeat(11), b)).toBe("xxxx…[+7 characters]")
  })
  it("holds the whole text to maxText (its first maxText - 100 characters)", () => {
    const words = "abc ".repeat(100)
    expect(clippedEchoes(words, b)).toBe(`${words.slice(0, 100)}…[+300 characters]`)
  })
})

describe("errors that echo their input (tester36b F12)", () => {
  const { index, env } = importedClaudeIndex("si-echo37-", { [SID]: [claudeUserLine(SID, "u1", null, "2026-12-01T00:00:00Z", "hello there")] })
  const long = "z".repeat(100_000)

  it("show of a 100 kB id: SOURCE_NOT_FOUND names its first 200 characters and how many follow (text and --json)", () => {
    const r = cli(["show", long, "--index", index], { env })
    expect(r.code).toBe(4)
    expect(r.stderr).toContain(`No session ${"z".repeat(200)}…[+99800 characters] in the index.`)
    expect(r.stderr.length).toBeLessThan(1_000)
    const j = cli(["show", long, "--index", index, "--json"], { env })
    const e = JSON.parse(j.stdout.trim()).error
    expect(e.code).toBe("SOURCE_NOT_FOUND")
    expect(e.message).toBe(`No session ${"z".repeat(200)}…[+99800 characters] in the index.`)
  })

  it("an error's message shows a tab and a line break of its echo as \\t and \\n, on one line (tester37 F5)", () => {
    const r = cli(["show", "ab\tcd\nef", "--index", index], { env })
    expect(r.code).toBe(4)
    expect(r.stderr).toContain("No session ab\\tcd\\nef in the index.")
    expect(r.stderr).not.toContain("\t")
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(2)
  })

  it("a path of 4,000 characters in an error is kept whole", () => {
    const deep = nodePath.join("/nonexistent", ...Array.from({ length: 40 }, (_, i) => `${"d".repeat(95)}${String(i).padStart(4, "0")}`))
    expect(deep.length).toBeGreaterThan(3_900)
    const r = cli(["sessions", "--index", nodePath.join(deep, "index.db")], { env })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(deep)
  })

  it("MCP: an id holding U+0000 and ESC is answered with them as escapes, the code kept", async () => {
    const server = await connect(["--index", index], env)
    try {
      const err = await server.client.callTool({ name: "get_session", arguments: { id: "ab\u0000cd\u001b[31m" } }).then(
        () => undefined,
        (e: unknown) => e as { code: number; message: string; data?: { message?: string } }
      )
      expect(err).toBeDefined()
      expect(err!.message).toContain("SOURCE_NOT_FOUND")
      expect(err!.message).toContain("ab\\x00cd\\x1b[31m")
      expect(err!.message).not.toMatch(/[\u0000\u001b]/)
      expect(err!.data?.message ?? "").not.toMatch(/[\u0000\u001b]/)
    } finally {
      await server.close()
    }
  })
})
