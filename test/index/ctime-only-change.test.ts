/**
 * A change of a source's change time alone (`chmod` and back: the bytes,
 * size, mtime and inode as they were) is no change (tester14 leftover,
 * closing15.md): the re-import counts the source unchanged, not "1 imported,
 * 0 events", and writes nothing to the index (an unchanged run writes
 * nothing: issue 13's import lock rules). A same-size rewrite with its mtime
 * set back (the ctime is what shows it) is still read as changed.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { tempDir } from "../support/paths.js"

const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" }
const SID = "c7c7c7c7-1111-4000-8000-00000000000c"
const line = (uuid: string, text: string, at: string) =>
  JSON.stringify({ type: "user", sessionId: SID, uuid, parentUuid: null, cwd: "/x", timestamp: at, message: { role: "user", content: text } })

const sha = (f: string) => createHash("sha256").update(fs.readFileSync(f)).digest("hex")

describe("a ctime-only change of an imported source", () => {
  it("is unchanged and writes nothing; a same-size rewrite with its mtime set back is changed", () => {
    const root = tempDir("si-ctime-only-")
    const file = nodePath.join(root, "-x", `${SID}.jsonl`)
    fs.mkdirSync(nodePath.dirname(file), { recursive: true })
    fs.writeFileSync(file, line("u1", "first words", "2026-01-01T00:00:00Z") + "\n")
    const dir = tempDir()
    const index = nodePath.join(dir, "idx.db")
    const args = ["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(dir, "none"), "--muse-root", nodePath.join(dir, "none"), "--workspace", dir, "--json"]
    const run = () => {
      const out = cli(args, { env })
      expect([0, 8]).toContain(out.code)
      return JSON.parse(out.stdout).data.sources as { accepted: number; unchanged: number; rejected: number }
    }
    expect(run()).toMatchObject({ accepted: 1, rejected: 0 })
    const before = { sha: sha(index), mtime: fs.statSync(index).mtimeMs }
    const ctime = fs.statSync(file).ctimeMs
    fs.chmodSync(file, 0o600)
    fs.chmodSync(file, 0o644)
    expect(fs.statSync(file).ctimeMs).not.toBe(ctime)
    expect(run()).toMatchObject({ accepted: 0, unchanged: 1, rejected: 0 })
    expect({ sha: sha(index), mtime: fs.statSync(index).mtimeMs }).toEqual(before)
    // Unchanged again on the next run (and still nothing written).
    expect(run()).toMatchObject({ accepted: 0, unchanged: 1 })
    expect(sha(index)).toBe(before.sha)

    // The same size, other words, the mtime set back: changed (read again, the new words found).
    const st = fs.statSync(file)
    fs.writeFileSync(file, line("u1", "other words", "2026-01-01T00:00:00Z") + "\n")
    fs.utimesSync(file, st.atime, st.mtime)
    expect(fs.statSync(file).size).toBe(st.size)
    expect(run()).toMatchObject({ accepted: 1, unchanged: 0 })
    const hits = JSON.parse(cli(["search", "other", "--index", index, "--json"], { env }).stdout).data.hits as Array<unknown>
    expect(hits.length).toBeGreaterThan(0)
  })
})
