/**
 * A PostgreSQL URL's password never reaches the terminal: not when the URL
 * is malformed (an unescaped `#`, `?` or `/` in the password cuts the host
 * part short, so the password reads as a port or a path), not when the server
 * cannot be reached, not in `--json`. Generated passwords hold any of
 * `#?/@:%[] ` and non-ASCII letters; every command that takes a URL is run
 * with each, written as is and percent-encoded.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgFailure } from "../../src/layers/index/postgres.js"
import { indexUrlProblem, shownIndex, targetOf } from "../../src/layers/index/pg-target.js"
import { repoRoot } from "../support/paths.js"
import { freshDatabase } from "../support/pg.js"
import { cli } from "../support/run.js"

/** The CLI as users run it, without blocking the test worker (many runs in a row). */
const cliAsync = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [nodePath.join(repoRoot, "bin", "session-ingest.mjs"), ...args], { cwd, encoding: "utf8", timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
  })

const SPECIAL = ["#", "?", "/", "@", ":", "%", "[", "]", " ", "é", "密", "🔑"] as const
const ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789"

/** A password: distinctive 6-character words (each must never be printed) joined by special characters. */
const password = fc.tuple(
  fc.array(fc.stringOf(fc.constantFrom(...ALNUM), { minLength: 5, maxLength: 5 }).map((w) => `Q${w}`), { minLength: 2, maxLength: 4 }),
  fc.array(fc.array(fc.constantFrom(...SPECIAL), { minLength: 1, maxLength: 3 }).map((a) => a.join("")), { minLength: 2, maxLength: 4 })
).map(([words, seps]) => ({ words, text: words.map((w, i) => (i === 0 ? w : `${seps[(i - 1) % seps.length]}${w}`)).join("") + seps[0] }))

/** The URLs of a password: as typed (unescaped) and percent-encoded. */
const urls = (pw: string, port = 1) => [
  `postgres://team:${pw}@127.0.0.1:${port}/sessions`,
  `postgresql://team:${encodeURIComponent(pw)}@127.0.0.1:${port}/sessions?sslmode=disable`
]

/** Text holds no part of the password: none of its words, not it, not its encoded form. */
const leakFree = (text: string, pw: { words: ReadonlyArray<string>; text: string }, what: string) => {
  for (const w of pw.words) expect(text, `${what}: word ${w} of ${JSON.stringify(pw.text)}`).not.toContain(w)
  expect(text).not.toContain(pw.text)
  expect(text).not.toContain(encodeURIComponent(pw.text))
}

describe("PostgreSQL URL passwords: never in a message", () => {
  it("the problem, the shown form and a server failure of any URL hold no part of its password", () => {
    fc.assert(
      fc.property(password, (pw) => {
        for (const url of urls(pw.text)) {
          const problem = indexUrlProblem(url)
          const target = targetOf(url)
          const failure = pgFailure(target, Object.assign(new Error(`password authentication failed (${url}; ${pw.text}; ${encodeURIComponent(pw.text)})`), { code: "28P01" }))
          const text = [problem ?? "", shownIndex(url), target.shown, failure.message, failure.remediation ?? "", JSON.stringify(failure.details)].join("\n")
          leakFree(text, pw, url)
        }
      }),
      { numRuns: 400 }
    )
  })

  it("an unescaped # ? or / before the last @ is a usage error saying to percent-encode, with host and port", () => {
    for (const [pw, esc] of [["Secr3t#frag", "%23"], ["hunter2?x", "%3F"], ["abc/def", "%2F"], ["p@ss:w/rd%#?", "%23"], ["1234/5678", "%2F"]] as const) {
      const p = indexUrlProblem(`postgres://team:${pw}@127.0.0.1:55436/sessions`)
      expect(p, pw).toBeDefined()
      expect(p!).toContain(esc)
      expect(p!).toContain("127.0.0.1:55436")
      expect(p!).not.toContain(pw.slice(0, 4))
    }
  })
})

