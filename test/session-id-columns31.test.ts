/**
 * tester31a F6: an inline sidechain's session id (`sidechain-<uuid>`, 47 characters) pushed its row's title and
 * workspace right of every other row's in `sessions`, and `usage --by session` clipped it to its first 40 characters,
 * losing the end that tells such ids apart. The session column is as wide as its longest id; a clipped id keeps its
 * end, as a workspace does (docs/usage-and-cost.md).
 */
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "./support/paths.js"
import { claudeProjectRoot } from "./support/claude-import.js"
import { cli } from "./support/run.js"

const S = "cdcdcdcd-0000-4000-8000-0000000000cd"
const SIDE = "00000000-0000-4000-9000-000000000012"
const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId: S, parentUuid: null, cwd: "/tmp/p", isSidechain: false, ...o })
const usage = { input_tokens: 10, output_tokens: 10 }

describe("session ids in the tables (tester31a F6)", () => {
  it("sessions lines up its columns on a sidechain id; usage --by session keeps the id's distinguishing end", () => {
    const dir = tempDir("si-idcols-")
    const root = claudeProjectRoot(dir, S, [
      line({ type: "user", uuid: "u1", timestamp: "2026-11-10T10:00:00.000Z", message: { role: "user", content: "main prompt" } }),
      line({ type: "assistant", uuid: "u2", timestamp: "2026-11-10T10:00:01.000Z", message: { model: "claude-sonnet-4-5-20250929", id: "msg_1", role: "assistant", content: [{ type: "text", text: "ok" }], usage } }),
      line({ type: "user", uuid: SIDE, isSidechain: true, timestamp: "2026-11-10T10:00:02.000Z", message: { role: "user", content: "side quest" } }),
      line({ type: "assistant", uuid: "u4", parentUuid: SIDE, isSidechain: true, timestamp: "2026-11-10T10:00:03.000Z", message: { model: "claude-sonnet-4-5-20250929", id: "msg_2", role: "assistant", content: [{ type: "text", text: "side done" }], usage } })
    ])
    const index = path.join(dir, "i.db")
    const imp = cli(["import", "--index", index, "--claude-root", root])
    expect(imp.code, imp.stderr).toBe(0)

    const s = cli(["sessions", "--index", index])
    expect(s.code, s.stderr).toBe(0)
    const lines = s.stdout.split("\n")
    const head = lines[0]
    const side = lines.find((l) => l.includes(`sidechain-${SIDE}`))!
    const main = lines.find((l) => l.includes(S) && !l.includes("sidechain-"))!
    expect(side).toBeDefined()
    expect(main).toBeDefined()
    // each row's title starts under the header's `title`, and its workspace under `workspace`
    expect(side.indexOf("side quest")).toBe(head.indexOf("title"))
    expect(main.indexOf("main prompt")).toBe(head.indexOf("title"))
    expect(side.indexOf("/tmp/p")).toBe(head.indexOf("workspace"))
    expect(main.indexOf("/tmp/p")).toBe(head.indexOf("workspace"))

    const u = cli(["usage", "--by", "session", "--index", index])
    expect(u.code, u.stderr).toBe(0)
    // 40 characters at most: the id's last 39 after `…`
    const id = `sidechain-${SIDE}`
    expect(u.stdout).toContain(`\u2026${id.slice(-39)} `)
    expect(u.stdout).not.toContain(id.slice(0, 39))
  })
})
