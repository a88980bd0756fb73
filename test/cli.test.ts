/**
 * The CLI as a user runs it (bin/session-ingest.mjs → the bundle): NDJSON on
 * stdout, the JSON envelope, exit codes of DESIGN.md, one-line errors, never a
 * stack trace.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import type { SessionEvent } from "../src/domain/model.js"
import { shownCursor } from "../src/domain/shown-cursor.js"
import { shownIdsOf } from "./support/shown-ids.js"
import { fixturesDir, peerMuseCode, repoRoot, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

/** The shared folder that holds the peer fixtures (authorized as a workspace for them). */
const shared = path.resolve(peerMuseCode, "..", "..")
const noStackTrace = (s: string) => expect(s).not.toMatch(/\n\s+at [\w.<]+ \(/)

let imported: { readonly dir: string; readonly index: string; readonly root: string } | undefined
/**
 * A temporary folder with the bundled Muse agents fixtures imported into its `i.db`: one import for this file,
 * shared by the cases that read it (none writes to the index).
 */
const importedAgents = () => {
  if (imported !== undefined) return imported
  const dir = tempDir("si-cli-")
  const root = path.join(fixturesDir, "muse-agents", "agents")
  const index = path.join(dir, "i.db")
  expect(cli(["import", "--index", index, "--agents-root", root, "--workspace", dir]).code).toBe(0)
  imported = { dir, index, root }
  return imported
}

describe("session-ingest CLI", () => {
  it("stream prints one NDJSON SessionEvent a line with RFC 3339 occurredAt (live 1.4.0 export: 11)", () => {
    const r = cli(["stream", "muse-code", path.join(peerMuseCode, "live-1.4.0-v1.json"), "--workspace", shared])
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split("\n")
    expect(lines.length).toBe(11)
    for (const l of lines) {
      const e = JSON.parse(l)
      expect(e.contractVersion).toBe("1.3.0")
      expect(e.occurredAt).toMatch(/^2026-09-25T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
    }
  })

  it("a malformed export exits 5 with MALFORMED_SOURCE in the --json envelope", () => {
    const r = cli(["stream", "muse-code", path.join(peerMuseCode, "malformed.json"), "--workspace", shared, "--json"])
    expect(r.code).toBe(5)
    const env = JSON.parse(r.stdout.trimEnd().split("\n").at(-1)!)
    expect(env).toMatchObject({ contractVersion: "1.3.0", command: "stream", status: "error", data: null })
    expect(env.error.code).toBe("MALFORMED_SOURCE")
    noStackTrace(r.stdout + r.stderr)
  })

  it("without --json an error is one line naming the problem, plus the remedy, on stderr", () => {
    const r = cli(["inspect", "muse-code", path.join(peerMuseCode, "unknown-major.json"), "--workspace", shared])
    expect(r.code).toBe(5)
    expect(r.stdout).toBe("")
    expect(r.stderr).toMatch(/^session-ingest: UNKNOWN_SCHEMA_MAJOR: .+\n  remedy: .+\n$/)
  })

  it("--cursor resumes after the event and --limit stops early", () => {
    const file = path.join(fixturesDir, "muse-code", "export", "orderly.json")
    const all = cli(["stream", "muse-code", file]).stdout.trimEnd().split("\n").map((l) => JSON.parse(l))
    expect(all.length).toBe(8)
    const rest = cli(["stream", "muse-code", file, "--cursor", all[2].cursor]).stdout.trimEnd().split("\n")
    expect(rest.map((l) => JSON.parse(l).eventId)).toEqual(all.slice(3).map((e) => e.eventId))
    const two = cli(["stream", "muse-code", file, "--limit", "2"]).stdout.trimEnd().split("\n")
    expect(two.length).toBe(2)
    const bad = cli(["stream", "muse-code", file, "--cursor", "bogus"])
    expect(bad.code).toBe(5)
    expect(bad.stderr).toMatch(/INVALID_CURSOR/)
  })

  it("inspect --json answers the envelope with the inspection", () => {
    const r = cli(["inspect", "muse-code", path.join(fixturesDir, "muse-code", "export", "abnormal.json"), "--json"])
    expect(r.code).toBe(0)
    const env = JSON.parse(r.stdout)
    expect(env.status).toBe("ok")
    expect(env.error).toBeNull()
    expect(env.data.status).toBe("provisional")
    expect(env.data.eventCount).toBe(2)
  })

  it("sessions, show and export refuse an empty file as the index (STORE_UNAVAILABLE, as import does), and leave it empty", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "si-cli-"))
    const empty = path.join(dir, "empty.db")
    fs.writeFileSync(empty, "")
    for (const args of [["sessions"], ["show", "x"], ["export", "x"]]) {
      const r = cli([...args, "--index", empty, "--json"])
      expect(r.code).toBe(6)
      expect(JSON.parse(r.stdout).error.code).toBe("STORE_UNAVAILABLE")
    }
    expect(fs.statSync(empty).size).toBe(0)
    expect(fs.readdirSync(dir)).toEqual(["empty.db"])
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("show from the index renders a Muse agents session as transcript renders its file", () => {
    const { dir, index, root } = importedAgents()
    const shown = cli(["show", "sess-cron", "--index", index, "--format", "markdown"])
    const direct = cli(["transcript", "muse-agents", path.join(root, "cron-first", "sessions", "cron-first.jsonl"), "--agents-root", root, "--format", "markdown"])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("muse-large-2") // the model, from sessions.json: no event carries it
    expect(shown.stdout).toBe(direct.stdout)
  })

  it("sessions with --since after --until is INVALID_ARGUMENT, not an empty list", () => {
    const r = cli(["sessions", "--since", "2026-01-01", "--until", "2025-01-01", "--index", path.join(os.tmpdir(), "none.db"), "--json"])
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout).error.code).toBe("INVALID_ARGUMENT")
    // `sessions` selects by overlap (active at or after --since, started at or before --until: docs/cli-output.md), so
    // a session can span an inverted range: the refusal is a rule (tester32a F11), never "no session can match"
    expect(JSON.parse(r.stdout).error.message).toContain("a range must run forward")
    expect(JSON.parse(r.stdout).error.message).not.toContain("can match")
  })

  it("export --format ndjson (stdout or --out) and show --format events print the same events, streamed from the index", () => {
    const { dir, index, root } = importedAgents()
    const shown = cli(["show", "sess-cron", "--index", index, "--format", "events"])
    const exported = cli(["export", "sess-cron", "--index", index, "--format", "ndjson"])
    const out = path.join(dir, "o.ndjson")
    expect(cli(["export", "sess-cron", "--index", index, "--format", "ndjson", "--out", out]).code).toBe(0)
    expect(shown.code).toBe(0)
    expect(shown.stdout.trimEnd().split("\n").length).toBe(20) // sess-cron: 20 events (the demo's listing)
    // export redacts by default: the same events, each named by its shown source id and cursor (keyed by the index's
    // secret) and without its line's byte offset (docs/redaction.md, "Cursors and offsets"); with --no-redact, the
    // record as `show` prints it
    const ids = shownIdsOf(index)
    const asShared = shown.stdout.trimEnd().split("\n").map((l) => {
      const e = JSON.parse(l) as SessionEvent
      const { offset: _, ...rawReference } = e.rawReference
      return JSON.stringify({ ...e, sourceId: ids.sourceId(e.sourceId), cursor: shownCursor(e, ids), rawReference })
    }).join("\n") + "\n"
    expect(exported.stdout).toBe(asShared)
    expect(fs.readFileSync(out, "utf8")).toBe(asShared)
    expect(cli(["export", "sess-cron", "--index", index, "--format", "ndjson", "--no-redact"]).stdout).toBe(shown.stdout)
    // --out never overwrites, and a failed export leaves no file behind.
    expect(cli(["export", "sess-cron", "--index", index, "--format", "ndjson", "--out", out]).code).toBe(2)
    expect(cli(["export", "nope", "--index", index, "--format", "ndjson", "--out", path.join(dir, "n.ndjson")]).code).toBe(4)
    expect(fs.existsSync(path.join(dir, "n.ndjson"))).toBe(false)
  })

  it("--help with --json shows the help (exit 0), as --help alone does", () => {
    const withJson = cli(["stream", "--json", "--help"])
    expect(withJson.code).toBe(0)
    expect(withJson.stdout).toContain("USAGE")
    expect(withJson.stdout).toBe(cli(["stream", "--help"]).stdout)
    // Piped, the help carries no colour codes.
    expect(withJson.stdout).not.toContain("\u001b[")
    expect(cli(["--help"]).stdout).not.toContain("\u001b[")
  })

  it("a session.jsonl given to muse-code without --locator-class is read as a native log", () => {
    const root = path.join(fixturesDir, "muse-code", "native")
    const log = path.join(root, "2026", "09", "25", "22222222-2222-4222-8222-222222222222", "session.jsonl")
    const r = cli(["inspect", "muse-code", log, "--muse-root", root, "--json"])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).data).toMatchObject({ locatorClass: "muse-native-session-log", status: "complete" })
  })

  it("an option given without its value, or twice, is INVALID_ARGUMENT (2), not a value or a file name", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "si-cli-"))
    const index = path.join(dir, "i.db")
    for (
      const args of [
        ["import", "--json", "--agent", "--index", index],
        ["import", "--json", "--index", index, "--state", path.join(dir, "s.db"), "--agent", "u1", "--state", path.join(dir, "t.db")],
        ["stream", "muse-code", "--bogus-flag", "--json"]
      ]
    ) {
      const r = cli(args, { env: { HOME: dir, XDG_DATA_HOME: dir } })
      expect(r.code).toBe(2)
      expect(JSON.parse(r.stdout.trimEnd().split("\n").at(-1)!).error.code).toBe("INVALID_ARGUMENT")
    }
    // Nothing was imported anywhere: no index was created.
    expect(fs.readdirSync(dir)).toEqual([])
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("exit codes: unknown provider 2, discover without a root 3, outside the workspace 4, a bad option 2", () => {
    const unknown = cli(["inspect", "nope", "x.json", "--json"])
    expect(unknown.code).toBe(2)
    expect(JSON.parse(unknown.stdout).error.code).toBe("INVALID_ARGUMENT")
    const discover = cli(["discover", "muse-code", "--json"])
    expect(discover.code).toBe(3)
    expect(JSON.parse(discover.stdout).error).toMatchObject({ code: "UNSUPPORTED_OPERATION" })
    expect(JSON.parse(discover.stdout).error.remediation).toMatch(/--muse-root/)
    const outside = cli(["inspect", "muse-code", path.join(peerMuseCode, "valid-v1.json")])
    expect(outside.code).toBe(4)
    expect(outside.stderr).toMatch(/SOURCE_OUTSIDE_ALLOWED_ROOT/)
    const missing = cli(["inspect", "muse-code", "no-such-file.json"])
    expect(missing.code).toBe(4)
    expect(missing.stderr).toMatch(/SOURCE_NOT_FOUND/)
    const badOption = cli(["stream", "muse-code", "--limit", "many", "x.json"])
    expect(badOption.code).toBe(2)
    noStackTrace(badOption.stdout + badOption.stderr)
  })

  it("providers lists each provider's disposition, operations and locator classes", () => {
    const r = cli(["providers", "--json"])
    expect(r.code).toBe(0)
    const data = JSON.parse(r.stdout).data
    const mc = data.find((d: any) => d.provider === "muse-code")
    expect(mc.locatorClasses).toEqual(["manual-export", "muse-native-session-log"])
    expect(mc.operations).toContain("stream")
  })

  it("a reader that goes away (| head) ends the stream quietly", () => {
    const file = path.join(fixturesDir, "muse-code", "export", "orderly.json")
    const r = spawnSync("bash", ["-c", `node ${path.join(repoRoot, "bin", "session-ingest.mjs")} stream muse-code ${file} | head -c 10`], {
      cwd: repoRoot,
      encoding: "utf8"
    })
    expect(r.stdout.length).toBe(10)
    noStackTrace(r.stderr)
    expect(r.stderr).toBe("")
  })
})

