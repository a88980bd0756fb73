/**
 * The CLI as a new user meets it (issue 11, "Trust"): session content cannot
 * act on the terminal, a command line that does not parse answers in the
 * README's error format, help fits a terminal and carries no colour codes
 * where none belong.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { createStore } from "./agentmux/store-helper.js"
import { tsidxRecord } from "./agentmux/store-helper.js"
import { repoRoot, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

/** What a hostile source writes: OSC retitle, clear screen, C1 CSI, CR, BS, a bidi override. */
const EVIL = "A\u001b]0;pwned\u0007B\u001b[2JC\u009b31mD\rE\bF\u202eG"
/** Any character a terminal may act on (the line feed and tab of the layout aside). */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

const noRaw = (label: string, r: { stdout: string; stderr: string }) => {
  expect(RAW.exec(r.stdout), `${label}: stdout`).toBeNull()
  expect(RAW.exec(r.stderr), `${label}: stderr`).toBeNull()
}

/** A Muse agents root under a folder whose name holds EVIL; one agent whose prompt, tool input and output hold it. */
const evilAgents = () => {
  const dir = tempDir("si-trust-")
  const root = path.join(dir, `root${EVIL}`, "agents")
  const sessions = path.join(root, "evil", "sessions")
  fs.mkdirSync(sessions, { recursive: true })
  const lines = [
    { type: "session_header", session_id: "sess-evil", agent_id: "evil", created_at: "2025-03-01T08:00:00Z" },
    { type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: `fix it ${EVIL}` }, created_at: "2025-03-01T08:00:01Z" },
    { type: "item", seq: 2, source: "runtime", item: { type: "function_call", call_id: "c1", name: "exec", arguments: JSON.stringify({ command: EVIL }) }, created_at: "2025-03-01T08:00:02Z" },
    { type: "item", seq: 3, source: "runtime", item: { type: "function_call_output", call_id: "c1", output: `out ${EVIL}`, success: true }, created_at: "2025-03-01T08:00:03Z" },
    { type: "item", seq: 4, source: "runtime", item: { type: "message", role: "assistant", text: `done ${EVIL}` }, created_at: "2025-03-01T08:00:04Z" }
  ]
  const file = path.join(sessions, "evil.jsonl")
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l) + "\n").join(""))
  return { dir, root, file }
}

/** An AgentMux store whose agent u1 has one session: EVIL in its prompt, cwd, tool input, tool output and answer. */
const evilStore = () => {
  const dir = tempDir("si-trust-am-")
  const store = path.join(dir, "filestore.db")
  const state = path.join(dir, "state.db")
  const sid = "S-EVIL"
  const j = (v: unknown) => JSON.stringify(v)
  const lines = [
    j({ type: "user", message: { role: "user", content: `please ${EVIL}` } }),
    j({ type: "system", subtype: "init", cwd: `/home/dev/${EVIL}`, session_id: sid, model: "m-1", tools: ["Bash"], uuid: "i-1" }),
    j({ type: "assistant", message: { id: "m1", type: "message", role: "assistant", model: "m-1", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: EVIL } }] }, parent_tool_use_id: null, session_id: sid, uuid: "u-1" }),
    j({ type: "user", message: { role: "user", content: [{ tool_use_id: "t1", type: "tool_result", content: `out ${EVIL}`, is_error: false }] }, parent_tool_use_id: null, session_id: sid, uuid: "r-1" }),
    j({ type: "assistant", message: { id: "m2", type: "message", role: "assistant", model: "m-1", content: [{ type: "text", text: `done ${EVIL}` }] }, parent_tool_use_id: null, session_id: sid, uuid: "u-2" })
  ]
  const bytes = Buffer.from(lines.map((l) => l + "\n").join(""), "utf8")
  createStore(store, [
    { zoneId: "agent:u1:current", name: "output", bytes, createdTs: 1_700_000_000_000 },
    { zoneId: "agent:u1:current", name: "output.tsidx", bytes: Buffer.from(tsidxRecord(0, 1_700_000_000_000)) }
  ])
  return { dir, store, state, sid }
}

