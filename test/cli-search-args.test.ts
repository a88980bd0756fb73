/**
 * `search` command lines found by fresh users: a query word that starts
 * with `-` (NOT) must not swallow the options after it, `--` separates the
 * options from the query, and `--kind` is checked (an unknown spelling of a
 * kind is INVALID_ARGUMENT listing the kinds, a provider's own kind is
 * taken as it is).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { copyFixtures } from "./claude-code/helpers.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

const imported = () => {
  const root = copyFixtures()
  const dir = tempDir("si-cli-search-args-")
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
  const index = path.join(dir, "i.db")
  const r = cli(["import", "--index", index, "--claude-root", root, "--agents-root", agents, "--json"], { env })
  expect([0, 8]).toContain(r.code)
  return index
}

/** Run `search` with `args` as given (no option added at the end), `--json` first. */
const search = (args: ReadonlyArray<string>) => {
  const r = cli(["search", "--json", ...args], { env })
  const last = r.stdout.trim().split("\n").pop()!
  return { code: r.code, stderr: r.stderr, ...(JSON.parse(last) as { status: string; data: any; error: any }) }
}

describe("search: a query that starts with -word", () => {
  it("after --, the query may start with -word; the options before -- apply", () => {
    const index = imported()
    const all = search(["--index", index, "subtotal"])
    expect(all.code).toBe(0)
    expect(all.data.hits.length).toBeGreaterThan(1)
    const r = search(["--index", index, "--limit", "1", "--", "-zzzqqq", "subtotal"])
    expect(r.code).toBe(0)
    expect(r.data.query).toBe("-zzzqqq subtotal")
    expect(r.data.hits.length).toBe(1)
    // one argument holding the whole query works too, options before or after it
    for (const args of [["--limit", "1", "-zzzqqq subtotal"], ["--limit=1", "--", "-zzzqqq subtotal"]]) {
      const q = search(["--index", index, ...args])
      expect(q.code, args.join(" ")).toBe(0)
      expect(q.data.query).toBe("-zzzqqq subtotal")
      expect(q.data.hits.length).toBe(1)
    }
    // a word first, then -word: options anywhere apply
    const w = search(["--index", index, "subtotal", "-zzzqqq", "--limit", "1"])
    expect(w.code).toBe(0)
    expect(w.data.query).toBe("subtotal -zzzqqq")
    expect(w.data.hits.length).toBe(1)
  })

  it("options after a leading -word are never searched for: INVALID_ARGUMENT (exit 2) saying to use --", () => {
    const index = imported()
    for (
      const args of [
        ["--index", index, "-zzzqqq", "subtotal", "--limit", "5"],
        ["-zzzqqq subtotal", "--limit", "5", "--index", index],
        ["--index", index, "-x", "subtotal", "--kind=tool-result"],
        ["--index", index, "--limit", "2", "-zzzqqq", "subtotal", "--role", "user"]
      ]
    ) {
      const r = search(args)
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.status).toBe("error")
      expect(r.error.code).toBe("INVALID_ARGUMENT")
      expect(r.error.message).toMatch(/--(limit|kind|role|index)/)
      expect(r.error.remediation).toContain(" -- ")
    }
  })

  it("an option of search after -- is refused: options go before --; the text itself can be searched as a phrase", () => {
    const index = imported()
    const r = search(["--index", index, "--", "-zzzqqq", "subtotal", "--limit", "5"])
    expect(r.code).toBe(2)
    expect(r.error.code).toBe("INVALID_ARGUMENT")
    expect(r.error.message).toContain("--limit")
    expect(r.error.remediation).toContain("--limit 5 -- -zzzqqq subtotal")
    // a flag that is no option of search is a word of the query (e.g. a git flag an agent used)
    const flag = search(["--index", index, "--", "--no-verify"])
    expect(flag.code).toBe(0)
    expect(flag.data.query).toBe("--no-verify")
    const phrase = search(["--index", index, "--", "\"--limit\""])
    expect(phrase.code).toBe(0)
  })

  // docs/search.md: an option written after a word that starts with `-` is INVALID_ARGUMENT (exit 2) with the
  // command line meant; a bare `-` starts with `-` too, and @effect/cli reads every word after it as an argument
  // (tester12 F7: `search - word --index B --json` searched the default index for "word --index B --json", exit 0).
  it("a bare - is such a word: the options after it are refused, never searched for (every command with arguments)", () => {
    const index = imported()
    const dir = tempDir("si-cli-search-args-dash-")
    const own = { ...env, XDG_DATA_HOME: path.join(dir, "data"), XDG_CONFIG_HOME: path.join(dir, "config") }
    const r = cli(["search", "-", "subtotal", "--index", index, "--json"], { env: own })
    expect(r.code, r.stderr).toBe(2)
    const reply = JSON.parse(r.stdout.trim().split("\n").pop()!)
    expect(reply.status).toBe("error")
    expect(reply.error.code).toBe("INVALID_ARGUMENT")
    expect(reply.error.message).toBe(`--index comes after -, an argument that starts with "-", so it would be read as an argument, not as an option.`)
    expect(reply.error.remediation).toContain(`session-ingest search --index ${index} --json -- - subtotal`)
    // import's files: the options after a bare - are not read as files (nor the default index written)
    const other = path.join(dir, "other.db")
    const imp = cli(["import", "-", "--index", other, "--json"], { env: own })
    expect(imp.code, imp.stderr).toBe(2)
    expect(JSON.parse(imp.stdout.trim().split("\n").pop()!).error.code).toBe("INVALID_ARGUMENT")
    expect(fs.existsSync(other)).toBe(false)
    expect(fs.existsSync(path.join(dir, "data"))).toBe(false)
  })

  it("without an index the command line is checked first", () => {
    const dir = tempDir("si-cli-search-args-none-")
    const r = search(["--index", path.join(dir, "none.db"), "-foo", "bar", "--limit", "5"])
    expect(r.code).toBe(2)
    expect(r.error.code).toBe("INVALID_ARGUMENT")
  })
})

