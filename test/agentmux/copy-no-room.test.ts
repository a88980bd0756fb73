/**
 * tester19 F11: an AgentMux WAL store is read from a private copy (cached in
 * `agentmux-cache/` beside the scan state, else in a temporary folder). When
 * the disk for that copy is full, the error is about the copy (its path, the
 * errno, what to free or where to point TMPDIR and --state), not about the
 * store: it said the store "cannot be read" and to pass another --store. The
 * store is untouched. A real full disk: a small tmpfs (root, as the other
 * storage-failure tests). Under a file-size limit (`ulimit -f`) the copy's
 * EFBIG is said as the limit, with its bytes and the remedy to raise it, not
 * as a disk to free (session 32: the class of tester31c F1).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { cli } from "../support/run.js"
import { repoRoot, tempDir } from "../support/paths.js"
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

  it("under a file-size limit smaller than the store: the limit named with its bytes, the remedy to raise it; the store unchanged", () => {
    const dir = tempDir("si-am-limit-")
    const storeDir = nodePath.join(dir, "transcripts")
    fs.mkdirSync(storeDir)
    const store = nodePath.join(storeDir, "filestore.db")
    const lines = Array.from({ length: 600 }, (_, i) => assistant("S-BIG", `m${i}`, [{ type: "text", text: "x".repeat(400) }])).join("\n") + "\n"
    createStore(store, [{ zoneId: `agent:${UID}:current`, name: "output", bytes: Buffer.from(lines) }], { wal: true })
    const before = fingerprint(storeDir)
    // bash: its `ulimit -f` counts KiB (dash, a common sh, counts 512-byte blocks).
    const r = spawnSync("bash", ["-c", "ulimit -f 64 && exec \"$@\"", "bash", process.execPath, nodePath.join(repoRoot, "bin", "session-ingest.mjs"),
      "discover", "agentmux", "--agent", UID, "--store", store, "--state", nodePath.join(dir, "state.db"), "--json"], {
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 60_000
    })
    expect(r.status, r.stderr).toBe(6)
    const e = JSON.parse(r.stdout.trim().split("\n").pop()!).error
    expect(e.code).toBe("STORE_UNAVAILABLE")
    expect(e.message).toContain(`The AgentMux store ${store} is read from a private copy, and the copy could not be written`)
    expect(e.message).toContain("the file-size limit (`ulimit -f`, 65536 bytes) was reached (EFBIG)")
    expect(e.remediation).toMatch(/^Raise the file-size limit \(`ulimit -f`, now 65536 bytes/)
    expect(e.remediation).toContain("run the same command again")
    expect(e.remediation).not.toMatch(/Free space|Pass --store/)
    expect(e.details).toMatchObject({ store, errno: "EFBIG", fileSizeLimit: 65536 })
    expect(fingerprint(storeDir)).toEqual(before)
  })
})
