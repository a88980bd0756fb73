/**
 * A PostgreSQL password never alters the product's own words and nothing
 * printed depends on it: the message, remedy and `details` of a failure are
 * the same, byte for byte, whatever the password (1, 2 or 3 characters,
 * letters common in English, the user name, the host, the database name,
 * special characters); the server's or driver's own message is shown as it is
 * when it holds no form of the password, and withheld whole (said so) when it
 * does, never masked inside words. Against a refused port and a real server
 * refusing the login (docs/index.md, "Passwords with special characters").
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgFailure, WITHHELD_TEXT } from "../../src/layers/index/postgres.js"
import { targetOf } from "../../src/layers/index/pg-target.js"
import { repoRoot } from "../support/paths.js"
import { pgServerUrl } from "../support/pg.js"

const cliAsync = (args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [nodePath.join(repoRoot, "bin", "session-ingest.mjs"), ...args], { cwd, encoding: "utf8", timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
  })

/** A password that occurs in no message (the reference every other password's output is compared with). */
const NEUTRAL = "Zq7Wv9Kx3Jp"

/** Short and common passwords, the URL's own parts, special characters. */
const PASSWORDS = ["e", "on", "x", "er", "1", "a", "ab", "abc", "the", "ed", "tester", "127.0.0.1", "si", ".", ":", "%", "#", "(", "é", " ", "\"", "ss"]

/** The passwords the CLI is run with (each run takes a second or two): short ones, the URL's parts, special characters. */
const CLI_PASSWORDS = ["e", "on", "x", "er", "1", "tester", "127.0.0.1", "si", "%", " ", "\"", "é"]

const urlOf = (pw: string, port: number, database = "si") => `postgres://tester:${encodeURIComponent(pw)}@127.0.0.1:${port}/${database}`

const sqlError = (message: string, code: string) => Object.assign(new Error(message), { code })

describe("pgFailure: the password never alters the product's words", () => {
  const causes = [
    () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }),
    () => new Error("Connection terminated due to connection timeout"),
    () => sqlError("password authentication failed for user \"tester\"", "28P01"),
    () => sqlError("role \"tester\" does not exist", "28000"),
    () => sqlError("database \"si\" does not exist", "3D000"),
    () => sqlError("could not extend file \"base/16384/2619\": No space left on device", "53100")
  ]

  it.each(PASSWORDS.map((p) => [p]))("password %j: message, remedy and details as with any other password; the outside text shown or withheld whole", (pw) => {
    for (const make of causes) {
      const ref = pgFailure(targetOf(urlOf(NEUTRAL, 1)), make())
      const got = pgFailure(targetOf(urlOf(pw, 1)), make())
      const outside = make().message
      const holds = outside.toLowerCase().includes(pw.toLowerCase()) || outside.includes(encodeURIComponent(pw))
      const shownInRef = ref.message.includes(outside)
      const expected = holds && shownInRef ? ref.message.replace(outside, WITHHELD_TEXT) : ref.message
      expect(got.message, outside).toBe(expected)
      expect(got.remediation).toBe(ref.remediation)
      expect(got.details).toEqual(ref.details)
      expect(got.message + (got.remediation ?? "")).not.toContain("***")
      if (holds && shownInRef) expect(got.message).not.toContain(outside)
    }
  })

  it("any short password, any outside text: the product's text is that of a neutral password; outside text holding the password is never shown", () => {
    fc.assert(
      fc.property(
        fc.stringOf(fc.constantFrom(..."aeionrstlcdhTPSQL .:/#%@é1"), { minLength: 1, maxLength: 3 }),
        fc.string({ maxLength: 40 }),
        fc.constantFrom("28P01", "28000", "3D000", "53100", "XX000", "ECONNREFUSED"),
        (pw, text, code) => {
          const outside = `server says ${text} (${pw})`
          const got = pgFailure(targetOf(urlOf(pw, 5432)), sqlError(outside, code))
          const ref = pgFailure(targetOf(urlOf(NEUTRAL, 5432)), sqlError(outside, code))
          expect(got.remediation).toBe(ref.remediation)
          expect(got.details).toEqual(ref.details)
          expect(got.message).not.toContain(outside)
          expect(got.message).toBe(ref.message.includes(outside) ? ref.message.replace(outside, WITHHELD_TEXT) : ref.message)
        }
      ),
      { numRuns: 500 }
    )
  })
})

