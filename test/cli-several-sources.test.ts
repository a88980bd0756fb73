/**
 * One session id held by several sources (a Claude Code log copied to a
 * second project folder): `show`, `export` and `replay` each take one (the
 * latest) and say so on stderr, with the uids of the others to pick another
 * (tester19 F6's related finding: `export` and `replay` picked one silently).
 * Picking one by its `ses_…` uid is silent.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { BILLING, copyFixtures, S } from "./claude-code/helpers.js"
import { importClaude } from "./support/claude-import.js"
import { tempDir } from "./support/paths.js"
import { cli, cliJson } from "./support/run.js"

const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" }
let dir = ""
let index = ""
let uids: Array<string> = []

beforeAll(() => {
  dir = tempDir("si-several-")
  const root = copyFixtures()
  // The same log in a second project folder: a second source of the same session id.
  fs.mkdirSync(path.join(root, "-home-alice-copy"), { recursive: true })
  fs.copyFileSync(path.join(root, BILLING, `${S.S1}.jsonl`), path.join(root, "-home-alice-copy", `${S.S1}.jsonl`))
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
  index = path.join(dir, "i.db")
  importClaude(index, root, agents, env)
  uids = (cliJson(["sessions", "--index", index], env).data as Array<{ sessionId: string; sessionUid: string }>)
    .filter((r) => r.sessionId === S.S1).map((r) => r.sessionUid)
})

describe("a session id held by several sources", () => {
  it.each([
    ["show", ["show", S.S1], "showing"],
    ["export (ATIF)", ["export", S.S1], "exporting"],
    ["export (NDJSON)", ["export", S.S1, "--format", "ndjson"], "exporting"],
    ["replay", ["replay", S.S1], "replaying"]
  ] as const)("%s says on stderr which one it took and names the other", (_, args, verb) => {
    expect(uids.length).toBe(2)
    const r = cli([...args, "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    const note = r.stderr.split("\n").find((l) => l.startsWith("note: 2 sources hold session"))
    expect(note, r.stderr).toBeDefined()
    const took = uids.find((u) => note!.includes(`${verb} ${u} `))!
    expect(took).toBeDefined()
    expect(note).toContain(`(use a ses_… uid to pick another: ${uids.find((u) => u !== took)})`)
    // Picked by its uid: no note.
    const picked = cli([...args.map((a) => (a === S.S1 ? took : a)), "--index", index], { env })
    expect(picked.code, picked.stderr).toBe(0)
    expect(picked.stderr).not.toContain("sources hold session")
  })

  it("a prefix names the session: the note names the session's id, not the prefix typed (tester32a F10)", () => {
    const prefix = S.S1.slice(0, 6)
    const r = cli(["show", prefix, "--index", index], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`note: 2 sources hold session ${S.S1}; showing `)
    expect(r.stderr).not.toContain(`hold session ${prefix};`)
  })
})
