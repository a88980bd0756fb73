/**
 * A Muse Code session is titled by its first prompt (closing32 item 4; docs/providers.md, "Muse Code session titles"),
 * as Claude Code, Muse agents and AgentMux sessions are: the `command.prompt` of its first
 * `runtime.command_intake.received` record whose command is a submitted turn (`turn_submit`) and is not blank, white
 * space runs (newlines, tabs) made one space, trimmed, cut to 80 characters the last of which is `…`. Not a slash
 * command (another command kind), not a runtime fact (`runtime.session`'s run start), not a tool output, not a nested
 * subagent log's prompt, not another stream of an export. Discovery reads no prompt, so the title comes with the read
 * (`StreamOptions.onTitle`); a log that grew is resumed after its cursor and keeps its title (SQLite, PostgreSQL,
 * push); a log imported before its first prompt is titled once the prompt is appended; a log rewritten takes its new
 * first prompt's title. `sessions`, `show`, the replay, ATIF and MCP's `list_sessions` show it, redacted in the
 * shareable outputs as every title is (docs/redaction.md).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { freshDatabase } from "../support/pg.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { answerOf, type Connected, connect } from "../mcp/helpers.js"
import { bound, end, jsonl, metadata, opened, record } from "./native-lines.js"

const TOKEN = "ghp_" + "Q7x".repeat(12)
/** S-A's first prompt: longer than a title, with a newline, a tab and runs of spaces, and a token inside the cut. */
const LONG = `  Deploy the billing\nservice\twith token ${TOKEN} then   check the logs of every region, carefully please  `
/** The title the rule gives of LONG, worked out by hand: one space per white space run, trimmed, 79 characters and `…`. */
const LONG_TITLE = `Deploy the billing service with token ${TOKEN} then check the logs`.slice(0, 79) + "\u2026"
/** S-B's first prompt, on two lines with a run of spaces: one line in the title. */
const SHORT_TITLE = "fix the flaky test in the auth suite"

const A = "aaaaaaaa-0000-4000-8000-000000000001"
const B = "bbbbbbbb-0000-4000-8000-000000000002"
const C = "cccccccc-0000-4000-8000-000000000003"
const CHILD = "dddddddd-0000-4000-8000-000000000004"

/** A command Muse Code received: a submitted turn (`turn_submit`) or another command kind. */
const intake = (seq: number, prompt: string, stream: string, kind = "turn_submit") =>
  record(seq, "runtime.command_intake.received", { kind: "command_intake", record: { kind: "received", command_id: `c${seq}`, command: { kind, prompt } } }, stream)
/** A run's start: a runtime fact that restates a prompt, never the title's. */
const started = (seq: number, prompt: string, stream: string) => record(seq, "runtime.session", { event: { kind: "started", prompt }, kind: "run" }, stream)
const output = (seq: number, text: string, stream: string) =>
  record(seq, "tool_batch.effect.output", { kind: "tool_output", pending_action_id: "a", record: { stream: "stdout", text, truncated: false } }, stream)

const logOf = (root: string, id: string) => nodePath.join(root, "2026", "11", "02", id, "session.jsonl")