describe("session content never reaches the terminal raw", () => {
  it("muse-agents: discover, transcript, import, sessions, show (every human format) show controls escaped", () => {
    const { dir, file, root } = evilAgents()
    const index = path.join(dir, "i.db")
    const runs: Array<[string, Array<string>]> = [
      ["discover", ["discover", "muse-agents", "--agents-root", root]],
      ["transcript text", ["transcript", "muse-agents", file, "--agents-root", root]],
      ["transcript markdown", ["transcript", "muse-agents", file, "--agents-root", root, "--format", "markdown"]],
      ["import", ["import", "--index", index, "--agents-root", root, "--workspace", dir]],
      ["sessions", ["sessions", "--index", index]],
      ["show transcript", ["show", "sess-evil", "--index", index, "--format", "transcript"]],
      ["show markdown", ["show", "sess-evil", "--index", index, "--format", "markdown"]]
    ]
    const out = new Map<string, { stdout: string }>()
    for (const [label, args] of runs) {
      const r = cli(args)
      expect(r.code, `${label}: ${r.stderr}`).toBe(0)
      noRaw(label, r)
      out.set(label, r)
    }
    // Visible, not dropped: the escapes show where the controls were (the same runs' output).
    expect(out.get("transcript text")!.stdout).toContain("A\\x1b]0;pwned\\x07B\\x1b[2JC\\x9b31mD\\x0dE\\x08F\\u202eG")
    expect(out.get("sessions")!.stdout).toContain("fix it A\\x1b]0;pwned\\x07B")
    expect(out.get("discover")!.stdout).toContain("rootA\\x1b]0;pwned")
  })

  it("muse-agents: --json and NDJSON stay valid JSON, carry the same text, and no raw C1 or bidi control", () => {
    const { dir, file, root } = evilAgents()
    const index = path.join(dir, "i.db")
    expect(cli(["import", "--index", index, "--agents-root", root, "--workspace", dir]).code).toBe(0)
    for (
      const args of [
        ["transcript", "muse-agents", file, "--agents-root", root, "--json"],
        ["discover", "muse-agents", "--agents-root", root, "--json"],
        ["sessions", "--index", index, "--json"],
        ["show", "sess-evil", "--index", index, "--json"]
      ]
    ) {
      const r = cli(args)
      expect(r.code).toBe(0)
      noRaw(args[0], r)
      expect(JSON.stringify(JSON.parse(r.stdout))).toContain(JSON.stringify(EVIL).slice(1, -1))
    }
    for (const args of [["show", "sess-evil", "--index", index], ["export", "sess-evil", "--index", index, "--format", "ndjson"], ["stream", "muse-agents", file, "--agents-root", root]]) {
      const r = cli(args)
      expect(r.code).toBe(0)
      noRaw(args[0], r)
      const events = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l))
      expect(events.some((e) => JSON.stringify(e).includes(JSON.stringify(EVIL).slice(1, -1)))).toBe(true)
    }
  })

  it("agentmux: discover, transcript, import, sessions, show show controls escaped", () => {
    const { dir, sid, state, store } = evilStore()
    const index = path.join(dir, "i.db")
    const src = ["--agent", "u1", "--store", store, "--state", state]
    const runs: Array<[string, Array<string>]> = [
      ["discover", ["discover", "agentmux", ...src]],
      ["transcript text", ["transcript", "agentmux", ...src, "--session", sid]],
      ["transcript markdown", ["transcript", "agentmux", ...src, "--session", sid, "--format", "markdown"]],
      ["import", ["import", "--index", index, ...src, "--workspace", dir]],
      ["sessions", ["sessions", "--index", index]],
      ["show transcript", ["show", sid, "--index", index, "--format", "transcript"]],
      ["show markdown", ["show", sid, "--index", index, "--format", "markdown"]]
    ]
    const out = new Map<string, { stdout: string }>()
    for (const [label, args] of runs) {
      const r = cli(args)
      expect(r.code, `${label}: ${r.stderr}`).toBeLessThan(9)
      noRaw(label, r)
      out.set(label, r)
    }
    expect(out.get("discover")!.stdout).toContain("/home/dev/A\\x1b]0;pwned\\x07B")
    expect(out.get("show transcript")!.stdout).toContain("out A\\x1b]0;pwned\\x07B\\x1b[2JC\\x9b31mD")
  })

  it("an error or a note naming session content shows it escaped on stderr", () => {
    const { dir, root } = evilAgents()
    const index = path.join(dir, "i.db")
    expect(cli(["import", "--index", index, "--agents-root", root, "--workspace", dir]).code).toBe(0)
    const r = cli(["show", `nope${EVIL}`, "--index", index])
    expect(r.code).toBe(4)
    expect(r.stderr).toContain("nopeA\\x1b]0;pwned")
    noRaw("error", r)
    const e = cli(["show", `nope${EVIL}`, "--index", index, "--json"])
    expect(e.code).toBe(4)
    noRaw("error --json", e)
    expect(JSON.parse(e.stdout).error.message).toContain(EVIL)
  })
})

