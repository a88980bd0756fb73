/**
 * `push` reads a local index given by `--from` (never `--index`): a file that
 * is not session-ingest's index, a fifo, or a missing one is refused with a
 * remedy that names `--from` (tester16 F9: it said "Pass --index FILE", an
 * option push does not take). A read command's remedy for the same files
 * names `--index`, and neither says to pass a new file (a read never makes one).
 * No PostgreSQL server is reached: the local index is checked first.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const to = "postgres://u@127.0.0.1:1/db"

/** A plain text file, a fifo, a SQLite database of another program, and a path where nothing is. */
const notIndexes = () => {
  const dir = tempDir("si-push-from-")
  const text = path.join(dir, "notes.txt")
  fs.writeFileSync(text, "hello\n")
  const fifo = path.join(dir, "pipe")
  execFileSync("mkfifo", [fifo])
  const other = path.join(dir, "other.db")
  fs.writeFileSync(other, Buffer.concat([Buffer.from("SQLite format 3\u0000", "latin1"), Buffer.alloc(4080)]))
  return { dir, files: [text, fifo, other], missing: path.join(dir, "none.db") }
}

describe("push --from: the remedy names --from", () => {
  it("a file that is not an index, a fifo, another program's SQLite file: exit 6, remedy `Pass --from FILE with session-ingest's index`", () => {
    const { dir, files } = notIndexes()
    for (const file of files) {
      const r = cli(["push", "--from", file, "--to", to], { cwd: dir })
      expect(r.code, `${file}: ${r.stderr}`).toBe(6)
      expect(r.stderr, file).toContain("STORE_UNAVAILABLE")
      expect(r.stderr, file).toContain("remedy: Pass --from FILE with session-ingest's index")
      expect(r.stderr, file).not.toContain("--index")
      expect(r.stderr, file).not.toContain("new file")
    }
  })

  it("a missing --from: exit 4 SOURCE_NOT_FOUND, `(or pass --from FILE)`", () => {
    const { dir, missing } = notIndexes()
    const r = cli(["push", "--from", missing, "--to", to], { cwd: dir })
    expect(r.code, r.stderr).toBe(4)
    expect(r.stderr).toContain("SOURCE_NOT_FOUND")
    expect(r.stderr).toContain("(or pass --from FILE)")
    expect(r.stderr).not.toContain("--index")
  })

  it("a read command given the same files: the remedy names --index, never a new file", () => {
    const { dir, files } = notIndexes()
    for (const file of files) {
      const r = cli(["sessions", "--index", file], { cwd: dir })
      expect(r.code, `${file}: ${r.stderr}`).toBe(6)
      expect(r.stderr, file).toContain("remedy: Pass --index FILE with session-ingest's index")
      expect(r.stderr, file).not.toContain("new file")
    }
  })
})
