/**
 * An AgentMux agent's sessions share one store file (filestore.db), whose size and mtime move when any of them grows.
 * When one session grew, the next import reported every session of the agent imported ("3 imported, 1 event"),
 * though the others were read from their cursors to nothing new (tester36a F3). A session whose own record did not
 * change is unchanged; the one that grew is imported with its new event. A file of its own that grew without a whole
 * event (a Muse Code log, a half-written line) is not concerned: that is test/index/* 's business.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { cli } from "../support/run.js"
import { tempDir } from "../support/paths.js"
import { assistant, CURRENT, echo, init, layout, UID } from "./fixture.js"
import { appendBytes, createStore, withStore } from "./store-helper.js"

const text = (s: string) => [{ type: "text", text: s }]

describe("AgentMux: one session of the agent grows (tester36a F3)", () => {
  it("the next import reports that session imported with its event, the other two unchanged; then all unchanged", () => {
    const dir = tempDir("si-am-f3-")
    fs.mkdirSync(nodePath.join(dir, "t"))
    const store = nodePath.join(dir, "t", "filestore.db")
    createStore(store, [{
      zoneId: CURRENT,
      name: "output",
      bytes: layout([
        echo("one"), init("S-1", "/w/one"), assistant("S-1", "m1", text("first")),
        echo("two"), init("S-2", "/w/two"), assistant("S-2", "m2", text("second")),
        echo("three"), init("S-3", "/w/three"), assistant("S-3", "m3", text("third"))
      ]).bytes
    }])
    const env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    const run = () => {
      const r = cli([
        "import", "--index", nodePath.join(dir, "i.db"), "--store", store, "--agent", UID, "--state", nodePath.join(dir, "s.db"),
        "--agents-root", nodePath.join(dir, "none"), "--json"
      ], { env })
      expect([0, 8], r.stderr).toContain(r.code)
      return JSON.parse(r.stdout.trim().split("\n").pop()!).data as {
        sources: { discovered: number; accepted: number; unchanged: number }
        eventsAdded: number
      }
    }
    const first = run()
    expect([first.sources.discovered, first.sources.accepted, first.sources.unchanged]).toEqual([3, 3, 0])
    withStore(store, (db) => appendBytes(db, CURRENT, "output", Buffer.from(assistant("S-3", "m4", text("more")) + "\n")))
    const grown = run()
    expect([grown.sources.discovered, grown.sources.accepted, grown.sources.unchanged, grown.eventsAdded]).toEqual([3, 1, 2, 1])
    const again = run()
    expect([again.sources.discovered, again.sources.accepted, again.sources.unchanged, again.eventsAdded]).toEqual([3, 0, 3, 0])
  })
})
