/**
 * `index migrate` refuses what every other command refuses as an index, before it opens anything (tester30c F2,
 * F3; docs/index.md "Never into someone else's file"): a fifo (its open blocked for ever, and Ctrl-C could not end
 * it) and a symbolic link to a missing file (the index was created at the link's target). STORE_UNAVAILABLE, exit 6.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

describe("index migrate on a path that is not a file of ours (tester30c F2, F3)", () => {
  it("a fifo: refused at once (STORE_UNAVAILABLE, exit 6), not opened", () => {
    const dir = tempDir("si-migrate-odd-")
    const fifo = path.join(dir, "index.db")
    execFileSync("mkfifo", [fifo])
    const r = cli(["index", "migrate", "--index", fifo, "--json"])
    expect(r.code, r.stderr).toBe(6)
    const env = JSON.parse(r.stdout.trim().split("\n").pop()!) as { error: { code: string; message: string } }
    expect(env.error.code).toBe("STORE_UNAVAILABLE")
    expect(env.error.message).toContain("not a regular file")
  })

  it("a symbolic link to a missing file: refused, nothing created at its target", () => {
    const dir = tempDir("si-migrate-odd-")
    const target = path.join(dir, "nowhere.db")
    const link = path.join(dir, "index.db")
    fs.symlinkSync(target, link)
    const r = cli(["index", "migrate", "--index", link, "--json"])
    expect(r.code, r.stderr).toBe(6)
    const env = JSON.parse(r.stdout.trim().split("\n").pop()!) as { error: { code: string; message: string } }
    expect(env.error.code).toBe("STORE_UNAVAILABLE")
    expect(env.error.message).toContain("symbolic link to a missing file")
    expect(fs.existsSync(target)).toBe(false)
  })
})
