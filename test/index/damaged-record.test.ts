/**
 * A stored record the index cannot decode (a body or a shape that is not the
 * JSON it wrote: bit rot, a hand edit) is a damaged index: every command that
 * reads it answers STORE_UNAVAILABLE (exit 6) naming the damage, with a
 * remedy, never a stack trace (docs/cli-output.md "Exit codes": 6 is "the index ...
 * cannot be opened or written: ... damaged"). Found by tester15 (finding 4):
 * `show`, `export`, `replay` printed a JavaScript SyntaxError with its stack
 * and exited 1.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { Index } from "../../src/services/Index.js"
import { indexLayer } from "../support/index.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const noStackTrace = (s: string) => {
  expect(s).not.toMatch(/\n\s+at [\w.<]/)
  expect(s).not.toMatch(/SyntaxError|TypeError|ERROR \(#/)
}

/** The Muse agents fixtures imported into a fresh index; answers the index and the session id and uid of its first record. */
const imported = () => {
  const dir = tempDir("si-damaged-")
  const index = path.join(dir, "i.db")
  const root = path.join(fixturesDir, "muse-agents", "agents")
  expect(cli(["import", "--index", index, "--agents-root", root, "--workspace", dir]).code).toBe(0)
  const db = new Database(index, { readonly: true })
  const row = db.prepare(`SELECT ss.session_id AS id, ss.session_uid AS uid FROM records r JOIN streams st ON st.stream = r.stream
    JOIN sessions ss ON ss.session_uid = st.session_uid AND ss.generation = st.generation ORDER BY r.id LIMIT 1`).get() as { id: string; uid: string }
  db.close()
  return { dir, index, session: row }
}

/** `index` with `sql` run on it (the damage). */
const damage = (index: string, sql: string) => {
  const db = new Database(index)
  db.exec(sql)
  db.close()
}

const cases: ReadonlyArray<readonly [string, string]> = [
  ["a record's body with a raw control character", "UPDATE records SET body = substr(body, 1, 3) || char(1) || substr(body, 4) WHERE id = (SELECT min(id) FROM records)"],
  ["a record's body cut short", "UPDATE records SET body = substr(body, 1, length(body) / 2) WHERE id = (SELECT min(id) FROM records)"],
  ["a shape that is not JSON", "UPDATE shapes SET def = '{\"k\": [' WHERE shape = (SELECT shape FROM records WHERE id = (SELECT min(id) FROM records))"]
]

describe("a damaged record in the index", () => {
  for (const [what, sql] of cases) {
    it(`${what}: show, export, replay and markdown answer STORE_UNAVAILABLE (exit 6), never a stack trace`, () => {
      const { dir, index, session } = imported()
      // A word of the record about to be damaged: a search whose hits hold it decodes it.
      const first = JSON.parse(cli(["show", session.id, "--index", index, "--json"]).stdout).data.events[0]
      const word = (JSON.stringify(first.text ?? first.toolInput ?? "").match(/[A-Za-z]{4,}/) ?? [])[0]
      damage(index, sql)
      // What does not decode a record still answers.
      expect(cli(["sessions", "--index", index]).code).toBe(0)
      const commands: ReadonlyArray<ReadonlyArray<string>> = [
        ["show", session.id, "--index", index],
        ["show", session.id, "--index", index, "--format", "markdown"],
        ["export", session.id, "--index", index, "--format", "atif"],
        ["export", session.id, "--index", index, "--format", "ndjson"],
        ["replay", session.id, "--index", index, "--out", path.join(dir, `r-${Math.random()}.html`)],
        ...(word !== undefined ? [["search", word, "--index", index, "--limit", "1000"]] : [])
      ]
      for (const args of commands) {
        const r = cli(args)
        expect(r.code, args.join(" ") + "\n" + r.stdout + r.stderr).toBe(6)
        expect(r.stderr).toMatch(/^session-ingest: STORE_UNAVAILABLE: [^\n]*damaged[^\n]*\n {2}remedy: [^\n]+\n$/)
        noStackTrace(r.stdout + r.stderr)
      }
      const j = cli(["show", session.id, "--index", index, "--json"])
      expect(j.code).toBe(6)
      const env = JSON.parse(j.stdout)
      expect(env).toMatchObject({ status: "error", data: null, error: { code: "STORE_UNAVAILABLE", details: { reason: "damaged" } } })
      noStackTrace(j.stdout + j.stderr)
      // Nothing was written to the index by reading it.
      expect(fs.existsSync(index)).toBe(true)
    })
  }

  it.effect("the library: Index.events fails with StoreUnavailable (a typed failure, not a defect)", () =>
    Effect.gen(function*() {
      const { index, session } = imported()
      damage(index, cases[0][1])
      const exit = yield* Effect.exit(Effect.flatMap(Index, (i) => i.events(session.uid)).pipe(Effect.provide(indexLayer(index))))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        expect(failure).toMatchObject({ _tag: "StoreUnavailable", code: "STORE_UNAVAILABLE", details: { reason: "damaged" } })
      }
    }))
})