/** A sessions root (S-A, S-B with a nested subagent log, S-C without a prompt) and an export, naming workspace `ws`. */
const layOut = (dir: string) => {
  const ws = nodePath.join(dir, "ws")
  const root = nodePath.join(dir, "muse")
  fs.mkdirSync(ws, { recursive: true })
  const write = (p: string, lines: ReadonlyArray<unknown>) => {
    fs.mkdirSync(nodePath.dirname(p), { recursive: true })
    fs.writeFileSync(p, jsonl(lines))
  }
  write(logOf(root, A), [
    metadata(1, ws, A),
    opened(2, A),
    // a slash command, a blank turn, a tool output naming a prompt: none is the person's first prompt
    intake(3, "/model spark", A, "slash_command"),
    intake(4, "  \n\t ", A),
    output(5, "turn_submit prompt: not a prompt", A),
    intake(6, LONG, A),
    started(7, LONG, A),
    intake(8, "and the second prompt", A),
    end(9, A)
  ])
  write(logOf(root, B), [
    metadata(1, ws, B),
    started(2, "a run started before any prompt", B),
    intake(3, "fix the flaky test\nin the auth   suite", B),
    bound(4, CHILD, "spawn-1", B)
  ])
  write(nodePath.join(nodePath.dirname(logOf(root, B)), "subagent", CHILD, "session.jsonl"), [
    metadata(1, ws, CHILD),
    intake(2, "the subagent's own task", CHILD),
    end(3, CHILD)
  ])
  write(logOf(root, C), [metadata(1, ws, C), opened(2, C)])
  // An export: its session E-1 (sessions[0]) and another stream E-2, whose prompt comes first.
  const envelope = (sequence: number, stream: string, prompt: string) => ({
    kind: "record",
    envelope: { ...intake(sequence, prompt, stream), recorded_at: "2026-11-02T10:00:00Z" }
  })
  const exportFile = nodePath.join(ws, "trajectory.json")
  fs.writeFileSync(exportFile, JSON.stringify({
    export_schema_version: 1,
    session_terminated_abnormally: false,
    sessions: [{ session_id: "E-1" }],
    events: [envelope(0, "E-2", "another stream's prompt"), envelope(1, "E-1", "summarize the export"), envelope(2, "E-1", "then this")]
  }))
  return { ws, root, exportFile }
}

/** Append lines to a log. */
const append = (p: string, lines: ReadonlyArray<unknown>) => fs.appendFileSync(p, jsonl(lines))