describe("a command line that does not parse", () => {
  const cases: Array<[string, Array<string>]> = [
    ["show", ["show"]],
    ["stream", ["stream", "muse-code", "--limit", "abc", "x.json"]],
    ["sessions", ["sessions", "--bogus"]],
    ["show", ["show", "a", "b"]],
    ["", ["nope"]],
    ["", ["--json-ish"]],
    // @effect/cli's interactive wizard is refused like any unknown option (it would prompt, in colour, on a pipe).
    ["", ["--wizard"]],
    ["sessions", ["sessions", "--wizard"]],
    ["sessions", ["sessions", "--log-level", "debug"]],
    // An option that takes a value, given last without one (an empty shell variable in a daily job):
    // refused, never read as given zero times.
    ["import", ["import", "--agents-root", "fixtures/muse-agents/agents", "--agent"]],
    ["import", ["import", "--workspace"]],
    ["import", ["import", "--state"]],
    ["sessions", ["sessions", "--limit"]],
    ["discover", ["discover", "muse-code", "--muse-root"]]
  ]

  it("says so once, in the README's format (code, problem, remedy), exit 2", () => {
    const ran = new Map<string, ReturnType<typeof cli>>()
    for (const [command, args] of cases) {
      const r = cli(args)
      ran.set(JSON.stringify(args), r)
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.stdout).toBe("")
      const remedy = `Run \`session-ingest${command === "" ? "" : ` ${command}`} --help\`.`
      expect(r.stderr, args.join(" ")).toMatch(/^session-ingest: INVALID_ARGUMENT: [^\n]+\n {2}remedy: [^\n]+\n$/)
      expect(r.stderr).toContain(`  remedy: ${remedy}\n`)
    }
    // The same runs' messages (each command line is one of the cases above).
    const of = (args: Array<string>) => ran.get(JSON.stringify(args))!
    expect(of(["stream", "muse-code", "--limit", "abc", "x.json"]).stderr).toContain('--limit takes a whole number of events in decimal digits (got "abc")')
    expect(of(["import", "--state"]).stderr).toMatch(/^session-ingest: INVALID_ARGUMENT: Expected a value following option --state\.\n/)
    expect(of(["sessions", "--limit"]).stderr).toMatch(/^session-ingest: INVALID_ARGUMENT: Expected a value following option --limit\.\n/)
  })

  it("with --json answers one envelope on stdout and nothing else", () => {
    for (const [command, args] of cases) {
      const r = cli([...args, "--json"])
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.stderr, args.join(" ")).toBe("")
      expect(r.stdout.endsWith("\n")).toBe(true)
      expect(r.stdout.trimEnd().split("\n").length).toBe(1)
      const env = JSON.parse(r.stdout)
      expect(env).toMatchObject({ contractVersion: "1.3.0", status: "error", data: null })
      expect(env.command).toBe(command === "" ? "session-ingest" : command)
      expect(env.error.code).toBe("INVALID_ARGUMENT")
      expect(env.error.remediation).toMatch(/--help/)
    }
  })
})

/** Run the CLI on a terminal (`script` gives it a pty of `cols` columns) and answer what it printed. */
const onTerminal = (args: ReadonlyArray<string>, env: Record<string, string>, cols = 80): string => {
  const bin = path.join(repoRoot, "bin", "session-ingest.mjs")
  const command = `stty cols ${cols} rows 50; ${[process.execPath, bin, ...args].map((a) => `'${a}'`).join(" ")}`
  const r = spawnSync("script", ["-qec", command, "/dev/null"], { encoding: "utf8", env: { ...process.env, ...env } })
  expect(r.status).toBe(0)
  return r.stdout.replace(/\r\n/g, "\n")
}

const COMMANDS = ["providers", "discover", "inspect", "stream", "transcript", "import", "sessions", "show", "export"]

