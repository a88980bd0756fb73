/**
 * A source authorized as a regular file and then replaced by a fifo before it
 * is opened (the window between discovery's lstat and the read) is refused by
 * the one place sources are opened (SourceAccessNode's `open` and
 * `readHead`), and never blocks: a fifo opened for reading without
 * `O_NONBLOCK` waits for a writer forever. Run in a child process with a
 * deadline, as a blocked open would freeze the test runner itself.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { repoRoot, tempDir } from "./support/paths.js"

const script = (file: string, how: "open" | "readHead") => `
import * as fs from "node:fs"
import { execFileSync } from "node:child_process"
import * as Effect from "effect/Effect"
import { sourceAccessNode as a } from ${JSON.stringify(path.join(repoRoot, "src", "layers", "SourceAccessNode.ts"))}
const file = ${JSON.stringify(file)}
const program = Effect.gen(function*() {
  const f = yield* a.authorizeFile(file, [${JSON.stringify(path.dirname(file))}])
  fs.rmSync(file)
  execFileSync("mkfifo", [file])
  return yield* Effect.flip(${how === "open" ? "Effect.scoped(a.open(f))" : "a.readHead(f, 4096)"})
})
Effect.runPromise(program).then((e) => process.stdout.write(JSON.stringify({ code: e.code })))
`

describe("a source replaced by a fifo between authorization and open", () => {
  for (const how of ["open", "readHead"] as const) {
    it(`${how}: refused with a typed error, without blocking`, () => {
      const dir = tempDir()
      const file = path.join(dir, "session.jsonl")
      fs.writeFileSync(file, "{}\n")
      const r = spawnSync(path.join(repoRoot, "node_modules", ".bin", "tsx"), ["--eval", script(file, how)], {
        encoding: "utf8",
        timeout: 20_000,
        cwd: repoRoot
      })
      expect(r.signal === null && r.status !== 143, "the open blocked on the fifo").toBe(true)
      expect(r.status, r.stderr).toBe(0)
      expect(JSON.parse(r.stdout).code).toBe("SOURCE_NOT_REGULAR_FILE")
    }, 40_000)
  }
})
