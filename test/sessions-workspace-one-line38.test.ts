/**
 * The `sessions` listing showed a workspace's tab and line feed as spaces, so `/home/me/a<TAB>b` and `/home/me/a b`
 * read the same (tester37 F5), while `discover` showed `\t` and `\n`. A workspace is a path, one line by nature:
 * docs/cli-output.md "A value that is one line by nature (… a path …) also shows its line breaks and tabs as `\n`,
 * `\r`, `\t`". Its other controls stay escapes (`\x1b`); `--json` carries the value as it is.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { claudeProject } from "./support/claude-import.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const SID = "41414141-0000-4000-8000-000000000038"
const CWD = "/home/me/a\tb\nc\x1b]0;pwn\x07 d"

describe("sessions: the workspace column is one line (tester37 F5)", () => {
  it("shows the workspace's tab and line feed as \\t and \\n, its other controls as escapes; --json as it is", () => {
    const dir = tempDir("si-ws-one-line38-")
    const project = claudeProject(dir)
    const base = { parentUuid: null, isSidechain: false, userType: "external", cwd: CWD, sessionId: SID, version: "2.0.76" }
    project.write(SID, [
      { ...base, type: "user", uuid: "00000000-0000-4000-8000-000000000001", timestamp: "2026-05-01T00:00:00Z", message: { role: "user", content: "hello" } }
    ])
    const index = nodePath.join(dir, "i.db")
    const env = { NO_COLOR: "1", XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    const imported = cli(["import", "--index", index, "--claude-root", project.root, "--agents-root", nodePath.join(dir, "none")], { env })
    expect([0, 8], imported.stderr).toContain(imported.code)
    const listed = cli(["sessions", "--index", index], { env })
    expect(listed.code, listed.stderr).toBe(0)
    const row = listed.stdout.split("\n").find((l) => l.includes(SID))!
    expect(row.endsWith("/home/me/a\\tb\\nc\\x1b]0;pwn\\x07 d"), row).toBe(true)
    expect(listed.stdout.split("\n").filter((l) => l.trim() !== "")).toHaveLength(2)
    const json = cli(["sessions", "--index", index, "--json"], { env })
    expect((JSON.parse(json.stdout).data as Array<{ workspace: string }>)[0].workspace).toBe(CWD)
    expect(fs.existsSync(project.file(SID))).toBe(true)
  })
})
