/**
 * A malformed PostgreSQL URL (`--index`, `push --to`, the config file's
 * `index`) is a usage error: INVALID_ARGUMENT, exit 2, naming what is wrong
 * (scheme, percent-escape, host, port), never the password, and never
 * mistaken for an unreachable server (exit 6, "(unknown):5432") or a file
 * path. `sslmode=require` prints no library warning.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { connectionUrl, indexUrlProblem } from "../../src/layers/index/pg-target.js"
import { cli } from "../support/run.js"

const SECRET = "Sup3r-s3cret-pw"

/** Each malformed URL and a word its message must hold. */
const BAD: ReadonlyArray<readonly [string, RegExp]> = [
  [`postgress://alice:${SECRET}@db.example:5432/team`, /scheme/i],
  [`mysql://alice:${SECRET}@db.example/team`, /scheme/i],
  [`postgres://alice:${SECRET}%zz@db.example:5432/team`, /percent/i],
  [`postgres://alice:${SECRET}@db.example:5432/te%g1am`, /percent/i],
  [`postgres://al%G1ce:${SECRET}@db.example/team`, /percent/i],
  [`postgres://alice:${SECRET}@:5432/team`, /host/i],
  [`postgres://alice:${SECRET}@/team`, /host/i],
  [`postgresql://alice:${SECRET}@db.example:99999/team`, /port/i],
  [`postgres://alice:${SECRET}@db.example:54x2/team`, /port/i],
  [`postgres://alice:${SECRET}@db.example:0/team`, /port/i]
]

describe("PostgreSQL URLs: what is wrong with one", () => {
  it("names the problem of each malformed URL, never its password", () => {
    for (const [url, word] of BAD) {
      const p = indexUrlProblem(url)
      expect(p, url).toBeDefined()
      expect(p!, url).toMatch(word)
      expect(p!, url).not.toContain(SECRET)
    }
  })

  it("accepts well-formed URLs and file paths", () => {
    for (
      const ok of [
        `postgres://alice:${SECRET}@db.example:5432/team`,
        `postgresql://alice:p%40ss@10.0.0.1/team?sslmode=require`,
        "postgres://[::1]:6543/team",
        "postgres://db.example/team",
        "postgres:///team?host=/var/run/postgresql",
        "./index.db",
        "/tmp/x/index.db",
        "index.db"
      ]
    ) expect(indexUrlProblem(ok), ok).toBeUndefined()
  })

  it("sslmode prefer/require/verify-ca: passed on as verify-full (what pg does with them), so pg prints no deprecation warning", () => {
    expect(new URL(connectionUrl("postgres://a@h/db?sslmode=require")).searchParams.get("sslmode")).toBe("verify-full")
    expect(new URL(connectionUrl("postgres://a@h/db?sslmode=prefer")).searchParams.get("sslmode")).toBe("verify-full")
    expect(connectionUrl("postgres://a:p%40w@h/db?sslmode=disable")).toBe("postgres://a:p%40w@h/db?sslmode=disable")
    expect(connectionUrl("postgres://a@h/db?sslmode=require&uselibpqcompat=true")).toBe("postgres://a@h/db?sslmode=require&uselibpqcompat=true")
    expect(connectionUrl("postgres://a@h/db")).toBe("postgres://a@h/db")
  })
})

describe("PostgreSQL URLs: the CLI", () => {
  it("a malformed --index URL: INVALID_ARGUMENT, exit 2, the problem named, no password, nothing created", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "pg-url-"))
    try {
      for (const [url, word] of BAD) {
        for (
          const args of [
            ["import", "--index", url, "--agents-root", dir],
            ["sessions", "--index", url],
            ["index", "migrate", "--index", url],
            ["search", "word", "--index", url],
            ["push", "--from", nodePath.join(dir, "none.db"), "--to", url]
          ]
        ) {
          const r = cli(args, { cwd: dir })
          expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(2)
          expect(r.stderr).toContain("INVALID_ARGUMENT")
          expect(r.stderr).toMatch(word)
          expect(r.stderr).not.toContain("(unknown)")
          expect(r.stdout + r.stderr).not.toContain(SECRET)
        }
      }
      const j = cli(["sessions", "--json", "--index", BAD[2][0]], { cwd: dir })
      expect(j.code).toBe(2)
      expect(JSON.parse(j.stdout.trim()).error.code).toBe("INVALID_ARGUMENT")
      expect(j.stdout + j.stderr).not.toContain(SECRET)
      // Nothing was made in the working directory (no file named after a URL).
      expect(fs.readdirSync(dir)).toEqual([])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it("a malformed index URL in the config file: INVALID_ARGUMENT, exit 2", () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "pg-url-"))
    try {
      const config = nodePath.join(dir, "config.json")
      fs.writeFileSync(config, JSON.stringify({ index: `postgres://alice:${SECRET}@db.example:70000/team` }))
      // Each command that takes the config file's index names the config file's key, not an --index it was not given.
      for (const args of [["sessions"], ["search", "x"], ["usage"], ["import", "--claude-root", dir]]) {
        const r = cli([...args, "--config", config], { cwd: dir })
        expect(r.code, r.stderr).toBe(2)
        expect(r.stderr).toMatch(/^session-ingest: INVALID_ARGUMENT: The config file's "index" postgres:\/\/alice@db\.example:70000\/team: the port/)
        expect(r.stderr).not.toContain("--index postgres")
        expect(r.stdout + r.stderr).not.toContain(SECRET)
      }
      // Given on the command line, --index is named (and wins over the config file).
      const given = cli(["sessions", "--config", config, "--index", "postgres://bob@:1/x"], { cwd: dir })
      expect(given.stderr).toMatch(/^session-ingest: INVALID_ARGUMENT: --index postgres:\/\/bob@:1\/x: the URL names no host/)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("sslmode=require: no library warning on the terminal (an unreachable server is STORE_UNAVAILABLE as usual)", () => {
    const r = cli(["sessions", "--index", `postgres://alice:${SECRET}@127.0.0.1:1/team?sslmode=require`])
    expect(r.code, r.stderr).toBe(6)
    expect(r.stderr).toContain("STORE_UNAVAILABLE")
    expect(r.stderr).not.toMatch(/SECURITY WARNING|sslmode|Warning:/)
    expect(r.stdout + r.stderr).not.toContain(SECRET)
  })
})