describe("help", () => {
  it("with no arguments: the program's help, without colour codes when piped or under NO_COLOR", () => {
    const piped = cli([])
    expect(piped.code).toBe(0)
    expect(piped.stdout).toContain("USAGE")
    expect(piped.stdout).not.toContain("\u001b")
    const noColor = onTerminal([], { NO_COLOR: "1" })
    expect(noColor).toContain("USAGE")
    expect(noColor).not.toContain("\u001b")
    expect(onTerminal(["sessions", "--help"], { NO_COLOR: "1" })).not.toContain("\u001b")
  })

  it("usage lines bracket optional options, fit the width, and carry no --wizard or filler", () => {
    const helps = new Map<string, string>()
    for (const args of [[], ["--help"], ...COMMANDS.map((c) => [c, "--help"])]) {
      const r = cli(args)
      helps.set(args.join(" "), r.stdout)
      expect(r.code).toBe(0)
      for (const line of r.stdout.split("\n")) expect(line.length, `${args.join(" ")}: ${line}`).toBeLessThanOrEqual(80)
      expect(r.stdout).not.toContain("--wizard")
      expect(r.stdout).not.toContain("A user-defined piece of text")
      expect(r.stdout).not.toContain("A true or false value")
      // The usage line's `...` says an option repeats; the description says so in words already.
      expect(r.stdout).not.toMatch(/may be repeated/)
    }
    // Each command's help as printed by the run above.
    const usage = (c: string) => helps.get(`${c} --help`)!.split("\n\n")[1].replace(/\s+/g, " ").trim()
    expect(usage("discover")).toMatch(/^\$ session-ingest discover \[--json\] /)
    expect(usage("discover")).toContain(" [--workspace DIR]... [--muse-root DIR]... [--agents-root DIR] ")
    expect(usage("discover")).toMatch(/ <provider>$/)
    expect(usage("show")).toMatch(/\[--format events\|transcript\|markdown\]/)
    expect(usage("show")).toMatch(/ <session-id>$/)
    expect(usage("import")).toMatch(/\[--agent UID\]\.\.\. \[--watch\] \[--jobs N\] \[<export-file>\]\.\.\.$/)
    expect(usage("stream")).toMatch(/<provider> \[<file>\]$/)
    // Every option a usage line names without brackets is one the command requires: none are.
    for (const c of COMMANDS) expect(usage(c).replace(/\[[^\]]*\](\.\.\.)?/g, "")).not.toMatch(/--/)
  })

  it("on a terminal, help is wrapped to its width", () => {
    for (const args of [[], ["import", "--help"], ["stream", "--help"]]) {
      const out = onTerminal(args, { NO_COLOR: "1" }, 60)
      for (const line of out.split("\n")) expect(line.length, line).toBeLessThanOrEqual(60)
    }
  })
})

let imported: { readonly dir: string; readonly index: string } | undefined
/**
 * The bundled Muse agents fixtures imported into an index (sessions sess-messy, sess-cron, sess-delegate, latest
 * first): one import for this file, shared by the cases below, which only read it.
 */
const importedAgents = () => {
  if (imported !== undefined) return imported
  const dir = tempDir("si-trust-ix-")
  const index = path.join(dir, "i.db")
  const root = path.join(repoRoot, "fixtures", "muse-agents", "agents")
  expect(cli(["import", "--index", index, "--agents-root", root, "--workspace", dir]).code).toBe(0)
  imported = { dir, index }
  return imported
}