describe("Muse Code sessions are titled by their first prompt", () => {
  let dir = ""
  let laid: ReturnType<typeof layOut>
  let index = ""
  let env: Record<string, string> = {}
  const servers: Array<Connected> = []
  const importArgs = () => ["--muse-root", laid.root, "--workspace", laid.ws, laid.exportFile, "--json"]
  const importInto = (at: string) => {
    const r = cli(["import", "--index", at, ...importArgs()], { env })
    expect([0, 8], r.stderr).toContain(r.code)
    return JSON.parse(r.stdout).data
  }
  const titles = (at: string): Record<string, string | null> => {
    const r = cli(["sessions", "--index", at, "--json"], { env })
    expect(r.code, r.stderr).toBe(0)
    return Object.fromEntries(JSON.parse(r.stdout).data.map((s: { sessionId: string; title: string | null }) => [s.sessionId, s.title]))
  }
  const FIRST = { [A]: LONG_TITLE, [B]: SHORT_TITLE, [CHILD]: null, [C]: null, "E-1": "summarize the export", "E-2": null }

  beforeAll(() => {
    dir = tempDir("si-mc-title-")
    laid = layOut(dir)
    env = { HOME: nodePath.join(dir, "home"), XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    index = nodePath.join(dir, "index.db")
    importInto(index)
  })
  afterAll(async () => {
    for (const s of servers) await s.close()
  })

  it("sessions: the first prompt's title, clipped and on one line; no title for a subagent, another stream or a log without a prompt", () => {
    expect(LONG_TITLE.length).toBe(80)
    expect(titles(index)).toEqual(FIRST)
  })

  it("show, the replay and ATIF show it, redacted", () => {
    const md = cli(["show", A, "--index", index, "--format", "markdown"], { env })
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).toContain("Deploy the billing service with token [REDACTED:github-token]")
    expect(md.stdout).not.toContain(TOKEN.slice(0, 12))
    const out = nodePath.join(dir, "a.html")
    const replay = cli(["replay", A, "--index", index, "--out", out], { env })
    expect(replay.code, replay.stderr).toBe(0)
    const html = fs.readFileSync(out, "utf8")
    expect(html).toContain("Deploy the billing service with token [REDACTED:github-token]")
    expect(html).not.toContain(TOKEN.slice(0, 12))
    const atif = cli(["export", B, "--index", index, "--format", "atif"], { env })
    expect(atif.code, atif.stderr).toBe(0)
    expect(JSON.stringify(JSON.parse(atif.stdout))).toContain(`"title":"${SHORT_TITLE}"`)
    const atifA = cli(["export", A, "--index", index, "--format", "atif"], { env })
    expect(atifA.code, atifA.stderr).toBe(0)
    expect(atifA.stdout).toContain("Deploy the billing service with token [REDACTED:github-token]")
    expect(atifA.stdout).not.toContain(TOKEN.slice(0, 12))
  })

  it("MCP list_sessions lists it (redacted)", async () => {
    const server = await connect(["--index", index], env)
    servers.push(server)
    const listed = answerOf(await server.client.callTool({ name: "list_sessions", arguments: {} })) as { sessions: Array<{ id: string; title: string | null }> }
    const byId = Object.fromEntries(listed.sessions.map((s) => [s.id, s.title]))
    expect(byId[B]).toBe(SHORT_TITLE)
    expect(byId[C]).toBeNull()
    expect(byId[A]).toMatch(/^Deploy the billing service with token \[REDACTED:github-token\]/)
    expect(byId[A]).not.toContain(TOKEN.slice(0, 12))
  })

  it("a log that grew keeps its title (the import resumes after its cursor); one imported before its first prompt takes it; a push copies them", async () => {
    append(logOf(laid.root, B), [intake(5, "a third prompt, appended", B), output(6, "ok", B)])
    append(logOf(laid.root, C), [intake(3, "the late first prompt", C), end(4, C)])
    const again = importInto(index)
    expect(again.eventsAdded).toBe(4)
    expect(again.sources.accepted).toBe(2)
    const grown = { ...FIRST, [C]: "the late first prompt" }
    expect(titles(index)).toEqual(grown)
    // and again, with nothing appended to C: its title, found after the cursor the last time, is kept
    append(logOf(laid.root, C), [output(5, "after the end", C)])
    importInto(index)
    expect(titles(index)).toEqual(grown)

    const url = await freshDatabase()
    expect(cli(["index", "migrate", "--index", url, "--json"], { env }).code).toBe(0)
    const pushed = cli(["push", "--from", index, "--to", url], { env })
    expect(pushed.code, pushed.stderr).toBe(0)
    expect(titles(url)).toEqual(grown)
  })

  it("on PostgreSQL: a first import titles, a resumed one keeps the title", async () => {
    const other = layOut(tempDir("si-mc-title-pg-"))
    const url = await freshDatabase()
    expect(cli(["index", "migrate", "--index", url, "--json"], { env }).code).toBe(0)
    const args = ["--muse-root", other.root, "--workspace", other.ws, other.exportFile, "--json"]
    expect([0, 8]).toContain(cli(["import", "--index", url, ...args], { env }).code)
    expect(titles(url)).toEqual(FIRST)
    append(logOf(other.root, A), [intake(10, "a prompt after the end", A)])
    append(logOf(other.root, B), [intake(5, "a third prompt, appended", B)])
    const r = cli(["import", "--index", url, ...args], { env })
    expect([0, 8], r.stderr).toContain(r.code)
    expect(JSON.parse(r.stdout).data.eventsAdded).toBe(2)
    expect(titles(url)).toEqual(FIRST)
  })

  it("a log rewritten (a new generation) takes its new first prompt's title", () => {
    fs.writeFileSync(logOf(laid.root, A), jsonl([metadata(1, laid.ws, A), intake(2, "a brand new\nfirst prompt", A), end(3, A)]))
    const r = importInto(index)
    expect(r.sources.accepted).toBe(1)
    expect(titles(index)[A]).toBe("a brand new first prompt")
    // rewritten again without a prompt: untitled
    fs.writeFileSync(logOf(laid.root, A), jsonl([metadata(1, laid.ws, A), opened(2, A), output(3, "nothing asked", A), end(4, A)]))
    importInto(index)
    expect(titles(index)[A]).toBeNull()
  })
})