describe("npm run demo", () => {
  it("imports every provider's fixtures, re-imports nothing, and lists sessions with times that carry their zone", () => {
    const r = spawnSync(process.execPath, [path.join(repoRoot, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/demo.ts"], {
      cwd: repoRoot,
      encoding: "utf8"
    })
    expect(r.status, r.stderr).toBe(0)
    // 3 Muse Code (2 exports, 1 native log with its nested log), 3 Muse agents, 3 AgentMux, 6 Claude Code files;
    // sessions: 5 + 3 + 3 + 6 Claude Code sessions with one subagent and one inline sidechain of their own.
    expect(r.stdout).toMatch(/coverage complete: 15 sources, 15 imported, 0 unchanged, 0 rejected; \+19 sessions/)
    expect(r.stdout).toMatch(/coverage complete: 15 sources, 0 imported, 15 unchanged, 0 rejected; \+0 sessions, \+0 events/)
    const listing = r.stdout.split("\n").filter((l) => / events? {2}/.test(l))
    expect(listing.length).toBe(19)
    // Counts are pluralised: a one-event session reads "1 event", never "1 events" (nor 1 sessions, sources, steps).
    expect(listing.some((l) => /\s1 event {3}/.test(l)), listing.join("\n")).toBe(true)
    expect(r.stdout).not.toMatch(/(?<![\d.,])1 (events|sessions|sources|steps|trajectories)\b/)
    // Times for people carry their zone (README): UTC with Z.
    for (const line of listing) expect(line).toMatch(/^ {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}/)
  })
})

describe("show --format transcript", () => {
  it("equals transcript's for the same Muse agents source: turns, parse warnings and diagnostics (text and --json)", () => {
    const { index, root } = importedAgents()
    const file = path.join(root, "messy", "sessions", "messy.jsonl")
    const own = JSON.parse(cli(["transcript", "muse-agents", file, "--agents-root", root, "--json"]).stdout).data
    const shown = JSON.parse(cli(["show", "sess-messy", "--index", index, "--format", "transcript", "--json"]).stdout).data
    // The messy fixture has bad lines and an ignored sessions.json: the point of this test.
    expect(own.parseWarnings.length).toBeGreaterThan(0)
    expect(own.diagnostics.map((d: { kind: string }) => d.kind)).toContain("sessions-index-not-object")
    expect(shown).toEqual(own)
    const text = cli(["transcript", "muse-agents", file, "--agents-root", root]).stdout
    expect(cli(["show", "sess-messy", "--index", index, "--format", "transcript"]).stdout).toBe(text)
  })
})

describe("import's text report", () => {
  it("names what it superseded without importing (a session id changed in place) and counts files that are gone", () => {
    const dir = tempDir("si-cli-sup-")
    const root = path.join(dir, "agents")
    fs.cpSync(path.join(fixturesDir, "muse-agents", "agents"), root, { recursive: true })
    const index = path.join(dir, "i.db")
    const args = ["import", "--index", index, "--agents-root", root, "--workspace", dir]
    expect(cli(args).code).toBe(0)
    const file = path.join(root, "cron-first", "sessions", "cron-first.jsonl")
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("sess-cron", "sess-cran"))
    fs.rmSync(path.join(root, "delegate"), { recursive: true })
    const r = cli(args)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^ {2}superseded: 1 imported before, now changed .*cron-first\.jsonl: .*sess-cron → sess-cran/m)
    expect(r.stdout).toMatch(/^ {2}gone: {5}1 imported before whose file is gone \(kept in the index\)$/m)
    const listed = cli(["sessions", "--index", index, "--json"])
    expect(JSON.parse(listed.stdout).data.map((s: { sessionId: string }) => s.sessionId).sort()).toEqual(["sess-cran", "sess-delegate", "sess-messy"])
  })
})
