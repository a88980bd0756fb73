/**
 * `sslmode=require` (or `verify-full`) against a server without SSL (tester28a
 * F9): the remedy said to run the command again, which gives the same
 * answer every time. It now says so, and to enable SSL on the server or
 * connect without it. The test server runs without SSL.
 */
import { describe, expect, it } from "@effect/vitest"
import { freshDatabase } from "../support/pg.js"
import { cli, cliJson } from "../support/run.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

describe("PostgreSQL index: SSL asked of a server without it", () => {
  it("STORE_UNAVAILABLE whose remedy says running it again will not help, and what will", async () => {
    const url = await freshDatabase()
    expect(cli(["index", "migrate", "--index", url], { env }).code).toBe(0)
    for (const mode of ["require", "verify-full"]) {
      const r = cliJson(["sessions", "--index", `${url}?sslmode=${mode}`], env)
      expect([r.code, r.error?.code], r.stderr).toEqual([6, "STORE_UNAVAILABLE"])
      expect(r.error.message).toContain("does not support SSL")
      expect(r.error.details.reason).toBe("ssl-not-supported")
      expect(r.error.remediation).toMatch(/^Running it again will not help/)
      expect(r.error.remediation).toContain("Enable SSL on the server")
      expect(r.error.remediation).toContain("sslmode=disable")
      expect(r.error.remediation).not.toContain("Run the same command again")
    }
    // Without SSL asked for, the same server answers.
    expect(cliJson(["sessions", "--index", `${url}?sslmode=disable`], env).code).toBe(0)
  }, 60_000)
})
