/**
 * The `--since` / `--until` help of `sessions`, `search` and `usage` says
 * what a bare date means (tester32a F7): docs/stream-and-cursors.md, "A date
 * `YYYY-MM-DD` is UTC: `--since D` from its first instant, `--until D` to its
 * last"; `sessions --local` shows local times, so the help must say the
 * filter's day is still the UTC one.
 */
import { describe, expect, it } from "@effect/vitest"
import { cli } from "./support/run.js"

/** The option's paragraph of a command's help, its lines joined by single spaces. */
const optionHelp = (command: string, option: string): string => {
  const r = cli([command, "--help"], { env: { NO_COLOR: "1", FORCE_COLOR: "" } })
  expect(r.code).toBe(0)
  const lines = r.stdout.split("\n")
  const at = lines.findIndex((l) => l.trimStart().startsWith(`${option} `) && !l.includes("["))
  expect(at).toBeGreaterThanOrEqual(0)
  const indent = (l: string) => l.length - l.trimStart().length
  const paragraph: Array<string> = []
  // The description: the lines indented deeper than the option's own line, up to a blank one.
  for (let i = at + 1; i < lines.length && lines[i].trim() !== "" && indent(lines[i]) > indent(lines[at]); i++) paragraph.push(lines[i].trim())
  return paragraph.join(" ")
}

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