describe("search --kind", () => {
  it("a misspelt kind (another case, separator or the native block name) is INVALID_ARGUMENT listing the kinds", () => {
    const index = imported()
    for (const kind of ["tool_result", "Tool-Result", "tool_use", "toolcall", "TOOL-CALL", "messages", "tool result", "*"]) {
      const r = search(["--index", index, "--kind", kind, "subtotal"])
      expect(r.code, kind).toBe(2)
      expect(r.error.code, kind).toBe("INVALID_ARGUMENT")
      for (const k of ["message", "thinking", "tool-call", "tool-result", "summary"]) expect(r.error.message + r.error.remediation, kind).toContain(k)
    }
  })

  it("a near miss names the kind meant", () => {
    const index = imported()
    expect(search(["--index", index, "--kind", "tool_result", "x"]).error.message).toContain("tool-result")
    expect(search(["--index", index, "--kind", "tool_use", "x"]).error.message).toContain("tool-call")
  })

  it("the conversation kinds and a provider's own kinds (Muse Code's dotted and snake_case kinds) are taken as they are", () => {
    const index = imported()
    for (const kind of ["message", "thinking", "tool-call", "tool-result", "summary", "result", "meta", "side_effect_intent", "subagent.control.spawn_accepted", "approval_wait.effect.started"]) {
      const r = search(["--index", index, "--kind", kind, "subtotal"])
      expect(r.code, kind).toBe(0)
      for (const h of r.data.hits) expect(h.kind).toBe(kind)
    }
  })
})

describe("search: a query refused for its length (tester34a F4)", () => {
  it("--json echoes it cut to the 2,000-character limit with its length, not whole", () => {
    const index = imported()
    const r = search(["--index", index, "a".repeat(100_000)])
    expect(r.code).toBe(2)
    expect(r.error.code).toBe("INVALID_SEARCH_QUERY")
    // The limit (MAX_QUERY_LENGTH, docs: "a query may be at most 2000 characters long"): 1,999 characters and the ellipsis.
    expect(r.error.details.query).toBe("a".repeat(1999) + "\u2026")
    expect(r.error.details.queryLength).toBe(100_000)
    expect(r.error.details.position).toBe(2000)
  }, 60_000)
})
