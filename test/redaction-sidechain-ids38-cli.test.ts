/**
 * tester38 F2 through the CLI: an inline sidechain (`isSidechain` lines in the parent's log) is the session
 * `sidechain-<uuid of its first line>`; a uuid holding white space and a GitHub token made that session id, written
 * verbatim in every redacted output. Now `export --format atif` / `--format ndjson`, `show --format markdown` and
 * `replay` of the sidechain (and the parent's ATIF, which embeds it) show it redacted by the text rules, as a
 * non-id-shaped link id is.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeAssistantLine, claudeUserLine, importedClaudeIndex } from "./support/claude-import.js"

const SID = "38383838-0000-4000-8000-0000000000f2"
// built at run time so that no secret scanner flags this file
const TOKEN = ["ghp", "_", "K0027XQ1w2E3r4T5y6U7i8O9p0A1s2D3f4G5"].join("")
const UUID = "2eb0a3f1-e31a-4e77-a276-f0ac6d6f2a6c"
const SHOWN = `sidechain-${UUID} [REDACTED:github-token]`

let index: string
let dir: string
let run: (args: ReadonlyArray<string>) => string

beforeAll(() => {
  const side = (l: Record<string, unknown>) => ({ ...l, isSidechain: true })
  const lines = [
    claudeUserLine(SID, "u0", null, "2026-12-01T00:00:00Z", "hello there"),
    claudeAssistantLine(SID, "a0", "u0", "2026-12-01T00:00:01Z", [{ type: "text", text: "hi" }]),
    side(claudeUserLine(SID, `${UUID} ${TOKEN}`, null, "2026-12-01T00:00:02Z", "side task")),
    side(claudeAssistantLine(SID, "s1", `${UUID} ${TOKEN}`, "2026-12-01T00:00:03Z", [{ type: "text", text: "side done" }]))
  ]
  ;({ index, dir, run } = importedClaudeIndex("si-sidechain38-cli-", { [SID]: lines }))
}, 120_000)

describe("tester38 F2: a sidechain session id built from a source's uuid is redacted in the redacted outputs", () => {
  it("export (ATIF, NDJSON), show --format markdown and replay of the sidechain and its parent", () => {
    const outs: Record<string, string> = {
      atif: run(["export", `sidechain-${UUID}`, "--format", "atif", "--index", index]),
      ndjson: run(["export", `sidechain-${UUID}`, "--format", "ndjson", "--index", index]),
      markdown: run(["show", `sidechain-${UUID}`, "--format", "markdown", "--index", index]),
      parentAtif: run(["export", SID, "--format", "atif", "--index", index])
    }
    const page = path.join(dir, "side.html")
    run(["replay", `sidechain-${UUID}`, "--index", index, "--out", page])
    outs.replay = fs.readFileSync(page, "utf8")
    for (const [name, out] of Object.entries(outs)) expect(out, name).not.toContain(TOKEN)
    expect((JSON.parse(outs.atif) as { session_id: string }).session_id).toBe(SHOWN)
    const first = JSON.parse(outs.ndjson.trim().split("\n")[0]) as { sessionId: string }
    expect(first.sessionId).toBe(SHOWN)
    expect(outs.parentAtif).toContain(JSON.stringify(SHOWN))
    // the unredacted listing still names it as stored
    expect(run(["sessions", "--index", index, "--json"])).toContain(TOKEN)
  })
})
