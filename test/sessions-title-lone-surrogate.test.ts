/**
 * tester24b F3: a lone surrogate escape (`\ud800`) in the JSON text of a first
 * prompt shows as one U+FFFD in the session's title, as the transcript shows
 * it, not three (the SQLite driver writes a lone surrogate as three bytes,
 * which read back as three U+FFFD); a cut through a surrogate pair likewise.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { titleOf } from "../src/domain/muse-agents/summary.js"
import { cli } from "./support/run.js"
import { tempDir } from "./support/paths.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "", TZ: "UTC" }
const SID = "7c7c7c7c-0000-4000-8000-00000000007c"

describe("a lone surrogate in a first prompt (tester24b F3)", () => {
  it("titleOf: one U+FFFD per lone surrogate; a pair the cut would split is left out whole", () => {
    expect(titleOf("a \ud800 lone \udc00 b")).toBe("a \ufffd lone \ufffd b")
    expect(titleOf("ok \ud83d\ude00 pair")).toBe("ok \ud83d\ude00 pair")
    // 78 characters, then a pair astride unit 79: the cut keeps the 78 (session 34, tester33a F4: it kept the
    // pair's high half, shown as U+FFFD).
    const cut = titleOf("x".repeat(78) + "\ud83d\ude00 and more")
    expect(cut).toBe("x".repeat(78) + "\u2026")
  })

  it("the imported title reads one U+FFFD, as the transcript", () => {
    const root = tempDir("si-lone-surrogate-")
    const dir = nodePath.join(root, "-x")
    fs.mkdirSync(dir, { recursive: true })
    // JSON text with the escape as written (JSON.stringify would write it the same: a lone surrogate is escaped).
    const line = `{"type":"user","sessionId":"${SID}","uuid":"u1","cwd":"/work/ws","timestamp":"2026-03-01T00:00:00Z",` +
      `"message":{"role":"user","content":"before \\ud800 lone after"}}\n`
    fs.writeFileSync(nodePath.join(dir, `${SID}.jsonl`), line)
    const out = tempDir()
    const index = nodePath.join(out, "idx.db")
    const imp = cli(["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(out, "none"), "--muse-root", nodePath.join(out, "none"), "--workspace", out], { env })
    expect([0, 8]).toContain(imp.code)
    const json = cli(["sessions", "--index", index, "--json"], { env })
    expect(json.code).toBe(0)
    const rows = JSON.parse(json.stdout).data as Array<{ sessionId: string; title: string | null }>
    expect(rows.find((r) => r.sessionId === SID)?.title).toBe("before \ufffd lone after")
    const transcript = cli(["show", SID, "--index", index, "--format", "transcript"], { env })
    expect(transcript.code).toBe(0)
    expect(transcript.stdout).toContain("before \ufffd lone after")
  })
})
