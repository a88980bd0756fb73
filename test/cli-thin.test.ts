/**
 * The thin CLI (issue 12): enumerations are parsed as choices by the command
 * line (a wrong value is a command line that does not parse: INVALID_ARGUMENT,
 * exit 2, in the README's format, naming the values it accepts), and the exit
 * code comes from how the command ended.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { writeAgentsTranscript } from "../bench/generate/agents.js"
import { fixturesDir, repoRoot, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

/** The provider ids, as the CLI lists them. */
const providerIds = (): Array<string> => JSON.parse(cli(["providers", "--json"]).stdout).data.map((d: any) => d.provider)

/** The locator classes, as the CLI lists them (every provider's, in registry order). */
const LOCATOR_CLASSES: Array<string> = JSON.parse(cli(["providers", "--json"]).stdout).data.flatMap((d: any) => d.locatorClasses)

/** How a usage line shows an option's choices: inline when they fit (40 characters, src/cli/help.ts), else by its placeholder. */
const usageOfChoices = (option: string, choices: ReadonlyArray<string>): string =>
  choices.join("|").length <= 40 ? `[--${option} ${choices.join("|")}]` : `[--${option} ${option.split("-").at(-1)!.toUpperCase()}]`

describe("enumerations are choices of the command line", () => {
  const file = path.join(fixturesDir, "muse-code", "export", "orderly.json")
  /** [command, arguments, the values it accepts, the problem's start]; `index`: an index file that must not come to exist. */
  const cases = (providers: Array<string>, index: string): Array<[string, Array<string>, Array<string>, string]> => [
    ["inspect", ["inspect", "no-such-provider", file], providers, "<provider>: 'no-such-provider' is not one of "],
    ["stream", ["stream", "--limit", "2", "--include-subagents", "Muse-Code", file], providers, "<provider>: 'Muse-Code' is not one of "],
    ["discover", ["discover", "--agent", "muse-code", "claude"], providers, "<provider>: 'claude' is not one of "],
    ["sessions", ["sessions", "--provider", "muse", "--index", index], providers, "--provider: 'muse' is not one of "],
    ["inspect", ["inspect", "muse-code", file, "--locator-class=export"], LOCATOR_CLASSES, "--locator-class: 'export' is not one of "],
    ["show", ["show", "x", "--format", "ndjson", "--index", index], ["events", "transcript", "markdown"], "--format: 'ndjson' is not one of "],
    ["export", ["export", "x", "--format", "markdown", "--index", index], ["atif", "ndjson"], "--format: 'markdown' is not one of "],
    ["transcript", ["transcript", "muse-agents", file, "--format", "html"], ["text", "markdown", "json"], "--format: 'html' is not one of "]
  ]

  it("a value outside the choices is INVALID_ARGUMENT (exit 2) naming every accepted value, remedy --help, before anything is read", () => {
    const providers = providerIds()
    expect(providers.length).toBeGreaterThanOrEqual(3)
    const dir = tempDir("si-thin-")
    const env = { HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir }
    for (const [command, args, accepted, problemStart] of cases(providers, path.join(dir, "i.db"))) {
      const r = cli(args, { env })
      expect(r.code, args.join(" ")).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr, args.join(" ")).toMatch(/^session-ingest: INVALID_ARGUMENT: [^\n]+\n {2}remedy: [^\n]+\n$/)
      expect(r.stderr).toContain(`  remedy: Run \`session-ingest ${command} --help\`.\n`)
      const problem = r.stderr.split("\n")[0]
      // The option (or argument), the value given, and every value it takes.
      expect(problem, args.join(" ")).toBe(`session-ingest: INVALID_ARGUMENT: ${problemStart}${accepted.join(", ")}.`)
      const j = cli([...args, "--json"], { env })
      expect(j.code).toBe(2)
      expect(j.stderr).toBe("")
      const envelope = JSON.parse(j.stdout)
      expect(envelope).toMatchObject({ contractVersion: "1.3.0", command, status: "error", data: null, error: { code: "INVALID_ARGUMENT" } })
      expect(Object.keys(envelope.error).sort()).toEqual(["code", "message", "remediation"])
    }
    // Nothing was created: no index, no state.
    expect(fs.readdirSync(dir)).toEqual([])
  })

  it("usage lines show the choices of an option (the long list of locator classes by its name)", () => {
    const usage = (c: string) => cli([c, "--help"]).stdout.split("\n\n")[1].replace(/\s+/g, " ").trim()
    expect(usage("sessions")).toContain(usageOfChoices("provider", providerIds()))
    expect(usage("inspect")).toContain("[--locator-class CLASS]")
    for (const c of LOCATOR_CLASSES) expect(cli(["inspect", "--help"]).stdout).toContain(c)
    // A positional choice keeps its name; the values are in its description.
    expect(usage("stream")).toMatch(/ <provider> \[<file>\]$/)
  })

  it("a valid choice runs as before", () => {
    const file = path.join(fixturesDir, "muse-code", "export", "orderly.json")
    const r = cli(["inspect", "muse-code", file, "--locator-class", "manual-export", "--json"])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).data.locatorClass).toBe("manual-export")
  })
})

