/**
 * tester19 F11: an AgentMux WAL store is read from a private copy (cached in
 * `agentmux-cache/` beside the scan state, else in a temporary folder). When
 * the disk for that copy is full, the error is about the copy (its path, the
 * errno, what to free or where to point TMPDIR and --state), not about the
 * store: it said the store "cannot be read" and to pass another --store. The
 * store is untouched. A real full disk: a small tmpfs (root, as the other
 * storage-failure tests).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { cli } from "../support/run.js"
import { tempDir } from "../support/paths.js"
import { tmpfs } from "../support/tmpfs.js"
import { assistant, UID } from "./fixture.js"
import { createStore, fingerprint } from "./store-helper.js"

describe("no room for the AgentMux store's private copy", () => {
  it("STORE_UNAVAILABLE naming the copy, the errno and what to free; the store unchanged", () => {
    const dir = tempDir("si-am-room-")
    const storeDir = nodePath.join(dir, "transcripts")
    fs.mkdirSync(storeDir)
    const store = nodePath.join(storeDir, "filestore.db")
    // About 3 MB of the agent's output: more than the 1 MiB disk the copy goes to.
    const lines = Array.from({ length: 6000 }, (_, i) => assistant("S-BIG", `m${i}`, [{ type: "text", text: "x".repeat(400) }])).join("\n") + "\n"
    createStore(store, [{ zoneId: `agent:${UID}:current`, name: "output", bytes: Buffer.from(lines) }], { wal: true })
    const before = fingerprint(storeDir)
    const small = tmpfs("1m")
    const r = cli(["discover", "agentmux", "--agent", UID, "--store", store, "--state", nodePath.join(small, "state.db"), "--json"], {
      env: { NO_COLOR: "1", TMPDIR: small }
    })
    expect(r.code, r.stderr).toBe(6)
    const e = JSON.parse(r.stdout.trim().split("\n").pop()!).error
    expect(e.code).toBe("STORE_UNAVAILABLE")
    expect(e.message).toContain(`The AgentMux store ${store} is read from a private copy, and the copy could not be written`)
    expect(e.message).toContain("ENOSPC")
    expect(e.message).toContain(small)
    expect(e.remediation).toContain(`Free space on the disk that holds ${small}`)
    expect(e.remediation).not.toContain("Pass --store")
    expect(fingerprint(storeDir)).toEqual(before)
  })
})