describe("PostgreSQL URL passwords: the CLI", () => {
  let dir = ""
  let local = ""
  beforeAll(() => {
    dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "pg-secret-"))
    local = nodePath.join(dir, "local.db")
    const m = cli(["index", "migrate", "--index", local], { cwd: dir })
    expect(m.code, m.stderr).toBe(0)
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  const samples = [
    ...fc.sample(password, { numRuns: 3, seed: 20261201 }),
    { words: ["Secr3t", "frag"], text: "Secr3t#frag" },
    { words: ["Qhunter2"], text: "Qhunter2?x" },
    { words: ["Qabcd", "Qdefg"], text: "Qabcd/Qdefg" }
  ]
  it.each(samples.map((pw) => [pw.text, pw] as const))("every command that takes a URL, password %j as typed and encoded: exit 2 or 6, no part of it printed", async (_, pw) => {
    {
      for (const url of urls(pw.text)) {
        for (
          const args of [
            ["sessions", "--index", url],
            ["sessions", "--json", "--index", url],
            ["index", "migrate", "--json", "--index", url],
            ["import", "--index", url, "--agents-root", dir],
            ["search", "word", "--index", url],
            ["mcp", "--index", url],
            ["push", "--from", local, "--to", url],
            ["push", "--json", "--from", local, "--to", url]
          ]
        ) {
          const r = await cliAsync(args, dir)
          const what = `${args.join(" ")}\n${r.stderr}${r.stdout}`
          expect([2, 6], what).toContain(r.code)
          expect(r.stdout + r.stderr, what).toMatch(r.code === 2 ? /INVALID_ARGUMENT/ : /STORE_UNAVAILABLE/)
          leakFree(r.stdout + r.stderr, pw, what)
          if (/[#?/]/.test(pw.text) && url.startsWith("postgres://")) {
            expect(r.code, what).toBe(2)
            expect(r.stdout + r.stderr, what).toMatch(/percent-encode/i)
          }
        }
      }
    }
  }, 120_000)

  it("sslmode outside libpq's values: INVALID_ARGUMENT, exit 2, naming the accepted ones", () => {
    for (const mode of ["bogus", "true", "REQUIRED"]) {
      const r = cli(["sessions", "--index", `postgres://team:Qsecret9@127.0.0.1:1/sessions?sslmode=${mode}`], { cwd: dir })
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toContain("INVALID_ARGUMENT")
      expect(r.stderr).toContain("sslmode")
      for (const ok of ["disable", "allow", "prefer", "require", "verify-ca", "verify-full", "no-verify"]) expect(r.stderr).toContain(ok)
      expect(r.stderr).not.toContain("Qsecret9")
    }
    for (const ok of ["disable", "allow", "prefer", "require", "verify-ca", "verify-full", "no-verify"]) {
      expect(indexUrlProblem(`postgres://team@h/db?sslmode=${ok}`), ok).toBeUndefined()
    }
  })

  it("a reachable server (its URL with a percent-encoded password): migrate, import, push and sessions reports hold no part of it", async () => {
    const base = new URL(await freshDatabase())
    const pw = { words: ["Qsp3cial", "Qpassw0rd"], text: "Qsp3cial#?/@:%[] é密Qpassw0rd" }
    base.password = encodeURIComponent(pw.text)
    const url = base.toString()
    expect(url).toContain("%23")
    for (
      const args of [
        ["index", "migrate", "--index", url],
        ["import", "--json", "--index", url, "--agents-root", dir],
        ["import", "--index", url, "--agents-root", dir],
        ["push", "--from", local, "--to", url],
        ["push", "--json", "--from", local, "--to", url],
        ["sessions", "--json", "--index", url]
      ]
    ) {
      const r = await cliAsync(args, dir)
      const what = `${args.join(" ")}\n${r.stderr}${r.stdout}`
      expect(r.stdout + r.stderr, what).not.toMatch(/STORE_UNAVAILABLE|INVALID_ARGUMENT/)
      expect(r.stdout.length, what).toBeGreaterThan(0)
      leakFree(r.stdout + r.stderr, pw, what)
    }
  }, 120_000)
})
