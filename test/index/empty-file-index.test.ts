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

  // tester30a F1: the read commands answered SOURCE_NOT_FOUND "no index yet, run import" (exit 4), whose remedy led into
  // the import's refusal of the same file. The rule (docs/index.md) is one: an existing empty file is refused, exit 6.
  const reads: ReadonlyArray<ReadonlyArray<string>> = [
    ["sessions"],
    ["search", "deploy"],
    ["show", "x"],
    ["usage"],
    ["export", "x"],
    ["replay", "x"],
    ["mcp"]
  ]

  it("each read command refuses an existing empty --index as import does (STORE_UNAVAILABLE, exit 6) and leaves it empty", () => {
    const dir = tempDir("si-empty-read-")
    const empty = path.join(dir, "empty.db")
    fs.writeFileSync(empty, "")
    for (const args of reads) {
      const r = cli([...args, "--index", empty], { env: env(dir) })
      expect({ args, code: r.code }).toEqual({ args, code: 6 })
      expect(r.stdout).toBe("")
      expect(r.stderr).toBe(
        `session-ingest: STORE_UNAVAILABLE: Refusing to use ${empty} as session-ingest's index: it is an empty file that session-ingest did not create (it makes its own files whole).\n` +
          "  remedy: Pass --index FILE with session-ingest's index (the file `session-ingest import` wrote); session-ingest never reads other files as its index.\n"
      )
      expect(r.stderr).not.toContain("Run `session-ingest import`")
    }
    const json = cli(["sessions", "--index", empty, "--json"], { env: env(dir) })
    expect(json.code).toBe(6)
    expect(JSON.parse(json.stdout).error.code).toBe("STORE_UNAVAILABLE")
    // push reads its --from index the same way.
    const push = cli(["push", "--from", empty, "--to", "postgres://u@127.0.0.1:1/db"], { env: env(dir) })
    expect(push.code).toBe(6)
    expect(push.stderr).toContain(`Refusing to use ${empty} as session-ingest's index: it is an empty file`)
    expect(push.stderr).toContain("Pass --from FILE with session-ingest's index")
    // The import refuses it with the same reason: no command's remedy leads into another's refusal.
    const imp = cli(["import", "--index", empty, "--claude-root", path.join(fixturesDir, "claude-code", "projects"), "--agents-root", emptyFolder(dir)], {
      env: env(dir)
    })
    expect(imp.code).toBe(6)
    expect(imp.stderr).toContain(`Refusing to use ${empty} as session-ingest's index: it is an empty file that session-ingest did not create (it makes its own files whole).`)
    expect(fs.statSync(empty).size).toBe(0)
    expect(fs.readdirSync(dir).filter((f) => f !== "none").sort()).toEqual(["empty.db"])
  })

  it("a read command on a missing --index still says there is no index yet (SOURCE_NOT_FOUND, exit 4) and creates nothing", () => {
    const dir = tempDir("si-missing-read-")
    const missing = path.join(dir, "none.db")
    for (const args of reads) {
      const r = cli([...args, "--index", missing], { env: env(dir) })
      expect({ args, code: r.code }).toEqual({ args, code: 4 })
      expect(r.stderr).toBe(
        `session-ingest: SOURCE_NOT_FOUND: There is no index at ${missing} yet.\n  remedy: Run \`session-ingest import\` first (or pass --index FILE).\n`
      )
    }
    expect(fs.readdirSync(dir)).toEqual([])
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
