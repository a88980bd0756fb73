import { expect } from "@effect/vitest"
import { cli } from "./run.js"

/** The option's paragraph of a command's help, its lines joined by single spaces. */
export const optionHelp = (command: string, option: string): string => {
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