describe("sessions --limit and id prefixes", () => {
  it("sessions --limit N lists the N latest; 0, a negative or a non-number is INVALID_ARGUMENT", () => {
    const { index } = importedAgents()
    const all = JSON.parse(cli(["sessions", "--index", index, "--json"]).stdout).data.map((s: any) => s.sessionId)
    expect(all).toEqual(["sess-messy", "sess-cron", "sess-delegate"])
    for (const n of [1, 2, 3, 10]) {
      const r = cli(["sessions", "--index", index, "--limit", String(n), "--json"])
      expect(r.code).toBe(0)
      expect(JSON.parse(r.stdout).data.map((s: any) => s.sessionId)).toEqual(all.slice(0, n))
    }
    const text = cli(["sessions", "--index", index, "--limit", "2"]).stdout.trimEnd().split("\n")
    expect(text.length).toBe(3) // the heading and two sessions
    for (const n of ["0", "-1", "two"]) {
      const r = cli(["sessions", "--index", index, "--limit", n, "--json"])
      expect(r.code, n).toBe(2)
      expect(JSON.parse(r.stdout).error.code).toBe("INVALID_ARGUMENT")
    }
  })

  it("show and export take a unique prefix of a session id or uid; an ambiguous one lists the candidates", () => {
    const { index } = importedAgents()
    const full = cli(["show", "sess-cron", "--index", index, "--format", "markdown"])
    expect(full.code).toBe(0)
    const byPrefix = cli(["show", "sess-cr", "--index", index, "--format", "markdown"])
    expect(byPrefix.code).toBe(0)
    expect(byPrefix.stdout).toBe(full.stdout)
    expect(cli(["export", "sess-c", "--index", index, "--format", "ndjson"]).stdout).toBe(
      cli(["export", "sess-cron", "--index", index, "--format", "ndjson"]).stdout
    )
    // A prefix of the index's uid.
    const uid = JSON.parse(cli(["sessions", "--index", index, "--json"]).stdout).data.find((s: any) => s.sessionId === "sess-delegate").sessionUid
    expect(JSON.parse(cli(["show", uid.slice(0, 12), "--index", index, "--json"]).stdout).data.session.sessionId).toBe("sess-delegate")
    // Ambiguous: INVALID_ARGUMENT naming every candidate, in the message and in details.
    for (const command of ["show", "export"]) {
      const r = cli([command, "sess-", "--index", index, "--json"])
      expect(r.code).toBe(2)
      const error = JSON.parse(r.stdout).error
      expect(error.code).toBe("INVALID_ARGUMENT")
      expect([...error.details.candidates].sort()).toEqual(["sess-cron", "sess-delegate", "sess-messy"])
      for (const id of ["sess-cron", "sess-delegate", "sess-messy"]) expect(error.message).toContain(id)
      const text = cli([command, "sess-", "--index", index])
      expect(text.code).toBe(2)
      expect(text.stderr).toMatch(/^session-ingest: INVALID_ARGUMENT: .*sess-cron.*\n {2}remedy: .+\n$/)
    }
    // Nothing matches: the same not-found a full id gives.
    const none = cli(["show", "zzz", "--index", index, "--json"])
    expect(none.code).toBe(4)
    expect(JSON.parse(none.stdout).error.code).toBe("SOURCE_NOT_FOUND")
  })
})

describe("times in human output", () => {
  const root = path.join(repoRoot, "fixtures", "muse-agents", "agents")
  const file = path.join(root, "cron-first", "sessions", "cron-first.jsonl")
  /** Every RFC 3339-looking time in a text. */
  const times = (text: string) => text.match(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?/g) ?? []

  it("carry their zone: UTC with Z by default, whatever TZ says", () => {
    const { index } = importedAgents()
    const env = { TZ: "Asia/Kolkata" }
    let sessions = ""
    for (
      const args of [
        ["sessions", "--index", index],
        ["show", "sess-cron", "--index", index, "--format", "transcript"],
        ["show", "sess-cron", "--index", index, "--format", "markdown"],
        ["transcript", "muse-agents", file, "--agents-root", root],
        ["discover", "muse-agents", "--agents-root", root],
        ["inspect", "muse-agents", file, "--agents-root", root]
      ]
    ) {
      const r = cli(args, { env })
      expect(r.code, args.join(" ")).toBe(0)
      const found = times(r.stdout)
      expect(found.length, args.join(" ")).toBeGreaterThan(0)
      for (const t of found) expect(t, args.join(" ")).toMatch(/Z$/)
      if (args[0] === "sessions") sessions = r.stdout
    }
    expect(sessions).toContain("2025-03-01T08:02:08Z")
  })

  it("with --local: the same instants in the TZ zone, with its offset; --json stays UTC", () => {
    const { index } = importedAgents()
    const kolkata = { TZ: "Asia/Kolkata" }
    const sessions = cli(["sessions", "--index", index, "--local"], { env: kolkata })
    expect(sessions.stdout).toContain("2025-03-01T13:32:08+05:30")
    expect(sessions.stdout).not.toMatch(/\d\dZ /)
    const stJohns = { TZ: "America/St_Johns" }
    const md = cli(["show", "sess-cron", "--index", index, "--format", "markdown", "--local"], { env: stJohns })
    expect(md.stdout).toContain("## user · 2025-03-01T04:30:01.000-03:30")
    for (
      const args of [
        ["show", "sess-cron", "--index", index, "--format", "transcript", "--local"],
        ["transcript", "muse-agents", file, "--agents-root", root, "--local"],
        ["transcript", "muse-agents", file, "--agents-root", root, "--format", "markdown", "--local"],
        ["discover", "muse-agents", "--agents-root", root, "--local"],
        ["inspect", "muse-agents", file, "--agents-root", root, "--local"]
      ]
    ) {
      const r = cli(args, { env: stJohns })
      expect(r.code, args.join(" ")).toBe(0)
      const found = times(r.stdout)
      expect(found.length, args.join(" ")).toBeGreaterThan(0)
      for (const t of found) expect(t, args.join(" ")).toMatch(/-03:30$/)
    }
    const json = JSON.parse(cli(["sessions", "--index", index, "--local", "--json"], { env: kolkata }).stdout)
    expect(json.data.find((s: any) => s.sessionId === "sess-cron").lastAt).toMatch(/^2025-03-01T08:02:08(\.0+)?Z$/)
  })
})

