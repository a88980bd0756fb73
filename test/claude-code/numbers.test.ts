/**
 * Numbers JSON does not carry exactly (`1e400`, `-0`, `1E-400`, integers past
 * 2^53, 30 digits) in a Claude Code session: the events keep what
 * `JSON.parse` made of them, and each file of the session (the session file,
 * each subagent file) with such numbers gets one `NUMBER_NOT_EXACT`
 * diagnostic, counted, with the first and its line, through `inspect`,
 * `stream` (`onWarning`, stderr) and the import report, as Muse Code native
 * logs do (`test/muse-code/native-numbers.test.ts`). Counted: the numbers of
 * the lines that yield events.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Diagnostic } from "../../src/domain/model.js"
import { cli } from "../support/run.js"
import { collect, tempDir, withAdapter } from "./helpers.js"

const SID = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d"
const AGENT = "a0123456789abcdef"
const PROJECT = "-home-alice-numbers"
const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

/** A JSON line with `@NAME` string placeholders replaced by raw number tokens. */
const raw = (o: unknown, tokens: Record<string, string> = {}): string => {
  let s = JSON.stringify(o)
  for (const [k, v] of Object.entries(tokens)) s = s.replace(`"@${k}"`, v)
  return s + "\n"
}

const base = (uuid: string, parentUuid: string | null, sidechain = false) => ({
  parentUuid,
  isSidechain: sidechain,
  userType: "external",
  cwd: "/home/alice/numbers",
  sessionId: SID,
  version: "2.1.14",
  uuid,
  timestamp: "2026-01-14T15:02:11.019Z"
})

/**
 * Session file: 1 a prompt that only mentions such numbers in its text (0);
 * 2 a tool call whose input holds `1e400` and `-0`, its usage 30 digits (3);
 * 3 the call's result, text only (0); 4 a `summary` (no event) with `1e400` (0).
 * Subagent file: 1 its prompt; 2 an answer whose usage holds `1E-400` (1).
 */
const writeSession = (root: string) => {
  const main = [
    raw({ ...base("u1", null), type: "user", message: { role: "user", content: "Is 1e400 or -0 or \":1e400\" a number?" } }),
    raw({
      ...base("a1", "u1"),
      type: "assistant",
      requestId: "req_1",
      message: {
        model: "claude-sonnet-4-5-20250929",
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo", n: "@BIG", m: ["@NEG", 1] } }],
        usage: { input_tokens: 3, output_tokens: "@LONG" }
      }
    }, { BIG: "1e400", NEG: "-0", LONG: "123456789012345678901234567890" }),
    raw({ ...base("u2", "a1"), type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "1e400" }] } }),
    raw({ type: "summary", summary: "Numbers", leafUuid: "u2", n: "@BIG" }, { BIG: "1e400" })
  ]
  const sub = [
    raw({ ...base("s1", null, true), agentId: AGENT, type: "user", message: { role: "user", content: "Count" } }),
    raw({
      ...base("s2", "s1", true),
      agentId: AGENT,
      type: "assistant",
      requestId: "req_2",
      message: { model: "claude-sonnet-4-5-20250929", id: "msg_2", type: "message", role: "assistant", content: [{ type: "text", text: "done" }], usage: { input_tokens: "@TINY", output_tokens: 2 } }
    }, { TINY: "1E-400" })
  ]
  const file = path.join(root, PROJECT, `${SID}.jsonl`)
  const subFile = path.join(root, PROJECT, SID, "subagents", `agent-${AGENT}.jsonl`)
  fs.mkdirSync(path.dirname(subFile), { recursive: true })
  fs.writeFileSync(file, main.join(""))
  fs.writeFileSync(subFile, sub.join(""))
  return { file, subFile, secondLineOffset: main[0].length, subSecondLineOffset: sub[0].length }
}

const locator = (file: string) => ({ locatorClass: "claude-code-session-log" as const, path: file })
const numbersOf = (ds: ReadonlyArray<Diagnostic>) => ds.filter((d) => d.code === "NUMBER_NOT_EXACT")

