/**
 * An existing empty file given as `--index` or `--state` (tester19 F12): a
 * Claude Code session log opened before its first line, a `notes.txt`. The
 * docs/index.md: "Never into someone else's file … refused (`STORE_UNAVAILABLE`)
 * before anything is written, in it or beside it". session-ingest makes its
 * own files whole (stamped, then linked into place), so an empty file is
 * never one of its own; a path that does not exist is still created.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { createOwnedSqlite, INDEX_APPLICATION_ID } from "../../src/layers/owned-sqlite.js"
import { cli } from "../support/run.js"
import { applicationIdOf, isolatedEnv as env } from "../support/owned-file.js"
import { emptyFolder, fixturesDir, tempDir } from "../support/paths.js"

describe("an existing empty file as the index or the scan state (tester19 F12)", () => {
  it("an empty session log under the root being imported, given as --index, is refused and left as it was", () => {
    const dir = tempDir("si-empty-index-")
    const root = path.join(dir, "cc")
    fs.cpSync(path.join(fixturesDir, "claude-code", "projects"), root, { recursive: true })
    const project = path.join(root, "-home-alice-code-billing-api")
    const log = path.join(project, "0e0e0e0e-0000-4000-8000-00000000000e.jsonl")
    fs.writeFileSync(log, "")
    const before = fs.readdirSync(project).sort()
    const r = cli(["import", "--index", log, "--claude-root", root, "--agents-root", emptyFolder(dir)], { env: env(dir) })
    expect(r.code).toBe(6)
    expect(r.stderr).toContain(`Refusing to use ${log} as session-ingest's index: it is an empty file that session-ingest did not create`)
    expect(fs.statSync(log).size).toBe(0)
    expect(fs.readdirSync(project).sort()).toEqual(before)
  })

  it("an empty file given as --state is refused and left as it was", () => {
    const dir = tempDir("si-empty-state-")
    const notes = path.join(dir, "notes.txt")
    fs.writeFileSync(notes, "")
    const r = cli(["discover", "agentmux", "--agent", "u1", "--store", path.join(fixturesDir, "agentmux", "filestore.db"), "--state", notes], {
      env: env(dir)
    })
    expect(r.code).toBe(6)
    expect(r.stderr).toContain(`Refusing to use ${notes} as session-ingest's scan state: it is an empty file`)
    expect(fs.statSync(notes).size).toBe(0)
    expect(fs.readdirSync(dir).sort()).toEqual(["notes.txt"])
  })

  it("a path that does not exist is created (folder too) as a stamped index, with nothing else left beside it", () => {
    const dir = tempDir("si-new-index-")
    const index = path.join(dir, "sub", "new.db")
    const r = cli(["import", "--index", index, "--claude-root", path.join(fixturesDir, "claude-code", "projects"), "--agents-root", emptyFolder(dir)], {
      env: env(dir)
    })
    expect(r.stderr).not.toContain("STORE_UNAVAILABLE")
    expect(r.stdout).toContain("added:    8 sessions")
    expect(applicationIdOf(index)).toBe(INDEX_APPLICATION_ID)
    expect(fs.readdirSync(path.dirname(index))).toEqual(["new.db"])
  })

  it("createOwnedSqlite never replaces a file that is there (made by another process meanwhile)", () => {
    const dir = tempDir("si-create-owned-")
    const file = path.join(dir, "i.db")
    fs.writeFileSync(file, "theirs")
    createOwnedSqlite(file, INDEX_APPLICATION_ID, 16384)
    expect(fs.readFileSync(file, "utf8")).toBe("theirs")
    expect(fs.readdirSync(dir)).toEqual(["i.db"])
    const made = path.join(dir, "made.db")
    createOwnedSqlite(made, INDEX_APPLICATION_ID, 16384)
    expect(fs.statSync(made).size).toBe(16384)
    expect(applicationIdOf(made)).toBe(INDEX_APPLICATION_ID)
  })
})