describe("import's remedies", () => {
  it("print each cause's problem and remedy on lines of their own; a config file's path is blamed on its key and folder", () => {
    const dir = tempDir("si-trust-cfg-")
    const sub = path.join(dir, "conf")
    fs.mkdirSync(sub)
    const config = path.join(sub, "c.json")
    fs.writeFileSync(config, JSON.stringify({ museRoots: ["muse"], agentsRoot: "agents", store: "fs.db", agents: ["u1"] }))
    const cwd = path.join(dir, "elsewhere")
    fs.mkdirSync(cwd)
    const r = cli(["import", "--config", config, "--index", path.join(dir, "i.db")], { cwd })
    expect(r.code).toBe(8)
    const lines = r.stdout.split("\n")
    const at = lines.indexOf("  to reach complete coverage:")
    expect(at).toBeGreaterThan(0)
    const causes = lines.slice(at + 1, lines.findIndex((l, i) => i > at && !l.startsWith("    ")))
    expect(causes.length).toBe(6) // three causes, each a problem line and a remedy line
    for (let i = 0; i < causes.length; i += 2) {
      expect(causes[i]).toMatch(/^ {4}- (muse-code|muse-agents|agentmux): [A-Z_]+: /)
      expect(causes[i]).not.toMatch(/remedy|Check|Pass /i)
      expect(causes[i + 1]).toMatch(/^ {6}remedy: /)
      expect(causes[i + 1]).toContain(config)
      expect(causes[i + 1]).toContain(`config file's folder (${sub})`)
    }
    expect(causes[0]).toContain(path.join(sub, "muse"))
    expect(causes[1]).toContain('"museRoots"')
    // --json: the same causes, problem and remedy apart.
    const j = JSON.parse(cli(["import", "--config", config, "--index", path.join(dir, "i.db"), "--json"], { cwd }).stdout)
    expect(j.data.causes.map((c: any) => c.code).sort()).toEqual(["AGENTS_ROOT_NOT_FOUND", "SOURCE_NOT_FOUND", "STORE_ABSENT"])
    for (const c of j.data.causes) expect(c.remedy).toMatch(/config file's folder/)
    // A path given on the command line: its remedy says the working directory reads it.
    const onLine = cli(["import", "--muse-root", "nope", "--index", path.join(dir, "j.db")], { cwd })
    const l = onLine.stdout.split("\n")
    const i = l.findIndex((x) => x.startsWith("    - muse-code: SOURCE_NOT_FOUND: "))
    expect(l[i]).toBe(`    - muse-code: SOURCE_NOT_FOUND: No such file or folder: ${path.join(cwd, "nope")}`)
    expect(l[i + 1]).toMatch(/^ {6}remedy: .*working directory/)
  })

  it("an invalid config file's remedy says where its relative paths are read from", () => {
    const dir = tempDir("si-trust-cfg-")
    const config = path.join(dir, "c.json")
    fs.writeFileSync(config, JSON.stringify({ agentsRoot: "a", bogus: 1 }))
    const r = cli(["import", "--config", config, "--index", path.join(dir, "i.db")])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/\n {2}remedy: .*relative paths in it are read from the config file's folder/)
  })
})
