/**
 * A session's native id as a redacted output shows it (`[REDACTED:github-token]`: a secret was in it, tester38 F2)
 * names no session. `show` given it is SOURCE_NOT_FOUND (exit 4), and the remedy says how to name the session instead:
 * its uid as that output gave it, or its id or uid as `sessions` lists it (session 39, fix38r's leftover).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { claudeTurnsLog, importClaude } from "./support/claude-import.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const TOKEN = "ghp_" + "W2eQ".repeat(9)

describe("a redacted session id given to a command (session 39)", () => {
  it("show: SOURCE_NOT_FOUND whose remedy names the ids that do name the session", () => {
    const dir = tempDir("si-redacted-session-id39-")
    const root = path.join(dir, "claude", "projects")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(root, "-srv-app"), { recursive: true })
    fs.mkdirSync(agents, { recursive: true })
    fs.writeFileSync(path.join(root, "-srv-app", `${TOKEN}.jsonl`), claudeTurnsLog(TOKEN, [["user", "plan it"], ["assistant", "planned"]], "2026-11-21T10:00:00.000Z"))
    const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    const index = path.join(dir, "i.db")
    importClaude(index, root, agents, env)
    const r = cli(["show", "[REDACTED:github-token]", "--index", index, "--json"], { env })
    expect(r.code, r.stderr).toBe(4)
    const error = JSON.parse(r.stdout.trim() || r.stderr.trim()).error
    expect(error.code).toBe("SOURCE_NOT_FOUND")
    expect(error.message).toBe("No session [REDACTED:github-token] in the index.")
    expect(error.remediation).toBe(
      "That id is as a redacted output shows it (a secret was in it), and a redacted id names no session: pass the session's uid as that output gave it (hses_…), or its id or ses_… uid as `session-ingest sessions` lists it."
    )
    // the session is there by its own id
    expect(cli(["show", TOKEN, "--index", index, "--json"], { env }).code).toBe(0)
  })
})
