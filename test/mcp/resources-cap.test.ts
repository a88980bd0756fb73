/**
 * `resources/list` lists the latest 1,000 sessions (MAX_LISTED_RESOURCES): its
 * answer is one line, and listing every session of a team's index went past
 * the 8 MiB answer bound, so no resource could be listed at all (tester20
 * F10). Every session stays readable by `session://<id>`, and `list_sessions`
 * lists them all. Checked with the official MCP client over stdio.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { MAX_LISTED_RESOURCES } from "../../src/layers/mcp/answers.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, connect } from "./helpers.js"

const SESSIONS = MAX_LISTED_RESOURCES + 3
const idOf = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`

describe("resources/list on an index of more sessions than it lists", () => {
  it("lists the latest 1,000, latest first; the oldest is still read by its uri and listed by list_sessions", async () => {
    const dir = tempDir("si-mcp-cap-")
    const folder = path.join(dir, "projects", "-w")
    fs.mkdirSync(folder, { recursive: true })
    fs.mkdirSync(path.join(dir, "agents", "nobody"), { recursive: true })
    // session i at 2026-01-01 + i minutes: the higher i, the later
    for (let i = 0; i < SESSIONS; i++) {
      const ts = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString()
      const line = { type: "user", sessionId: idOf(i), uuid: `u${i}`, parentUuid: null, timestamp: ts, cwd: "/w", message: { role: "user", content: `prompt ${i}` } }
      fs.writeFileSync(path.join(folder, `${idOf(i)}.jsonl`), JSON.stringify(line) + "\n")
    }
    const index = path.join(dir, "index.db")
    const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "projects"), "--agents-root", path.join(dir, "agents")])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const c = await connect(["--index", index])
    try {
      const listed = await c.client.listResources()
      expect(listed.resources.length).toBe(MAX_LISTED_RESOURCES)
      expect(listed.nextCursor).toBeUndefined()
      // the latest 1,000 (sessions 1,002 down to 3), latest first
      expect(listed.resources.map((x) => x.name)).toEqual(Array.from({ length: MAX_LISTED_RESOURCES }, (_, k) => `prompt ${SESSIONS - 1 - k}`))
      const oldest = await c.client.readResource({ uri: `session://${idOf(0)}` })
      expect((oldest.contents[0] as { text: string }).text).toContain("prompt 0")
      const all = answerOf(await c.client.callTool({ name: "list_sessions", arguments: { limit: SESSIONS } }))
      expect(all.sessions.length).toBe(SESSIONS)
    } finally {
      await c.close()
    }
  }, 120_000)
})
