/**
 * A Claude Code log imported before, then overwritten in place with garbage (every byte but the line breaks, the same
 * size): discovery no longer lists it (it holds no conversation), and the importer superseded its session: `import`
 * said "complete", exit 0, and the session was gone from `sessions` (tester37 F1). docs/import.md "Sources emptied or
 * zeroed on disk": a damaged file is kept, never superseded, coverage partial (exit 8); only a file rewritten with
 * other content (a session) is a new version. Lines none of which reads as JSON are damage: `SOURCE_GARBLED` (`SOURCE_EMPTIED` until tester38b F3), the
 * session kept. A file rewritten as another session's JSON lines is still superseded (emptied-source.test.ts' rule).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { claudeEchoLog, importedClaudeIndex } from "../support/claude-import.js"
import { cli } from "../support/run.js"

const SID = "abababab-1111-4222-8333-444444444437"

describe("a Claude Code log overwritten in place with garbage (tester37 F1)", () => {
  it("is kept as damage (SOURCE_GARBLED, exit 8), its session still listed; put back, it imports as before", () => {
    const { project, index, env, run } = importedClaudeIndex("si-garbled37-", { [SID]: claudeEchoLog(SID, ["first text", "second text"]) })
    const listed = () => (JSON.parse(run(["sessions", "--index", index, "--json"])).data as Array<{ sessionId: string }>).map((s) => s.sessionId)
    expect(listed()).toContain(SID)
    const file = project.file(SID)
    const good = fs.readFileSync(file)
    const garbage = Buffer.from(good.map((b) => (b === 0x0a ? 0x0a : 0x78)))
    fs.writeFileSync(file, garbage)
    const r = cli(["import", "--index", index, "--claude-root", project.root, "--agents-root", path.join(path.dirname(project.root), "none"), "--json"], { env })
    expect(r.code, r.stderr + r.stdout).toBe(8)
    const report = JSON.parse(r.stdout.trim().split("\n").pop()!).data
    expect(report.sources.superseded).toBe(0)
    const cause = report.causes.find((c: { code: string }) => c.code === "SOURCE_GARBLED")
    expect(cause?.path).toBe(file)
    expect(cause?.problem).toContain("none of which reads as JSON")
    expect(listed()).toContain(SID)
    // The source never written to.
    expect(fs.readFileSync(file)).toEqual(garbage)
    // Put back: imported as before (nothing new), the session there.
    fs.writeFileSync(file, good)
    const back = cli(["import", "--index", index, "--claude-root", project.root, "--agents-root", path.join(path.dirname(project.root), "none"), "--json"], { env })
    expect(back.stdout).not.toContain("SOURCE_GARBLED")
    expect(listed()).toContain(SID)
  })
})
