/**
 * `--out` after a `kill -9`: the killed process could not remove its
 * temporary file (`.<name>.<pid>-<12 hex>.tmp`, src/cli/out-file.ts); the
 * next `--out` write to the same folder removes such leftovers whose process
 * is no longer running, and nothing else (docs/cli-output.md, "Leftovers of a killed
 * `--out`").
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { removeLeftovers, writeNewFile } from "../src/cli/out-file.js"
import { BIG_SESSION_ID, bigSessionIndex } from "./support/big-session.js"
import { repoRoot, tempDir } from "./support/paths.js"

/** The pid of a process that ran and is gone. */
const deadPid = (): number => {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" })
  return Number(r.stdout)
}

describe("removeLeftovers", () => {
  it.effect("the next --out write removes the temporary files of dead processes, only those", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const dead = deadPid()
      const leftovers = [`.t.json.${dead}-0123456789ab.tmp`, `.other name.ndjson.${dead}-abcdefabcdef.tmp`]
      const kept = [
        `.t.json.${process.pid}-0123456789ab.tmp`, // a process still running (this one)
        `.t.json.${dead}-0123456789ab.tmp.bak`, // not the pattern
        `t.json.${dead}-0123456789ab.tmp`, // not hidden
        `.t.json.${dead}-0123456789AB.tmp`, // not our hex
        `.t.json.${dead}-0123456789a.tmp`, // too short
        `.t.json.${dead}.tmp`, // no random part
        `.t.json.abc-0123456789ab.tmp`, // no pid
        "notes.txt"
      ]
      for (const n of [...leftovers, ...kept]) fs.writeFileSync(path.join(dir, n), "x")
      // A symbolic link and a folder of the pattern are not files we wrote.
      const link = `.l.json.${dead}-0123456789ab.tmp`
      fs.symlinkSync(path.join(dir, "notes.txt"), path.join(dir, link))
      const folder = `.d.json.${dead}-0123456789ab.tmp`
      fs.mkdirSync(path.join(dir, folder))
      yield* writeNewFile(path.join(dir, "new.json"), Stream.make(Buffer.from("{}\n")))
      expect(fs.readdirSync(dir).sort()).toEqual([...kept, link, folder, "new.json"].sort())
      expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("x")
    }))

  it("a folder that cannot be read is left alone (no error)", () => {
    expect(() => removeLeftovers(path.join(tempDir(), "no", "such"))).not.toThrow()
  })
})

describe("kill -9 during export --out, then another --out to the same folder (the CLI)", () => {
  let index = ""
  beforeAll(() => {
    index = bigSessionIndex(5000).index
  }, 120_000)

  it("the killed run leaves its temporary file; the next export removes it and writes its own file", async () => {
    const dir = tempDir()
    const bin = path.join(repoRoot, "bin", "session-ingest.mjs")
    const child = spawn(process.execPath, [bin, "export", BIG_SESSION_ID, "--out", path.join(dir, "a.json"), "--index", index], { stdio: "ignore" })
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_, signal) => resolve(signal)))
    // Killed as soon as its temporary file is there.
    const t0 = Date.now()
    while (fs.readdirSync(dir).length === 0 && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 5))
    child.kill("SIGKILL")
    expect(await exited).toBe("SIGKILL")
    const left = fs.readdirSync(dir)
    expect(left).toEqual([expect.stringMatching(new RegExp(`^\\.a\\.json\\.${child.pid}-[0-9a-f]{12}\\.tmp$`))])
    const r = spawnSync(process.execPath, [bin, "export", BIG_SESSION_ID, "--format", "ndjson", "--out", path.join(dir, "b.ndjson"), "--index", index], { encoding: "utf8" })
    expect(r.status).toBe(0)
    expect(fs.readdirSync(dir)).toEqual(["b.ndjson"])
  }, 120_000)
})