describe("a Claude Code session with numbers JSON does not carry exactly", () => {
  it.effect("inspect gives one NUMBER_NOT_EXACT per file (the session file, each subagent file), counted, naming the first and its line", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const w = writeSession(root)
      const i = yield* withAdapter(root, (a) => a.inspect(locator(w.file)))
      const d = numbersOf(i.diagnostics)
      expect(d.map((x) => [x.details?.count, x.details?.first])).toEqual([[3, "1e400"], [1, "1E-400"]])
      expect(d[0].message).toContain(w.file)
      expect(d[0].message).toContain(`line 2 (byte ${w.secondLineOffset})`)
      expect(d[1].message).toContain(w.subFile)
      expect(d[1].message).toContain(`line 2 (byte ${w.subSecondLineOffset})`)
      expect(d[0].remediation).toContain("rawReference")
    }))

  it.effect("stream reports each file's warning to onWarning once, after that file's events; the events are unchanged", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const w = writeSession(root)
      const log: Array<string> = []
      const events = yield* withAdapter(root, (a) =>
        collect(a.stream(locator(w.file), {
          includeSubagents: true,
          onWarning: (d) => log.push(`warning ${d.details?.count}`)
        }).pipe(Stream.tap((e) => Effect.sync(() => log.push(e.sessionId))))))
      expect(log).toEqual([SID, SID, SID, "warning 3", `agent-${AGENT}`, `agent-${AGENT}`, "warning 1"])
      const call = events.find((e) => e.kind === "tool-call")!
      expect(call.toolInput).toEqual({ command: "echo", n: Infinity, m: [-0, 1] })
      const plain = yield* withAdapter(root, (a) => collect(a.stream(locator(w.file), { includeSubagents: true })))
      expect(JSON.stringify(plain)).toBe(JSON.stringify(events))
      // Without subagents: the session file's warning only.
      const own: Array<Diagnostic> = []
      yield* withAdapter(root, (a) => Stream.runDrain(a.stream(locator(w.file), { onWarning: (d) => own.push(d) })))
      expect(own.map((d) => d.details?.count)).toEqual([3])
    }))

  it.effect("a session of exact numbers (and the fixtures) reports nothing", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const w = writeSession(root)
      for (const f of [w.file, w.subFile]) {
        fs.writeFileSync(f, fs.readFileSync(f, "utf8").replace(":1e400,", ":1e300,").replace("[-0,", "[0,").replace("123456789012345678901234567890", "12").replace("1E-400", "1E-300"))
      }
      const i = yield* withAdapter(root, (a) => a.inspect(locator(w.file)))
      expect(numbersOf(i.diagnostics)).toEqual([])
      const warnings: Array<Diagnostic> = []
      yield* withAdapter(root, (a) => Stream.runDrain(a.stream(locator(w.file), { includeSubagents: true, onWarning: (d) => warnings.push(d) })))
      expect(warnings).toEqual([])
    }))

  it("CLI: stream writes one warning per file on stderr (exit 0, --lean too); inspect --json and import --json report them", () => {
    const root = tempDir()
    const w = writeSession(root)
    const before = fs.readFileSync(w.file, "utf8")
    for (const extra of [[], ["--lean"]]) {
      const r = cli(["stream", "claude-code", w.file, "--claude-root", root, ...extra], { env })
      expect(r.code).toBe(0)
      expect(r.stderr.match(/warning: NUMBER_NOT_EXACT: \d+ number\(s\)/g)).toEqual(["warning: NUMBER_NOT_EXACT: 3 number(s)"])
      const all = cli(["stream", "claude-code", w.file, "--claude-root", root, "--include-subagents", ...extra], { env })
      expect(all.code).toBe(0)
      expect(all.stderr.match(/warning: NUMBER_NOT_EXACT: \d+ number\(s\)/g)).toEqual(["warning: NUMBER_NOT_EXACT: 3 number(s)", "warning: NUMBER_NOT_EXACT: 1 number(s)"])
      expect(all.stdout.length).toBeGreaterThan(r.stdout.length)
    }
    const i = cli(["inspect", "claude-code", w.file, "--claude-root", root, "--json"], { env })
    expect(i.code).toBe(0)
    expect(numbersOf((JSON.parse(i.stdout) as { data: { diagnostics: Array<Diagnostic> } }).data.diagnostics).map((d) => d.details?.count)).toEqual([3, 1])
    const dir = tempDir()
    const imp = cli(["import", "--json", "--index", path.join(dir, "index.db"), "--claude-root", root, "--agents-root", path.join(dir, "none"), "--muse-root", path.join(dir, "none"), "--workspace", dir], { env })
    expect([0, 8]).toContain(imp.code)
    const report = JSON.parse(imp.stdout.trim().split("\n").pop()!) as { data: { providers: Array<{ provider: string; diagnostics: Array<Diagnostic> }> } }
    const claude = report.data.providers.find((p) => p.provider === "claude-code")!
    expect(numbersOf(claude.diagnostics).map((d) => [d.details?.count, d.details?.first])).toEqual([[3, "1e400"], [1, "1E-400"]])
    expect(fs.readFileSync(w.file, "utf8")).toBe(before)
  })

  it("import: NUMBER_NOT_EXACT is reported but leaves coverage complete (every event is in; the exact text stays in the source), also when unchanged", () => {
    const root = tempDir()
    writeSession(root)
    const dir = tempDir()
    const empty = path.join(dir, "empty")
    fs.mkdirSync(empty)
    const run = () => cli(["import", "--json", "--index", path.join(dir, "index.db"), "--claude-root", root, "--agents-root", empty, "--agentmux-root", empty, "--workspace", dir], { env: { ...env, HOME: empty } })
    for (const round of ["first", "unchanged"]) {
      const imp = run()
      const report = JSON.parse(imp.stdout.trim().split("\n").pop()!) as {
        data: { coverage: string; providers: Array<{ provider: string; coverage: string; diagnostics: Array<Diagnostic> }>; partialCauses?: Array<{ code: string }> }
      }
      const claude = report.data.providers.find((p) => p.provider === "claude-code")!
      expect(numbersOf(claude.diagnostics).map((d) => d.details?.count), round).toEqual([3, 1])
      expect(claude.coverage, round).toBe("complete")
      expect((report.data as unknown as { remediations: Array<string> }).remediations.filter((r) => r.includes("NUMBER_NOT_EXACT")), round).toEqual([])
      // (the run's own coverage is partial here only for the empty agents root, named as its cause)
      expect((report.data as unknown as { remediations: Array<string> }).remediations.map((r) => r.split(":")[0]), round).toEqual(["muse-agents"])
    }
  })
})
