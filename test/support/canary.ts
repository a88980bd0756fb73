/**
 * A canary corpus for redaction (issue 15): every provider's fixtures
 * copied to a temporary folder with secrets planted in every field a
 * reader can reach. A JSON value gets the canary block appended to each of
 * its strings that holds whitespace (message text, thinking, tool inputs
 * such as a Bash command, Edit old/new strings, Write content, tool
 * results, summaries and titles, native provenance), also inside strings
 * that themselves hold JSON (Muse Code's `record_json`); strings without
 * whitespace (ids, enums, timestamps, hashes) are left alone so the sources
 * still parse as their providers expect.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { contextualSamples, secretSamples } from "./secrets.js"

/** One planted secret: the rule that must redact it, the text planted, and a part of it that must never be seen. */
export interface Canary {
  readonly rule: string
  readonly text: string
  readonly needle: string
}

/** The canaries: every key shape, credentials after a kept name, and home paths (their user names). */
export const canaries = (): ReadonlyArray<Canary> => {
  const out: Array<Canary> = []
  for (const [rule, samples] of Object.entries(secretSamples())) {
    for (const s of samples) {
      // A PEM block: its longest body line is the needle (the block is escaped in JSON).
      const needle = rule === "private-key" ? s.split(/\\n|\n/).sort((a, b) => b.length - a.length)[0] : s
      out.push({ rule, text: s, needle })
    }
  }
  for (const [rule, samples] of Object.entries(contextualSamples())) {
    for (const [text, secret] of samples) out.push({ rule, text, needle: secret })
  }
  // session 23 (tester23b F1): a token wrapped over lines that carry a prefix (indentation, a quote, Claude Code's Read
  // gutter, a terminal's padding); the needle is its rest, on the second line
  const gh = secretSamples()["github-token"]
  const wrapped: ReadonlyArray<(a: string, b: string) => string> = [
    (a, b) => `    ${a}\n    ${b}`, (a, b) => `> ${a}\n> ${b}`, (a, b) => `     1\u2192${a}\n     2\u2192${b}`, (a, b) => `${a}   \n${b}   `
  ]
  wrapped.forEach((lines, n) => {
    const t = `${gh[n].slice(0, 4)}${[...gh[n].slice(4)].reverse().join("")}`
    out.push({ rule: "github-token", text: lines(t.slice(0, 22), t.slice(22)), needle: t.slice(22) })
  })
  out.push({ rule: "home-path", text: "/home/zedcanaryone/notes.txt", needle: "zedcanaryone" })
  out.push({ rule: "home-path", text: "/Users/zedcanarytwo/Desktop", needle: "zedcanarytwo" })
  out.push({ rule: "home-path", text: "C:\\Users\\ZedCanaryThree\\repo", needle: "ZedCanaryThree" })
  return out
}

/** The block appended to every reachable string: each canary on a line of its own. */
export const canaryBlock = (cs: ReadonlyArray<Canary>): string => "\n" + cs.map((c) => c.text).join("\n") + "\n"

const SKIP_KEYS = new Set(["type", "subtype", "role", "kind", "name", "cwd", "workspace_root", "redaction"])

/** `v` with the block appended to every reachable string (see the module's doc). */
export const plant = (v: unknown, block: string, key = ""): unknown => {
  if (typeof v === "string") {
    const t = v.trimStart()
    if ((t.startsWith("{") || t.startsWith("[")) && t.length > 1) {
      try {
        return JSON.stringify(plant(JSON.parse(t), block))
      } catch {
        // not JSON: plain text
      }
    }
    return SKIP_KEYS.has(key) || !/\s/.test(v) ? v : v + block
  }
  if (Array.isArray(v)) return v.map((x) => plant(x, block, key))
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plant(x, block, k)]))
  }
  return v
}

/** A JSONL text with every line that parses planted (other lines kept as they are: bad lines stay bad). */
export const plantLines = (text: string, block: string): string =>
  text.split("\n").map((line) => {
    if (line.trim() === "") return line
    try {
      return JSON.stringify(plant(JSON.parse(line), block))
    } catch {
      return line
    }
  }).join("\n")

/** Copy the folder `from` to `to`, planting every `.jsonl` and `.json` file. */
export const copyPlanted = (from: string, to: string, block: string) => {
  fs.mkdirSync(to, { recursive: true })
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name)
    const dst = path.join(to, entry.name)
    if (entry.isDirectory()) copyPlanted(src, dst, block)
    else if (entry.name.endsWith(".jsonl")) fs.writeFileSync(dst, plantLines(fs.readFileSync(src, "utf8"), block))
    else if (entry.name.endsWith(".json")) {
      const text = fs.readFileSync(src, "utf8")
      try {
        fs.writeFileSync(dst, JSON.stringify(plant(JSON.parse(text), block), null, 2))
      } catch {
        fs.writeFileSync(dst, text)
      }
    } else fs.copyFileSync(src, dst)
  }
}