describe("the exit code comes from how the command ended", () => {
  it("transcript --format json answers an error as the envelope (the parsed options pick JSON, not only --json)", () => {
    const file = path.join(fixturesDir, "muse-code", "export", "orderly.json")
    const r = cli(["transcript", "muse-code", file, "--format", "json"])
    expect(r.code).toBe(3)
    expect(r.stderr).toBe("")
    expect(JSON.parse(r.stdout)).toMatchObject({ command: "transcript", status: "error", error: { code: "UNSUPPORTED_OPERATION" } })
    const text = cli(["transcript", "muse-code", file])
    expect(text.code).toBe(3)
    expect(text.stdout).toBe("")
    expect(text.stderr).toMatch(/^session-ingest: UNSUPPORTED_OPERATION: [^\n]+\n {2}remedy: [^\n]+\n$/)
  })

  it("--json false is text: an error on stderr, no envelope", () => {
    const r = cli(["inspect", "muse-code", "no-such-file.json", "--json", "false"])
    expect(r.code).toBe(4)
    expect(r.stdout).toBe("")
    expect(r.stderr).toMatch(/^session-ingest: SOURCE_NOT_FOUND: /)
  })

  it("interrupted (SIGINT) while stdout is full: exit 130, one line saying so, no stack trace", async () => {
    const root = tempDir("si-thin-int-")
    const { path: transcript } = writeAgentsTranscript(root, "big", 3000)
    const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), "stream", "muse-agents", transcript, "--agents-root", root], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (d) => (stderr += d))
    // Take the first bytes, then stop reading: the pipe fills and the CLI waits for it to drain.
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
    child.stdout.pause()
    await new Promise((resolve) => setTimeout(resolve, 500))
    child.kill("SIGINT")
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)))
    expect(code).toBe(130)
    expect(stderr).toBe(INTERRUPTED_LINES)
  }, 30_000)

  it("interrupted under --json: stdout still answers one error envelope (INTERRUPTED), exit 130", async () => {
    const root = tempDir("si-thin-int-")
    writeAgentsTranscript(root, "big", 20000)
    const index = path.join(root, "i.db")
    const child = spawn(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), "import", "--agents-root", root, "--index", index, "--workspace", root, "--json"], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    child.stdout.on("data", (d) => (stdout += d))
    // Interrupt once the import has begun writing its index.
    for (let i = 0; i < 200 && !fs.existsSync(index); i++) await new Promise((resolve) => setTimeout(resolve, 25))
    child.kill("SIGINT")
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)))
    expect(code).toBe(130)
    const lines = stdout.trimEnd().split("\n")
    expect(lines.length).toBe(1)
    expect(JSON.parse(lines[0])).toMatchObject({
      contractVersion: "1.3.0",
      command: "import",
      status: "error",
      data: null,
      error: { code: "INTERRUPTED" }
    })
  }, 60_000)

  /**
   * Run `import` with SIGINT raised while the CLI is still loading: Node
   * preloads `bin/early-signals.mjs` (as the CLI's first import does) and then
   * a module that signals its own process, all before the CLI's entry and
   * long before its runtime takes the signals over. Deterministic, where a
   * timed `kill` races Node's start-up on a loaded machine (a signal before
   * Node runs any JavaScript takes the default action in every Node program).
   */
  const interruptWhileLoading = async (json: boolean) => {
    const root = tempDir("si-thin-early-")
    writeAgentsTranscript(root, "big", 2000)
    const killSelf = path.join(root, "kill-self.mjs")
    fs.writeFileSync(killSelf, 'process.kill(process.pid, "SIGINT")\n')
    const args = ["import", "--agents-root", root, "--index", path.join(root, "i.db"), "--workspace", root, ...(json ? ["--json"] : [])]
    const early = pathToFileURL(path.join(repoRoot, "bin", "early-signals.mjs")).href
    const child = spawn(process.execPath, ["--import", early, "--import", pathToFileURL(killSelf).href, path.join(repoRoot, "bin", "session-ingest.mjs"), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, XDG_CONFIG_HOME: path.join(root, "no-xdg") }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on("close", (c, sig) => resolve([c, sig])))
    return { code, signal, stdout, stderr, imported: fs.existsSync(path.join(root, "i.db")) }
  }

  it("SIGINT while the CLI loads, under --json: exit 130, one INTERRUPTED envelope and the interrupted lines; nothing imported", async () => {
    const r = await interruptWhileLoading(true)
    expect([r.code, r.signal]).toEqual([130, null])
    const lines = r.stdout.trimEnd().split("\n")
    expect(lines.length, r.stdout).toBe(1)
    expect(JSON.parse(lines[0])).toMatchObject({
      contractVersion: "1.3.0",
      command: "import",
      status: "error",
      data: null,
      error: { code: "INTERRUPTED", message: "Interrupted; whatever was committed is consistent.", remediation: "Run the same command again to finish." }
    })
    expect(r.stderr).toBe(INTERRUPTED_LINES)
    expect(r.imported).toBe(false)
  }, 30_000)

  it("SIGINT while the CLI loads: exit 130, the interrupted lines on stderr", async () => {
    const r = await interruptWhileLoading(false)
    expect([r.code, r.signal]).toEqual([130, null])
    expect(r.stdout).toBe("")
    expect(r.stderr).toBe(INTERRUPTED_LINES)
  }, 30_000)
})

/** The README's two lines for an interrupted run. */
const INTERRUPTED_LINES =
  "session-ingest: INTERRUPTED: Interrupted; whatever was committed is consistent.\n  remedy: Run the same command again to finish.\n"