describe("the CLI: a refused port and a refused login print the same whatever the password", () => {
  let dir = ""
  beforeAll(() => {
    dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "pg-pw-text-"))
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  /** stdout and stderr of the same command with `NEUTRAL` and with each password (three at a time). */
  const runAll = async (args: (url: string) => ReadonlyArray<string>, url: (pw: string) => string) => {
    const ref = await cliAsync(args(url(NEUTRAL)), dir)
    const out: Array<{ pw: string; r: typeof ref }> = []
    for (let i = 0; i < CLI_PASSWORDS.length; i += 3) {
      out.push(...await Promise.all(CLI_PASSWORDS.slice(i, i + 3).map(async (pw) => ({ pw, r: await cliAsync(args(url(pw)), dir) }))))
    }
    return { ref, out }
  }

  it("a refused port: human and --json output identical to a neutral password's, ungarbled", async () => {
    for (const json of [false, true]) {
      const { ref, out } = await runAll((u) => ["sessions", ...(json ? ["--json"] : []), "--index", u], (pw) => urlOf(pw, 1))
      expect(ref.code).toBe(6)
      const text = ref.stdout + ref.stderr
      expect(text).toContain("The PostgreSQL index at 127.0.0.1:1 (database si) cannot be reached: ECONNREFUSED.")
      expect(text).toContain("Check that a PostgreSQL server runs at 127.0.0.1:1 and accepts connections from this machine")
      for (const { pw, r } of out) {
        expect(r.code, pw).toBe(6)
        expect(r.stdout, pw).toBe(ref.stdout)
        expect(r.stderr, pw).toBe(ref.stderr)
      }
    }
  }, 180_000)

  it("a login the real server refuses (no such role): the product's words unchanged; the server's message shown, or withheld when it holds the password", async () => {
    const port = new URL(pgServerUrl()).port
    const { ref, out } = await runAll((u) => ["sessions", "--json", "--index", u], (pw) => `postgres://tester:${encodeURIComponent(pw)}@127.0.0.1:${port}/postgres`)
    expect(ref.code).toBe(6)
    const refError = JSON.parse(ref.stdout).error as { message: string; remediation: string; details: Record<string, unknown> }
    expect(refError.details.reason).toBe("login-refused")
    const serverText = "role \"tester\" does not exist"
    expect(refError.message).toContain(serverText)
    expect(refError.message).toContain(`The PostgreSQL server at 127.0.0.1:${port} refused the login to database postgres`)
    for (const { pw, r } of out) {
      expect(r.code, pw).toBe(6)
      const error = JSON.parse(r.stdout).error as typeof refError
      const holds = serverText.toLowerCase().includes(pw.toLowerCase()) || serverText.includes(encodeURIComponent(pw))
      expect(error.message, pw).toBe(holds ? refError.message.replace(serverText, WITHHELD_TEXT) : refError.message)
      expect(error.remediation, pw).toBe(refError.remediation)
      expect(error.details, pw).toEqual(refError.details)
      expect(r.stdout + r.stderr, pw).not.toContain("***")
    }
    // Some of the passwords are in the server's message ("e", "tester", " "), some not ("1", "127.0.0.1", "si").
    const messageOf = (stdout: string) => (JSON.parse(stdout).error as { message: string }).message
    expect(out.filter(({ r }) => messageOf(r.stdout).includes(WITHHELD_TEXT)).map(({ pw }) => pw)).toEqual(expect.arrayContaining(["e", "tester", " ", "\""]))
    expect(out.filter(({ r }) => messageOf(r.stdout).includes(serverText)).map(({ pw }) => pw)).toEqual(expect.arrayContaining(["1", "127.0.0.1", "si"]))
  }, 180_000)
})
