/**
 * tester40 F1: `--out` whose folder path goes through a regular file
 * (`note.md/x.out`, `/dev/full/x`): the path cannot be looked at (ENOTDIR).
 * docs/cli-output.md's exit codes: 7 `OUTPUT_WRITE_FAILED` is "`--out` or
 * stdout cannot be written, with the errno and the path", 6
 * `STORE_UNAVAILABLE` the index or scan state. It was exit 6, "A file
 * session-ingest uses cannot be used", with a remedy naming --index and
 * --state; it is exit 7 naming the path and ENOTDIR, for every command that
 * takes --out, with and without --json; nothing is written anywhere.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { writeNewFile } from "../src/cli/out-file.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "1" }
let dir = ""
let index = ""
let file = ""

beforeAll(() => {
  dir = tempDir("si-out-through-file-")
  const sessions = path.join(dir, "agents", "a1", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  fs.writeFileSync(
    path.join(sessions, "a1.jsonl"),
    [
      { type: "session_header", session_id: "s-through", agent_id: "a1", created_at: "2026-05-01T00:00:00Z" },
      { type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "hello" }, created_at: "2026-05-01T00:00:01Z" }
    ].map((r) => JSON.stringify(r) + "\n").join("")
  )
  index = path.join(dir, "i.db")
  const r = cli(["import", "--agents-root", path.join(dir, "agents"), "--index", index], { env })
  expect(r.code, r.stderr).toBe(0)
  file = path.join(dir, "note.md")
  fs.writeFileSync(file, "a note\n")
})

describe("--out under a path that goes through a file (tester40 F1)", () => {
  for (const args of [["export", "s-through"], ["export", "s-through", "--format", "ndjson"], ["replay", "s-through"]]) {
    for (const json of [false, true]) {
      it(`${args.join(" ")}${json ? " --json" : ""}: OUTPUT_WRITE_FAILED, exit 7, the path and ENOTDIR named`, () => {
        const out = path.join(file, "x.out")
        const before = fs.readdirSync(dir).sort()
        const r = cli([...args, "--index", index, "--out", out, ...(json ? ["--json"] : [])], { env, cwd: dir })
        expect(r.code, r.stderr).toBe(7)
        const text = json ? r.stdout : r.stderr
        expect(text).toContain("OUTPUT_WRITE_FAILED")
        expect(text).not.toContain("STORE_UNAVAILABLE")
        expect(text).not.toMatch(/--index|--state/)
        expect(text).toContain(out)
        expect(text).toContain("ENOTDIR")
        if (json) {
          const e = JSON.parse(r.stdout).error
          expect(e).toMatchObject({ code: "OUTPUT_WRITE_FAILED", details: { path: out, code: "ENOTDIR" } })
        }
        expect(fs.readFileSync(file, "utf8")).toBe("a note\n")
        expect(fs.readdirSync(dir).sort()).toEqual(before)
      })
    }
  }

  it.effect("writeNewFile: the same typed error before a byte is taken", () =>
    Effect.gen(function*() {
      const out = path.join(file, "deeper", "x.json")
      const e = yield* Effect.flip(writeNewFile(out, Stream.make(new Uint8Array([1]))))
      expect(e).toMatchObject({ code: "OUTPUT_WRITE_FAILED", details: { path: out, code: "ENOTDIR" } })
      expect(e.message).toContain(`goes through a file`)
    }))
})
