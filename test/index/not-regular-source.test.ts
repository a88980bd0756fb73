/**
 * A checkpointed source file replaced by a fifo or a symlink after it was
 * imported (docs/import.md "Sources replaced by a non-file"): the old session stays in the index (the
 * index is an archive, as for a file that is gone, counted as `gone`, never
 * superseded), the new non-regular file is never read (a fifo would block)
 * and is reported as a diagnostic that makes coverage partial. Checked for
 * the one-file-per-session providers whose discovery walks a root (Claude
 * Code, Muse agents), through the CLI as users run it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { cli } from "../support/run.js"
import { tempDir } from "../support/paths.js"
import { agentsFixtureCopy, museNativeRoot } from "../support/source-roots.js"
import { nativeSessionPath } from "../../bench/generate/native.js"
import { uuidOf } from "../../bench/generate/common.js"

const SID = "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37"
const userLine = (i: number) =>
  JSON.stringify({
    type: "user",
    sessionId: SID,
    uuid: `u${i}`,
    timestamp: `2025-01-01T00:00:0${i}Z`,
    message: { role: "user", content: `hello ${i}` }
  })

type Kind = "fifo" | "symlink" | "socket" | "directory"

const replaceBy = (file: string, kind: Kind) => {
  fs.rmSync(file)
  if (kind === "fifo") execFileSync("mkfifo", [file])
  else if (kind === "directory") fs.mkdirSync(file)
  else if (kind === "socket") {
    // A Unix socket bound at the path (left behind when the process exits without closing it), bound by its
    // relative name: a socket's path is limited to 107 bytes.
    execFileSync(process.execPath, ["-e", `require("net").createServer().listen(${JSON.stringify(path.basename(file))}, () => process.exit(0))`], {
      cwd: path.dirname(file)
    })
    expect(fs.lstatSync(file).isSocket()).toBe(true)
  } else {
    const other = path.join(path.dirname(path.dirname(path.dirname(file))), "other.jsonl")
    fs.writeFileSync(other, "{}\n")
    fs.symlinkSync(other, file)
  }
}

const json = (r: { stdout: string }) => JSON.parse(r.stdout) as { data: any }

const sessionIdsOf = (args: ReadonlyArray<string>, index: string): Array<string> => {
  const r = cli(["sessions", "--index", index, "--json", ...args])
  expect(r.code, r.stderr).toBe(0)
  const data = json(r).data
  const rows: Array<{ sessionId: string }> = Array.isArray(data) ? data : data.sessions
  return rows.map((s) => s.sessionId).sort()
}

const cases = [
  {
    provider: "claude-code",
    setup: () => {
      const dir = tempDir()
      const root = path.join(dir, "cr")
      fs.mkdirSync(path.join(root, "-p"), { recursive: true })
      const file = path.join(root, "-p", `${SID}.jsonl`)
      fs.writeFileSync(file, [1, 2, 3].map(userLine).join("\n") + "\n")
      return {
        dir,
        file,
        args: ["--claude-root", root],
        session: SID,
        codes: { fifo: "SOURCE_NOT_REGULAR_FILE", symlink: "SYMLINK_SKIPPED", socket: "SOURCE_NOT_REGULAR_FILE", directory: "SOURCE_NOT_REGULAR_FILE" }
      }
    }
  },
  {
    provider: "muse-agents",
    setup: () => {
      const { dir, file, root, session } = agentsFixtureCopy()
      return {
        dir,
        file,
        args: ["--agents-root", root],
        session,
        codes: { fifo: "NOT_A_FILE", symlink: "SYMLINK_SKIPPED", socket: "NOT_A_FILE", directory: "NOT_A_FILE" }
      }
    }
  },
  {
    provider: "muse-code",
    setup: () => {
      const { dir, root, ws } = museNativeRoot(2)
      return {
        dir,
        file: nativeSessionPath(root, 0),
        args: ["--muse-root", root, "--workspace", ws],
        session: uuidOf(0, 0x5e5),
        codes: { fifo: "SOURCE_NOT_REGULAR_FILE", symlink: "SYMLINK_SKIPPED", socket: "SOURCE_NOT_REGULAR_FILE", directory: "SOURCE_NOT_REGULAR_FILE" }
      }
    }
  }
] as const

describe("a source file replaced by a fifo or a symlink is kept as gone, and reported", () => {
  for (const c of cases) {
    for (const kind of ["fifo", "symlink", "socket", "directory"] as const) {
      it(`${c.provider}: replaced by a ${kind}`, () => {
        const s = c.setup()
        const index = path.join(s.dir, "i.db")
        const first = cli(["import", ...s.args, "--index", index, "--json"])
        expect(first.code, first.stderr).toBe(0)
        const before = sessionIdsOf([], index)
        expect(before).toContain(s.session)
        replaceBy(s.file, kind)
        const again = cli(["import", ...s.args, "--index", index, "--json"])
        expect(again.code, again.stderr).toBe(8) // partial coverage (docs/cli-output.md "Exit codes")
        const data = json(again).data
        expect(data.superseded).toEqual([])
        expect(data.sources.superseded).toBe(0)
        expect(data.sources.gone).toBe(1)
        expect(data.coverage).toBe("partial")
        const p = data.providers.find((x: { provider: string }) => x.provider === c.provider)
        expect(p.coverage).toBe("partial")
        expect(p.diagnostics.map((d: { code: string }) => d.code)).toContain(s.codes[kind])
        expect(sessionIdsOf([], index)).toEqual(before)
      }, 60_000)
    }
  }
})

describe("a Muse Code session log that is not a regular file from the start", () => {
  it("is reported (SOURCE_NOT_REGULAR_FILE), never opened, and the rest is imported", () => {
    const { dir, root, ws } = museNativeRoot(3)
    replaceBy(nativeSessionPath(root, 1), "fifo")
    const index = path.join(dir, "i.db")
    const r = cli(["import", "--muse-root", root, "--workspace", ws, "--index", index, "--json"])
    expect(r.code, r.stderr).toBe(8)
    const p = json(r).data.providers.find((x: { provider: string }) => x.provider === "muse-code")
    expect(p.coverage).toBe("partial")
    const d = p.diagnostics.find((x: { code: string }) => x.code === "SOURCE_NOT_REGULAR_FILE")
    expect(d.message).toContain(nativeSessionPath(root, 1))
    expect(sessionIdsOf([], index)).toEqual([uuidOf(0, 0x5e5), uuidOf(2, 0x5e5)].sort())
    const human = cli(["import", "--muse-root", root, "--workspace", ws, "--index", index])
    expect(human.code).toBe(8)
    expect(human.stdout + human.stderr).toContain("SOURCE_NOT_REGULAR_FILE")
  }, 60_000)
})
