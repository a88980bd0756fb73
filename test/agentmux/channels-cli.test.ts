/**
 * Issue 18, part 1, through the CLI in new processes: discover, stream,
 * transcript, import and sessions/show agree on the sessions of an AgentMux
 * home whose archives live in the channels' own stores.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { type Home, makeHome, treeFingerprint, UID } from "./home-fixture.js"
import { cli as runCli } from "../support/run.js"


/** The CLI (the built bundle, as the other CLI tests run it). */
const cli = (...args: Array<string>) => {
  const r = runCli(args, { env: { NO_COLOR: "1" } })
  return { status: r.code, stdout: r.stdout, stderr: r.stderr }
}

let dir: string
let home: Home

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "am-home-cli-")))
  home = makeHome(nodePath.join(dir, "agentmux"))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("AgentMux channels' stores through the CLI (issue 18)", () => {
  it("discover, stream, transcript, import, sessions and show agree; nothing is written under the AgentMux home", () => {
    const before = treeFingerprint(home.root)
    const state = nodePath.join(dir, "state.db")
    const index = nodePath.join(dir, "index.db")
    const from = ["--agentmux-root", home.root, "--state", state]

    const d = cli("discover", "agentmux", "--agent", UID, ...from, "--json")
    expect(d.status).toBe(0)
    const discovered = JSON.parse(d.stdout).data as { sources: Array<{ sessionId: string; sourceId: string; summary: { lineCount: number } }> }
    expect(discovered.sources.map((s) => s.sessionId)).toEqual(["S-NEW", "S-X", "S-DEV", "S-OLD"])

    const s = cli("stream", "agentmux", "--agent", UID, "--session", "S-X", ...from, "--json")
    expect(s.status).toBe(0)
    const streamed = s.stdout.trim().split("\n").map((l) => JSON.parse(l) as { kind: string; text: string | null; sourceId: string })
    expect(streamed.map((e) => e.text)).toEqual(["first question", "first answer", "continue", "resumed answer"])

    const t = cli("transcript", "agentmux", "--agent", UID, "--session", "S-X", ...from, "--json")
    expect(t.status).toBe(0)
    expect(JSON.parse(t.stdout).data.turns.map((x: { role: string }) => x.role)).toEqual(["user", "assistant", "user", "assistant"])

    const imp = cli("import", "--agent", UID, ...from, "--index", index, "--json")
    expect(imp.status).toBe(0)
    expect(JSON.parse(imp.stdout).data.sources).toMatchObject({ discovered: 4, accepted: 4 })
    // a second import: every source unchanged (the scan state made it incremental)
    const again = cli("import", "--agent", UID, ...from, "--index", index, "--json")
    expect(JSON.parse(again.stdout).data.sources).toMatchObject({ discovered: 4, accepted: 0, unchanged: 4 })

    const list = cli("sessions", "--index", index, "--json")
    const rows = (JSON.parse(list.stdout).data as Array<{ provider: string; sessionId: string; sourceId: string; eventCount: number }>)
      .filter((r) => r.provider === "agentmux")
    expect(rows.map((r) => r.sessionId).sort()).toEqual(["S-DEV", "S-NEW", "S-OLD", "S-X"])
    const x = rows.find((r) => r.sessionId === "S-X")!
    expect(x.sourceId).toBe(discovered.sources.find((r) => r.sessionId === "S-X")!.sourceId)
    expect(x.eventCount).toBe(streamed.length)

    const show = cli("show", "S-X", "--index", index, "--json")
    expect(show.status).toBe(0)
    expect(JSON.parse(show.stdout).data.session.summary).toEqual(discovered.sources.find((r) => r.sessionId === "S-X")!.summary)

    expect(treeFingerprint(home.root)).toEqual(before)
  }, 120_000) // seven CLI processes: generous for a loaded machine
})
