/**
 * The `--since` / `--until` help of `sessions`, `search` and `usage` says
 * what a bare date means (tester32a F7): docs/stream-and-cursors.md, "A date
 * `YYYY-MM-DD` is UTC: `--since D` from its first instant, `--until D` to its
 * last"; `sessions --local` shows local times, so the help must say the
 * filter's day is still the UTC one.
 */
import { describe, expect, it } from "@effect/vitest"
import { optionHelp } from "./support/help.js"

describe("a bare date in --since / --until is a UTC day, and the help says so", () => {
  for (const command of ["sessions", "search", "usage"]) {
    it(`${command} --help`, () => {
      expect(optionHelp(command, "--since")).toMatch(/a bare YYYY-MM-DD is a UTC day[,;] .*give a time with an offset for another zone/)
      expect(optionHelp(command, "--until")).toMatch(/that UTC day/)
    })
  }
  it("sessions --help says it of --local too", () => {
    expect(optionHelp("sessions", "--since")).toContain("also with --local")
  })
})
