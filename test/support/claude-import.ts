/**
 * Import a Claude Code root through the CLI (a new process), as the CLI tests
 * of the team index do: into `index` (a file or a `postgres://` URL), as
 * `machine` when given, with an empty agents root beside it; the run must
 * end complete (0) or partial (8).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "@effect/vitest"
import { tempDir } from "./paths.js"
import { cli } from "./run.js"

export const importClaude = (
  index: string,
  claudeRoot: string,
  agentsRoot: string,
  env: Record<string, string>,
  machine?: string
): void => {
  const r = cli(["import", "--index", index, ...(machine !== undefined ? ["--machine", machine] : []), "--claude-root", claudeRoot, "--agents-root", agentsRoot, "--json"], { env })
  expect([0, 8], r.stderr).toContain(r.code)
}

/**
 * A Claude Code session log of one-block turns (a user prompt, an assistant text response with usage 1/1), one line
 * each, chained by `parentUuid`: `texts` in order as `[role, text]`, the n-th line's uuid
 * `00000000-0000-4000-8000-<n as 12 hex digits>` and time `start` + n seconds. As the CLI tests of a session that
 * differs only in a secret write it.
 */
export const claudeTurnsLog = (sessionId: string, texts: ReadonlyArray<readonly [role: "user" | "assistant", text: string]>, start: string): string => {
  let parent: string | null = null
  return texts.map(([role, text], n) => {
    const uuid = `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`
    const base = {
      parentUuid: parent, isSidechain: false, userType: "external", cwd: "/srv/app", sessionId, version: "2.0.76",
      uuid, timestamp: new Date(Date.parse(start) + n * 1000).toISOString()
    }
    parent = uuid
    return JSON.stringify(role === "user"
      ? { ...base, type: "user", message: { role: "user", content: text } }
      : {
        ...base, type: "assistant", requestId: `req_${n}`,
        message: { model: "claude-sonnet-4-5-20250929", id: `msg_${n}`, type: "message", role: "assistant", content: [{ type: "text", text }], usage: { input_tokens: 1, output_tokens: 1 } }
      })
  }).join("\n") + "\n"
}

/** A Claude Code log's user line of session `sid` (`content`: a string or content blocks), in `/srv`. */
export const claudeUserLine = (sid: string, uuid: string, parent: string | null, at: string, content: unknown) =>
  ({ type: "user", parentUuid: parent, isSidechain: false, cwd: "/srv", sessionId: sid, uuid, timestamp: at, message: { role: "user", content } })

/** A Claude Code log's assistant line of session `sid` (model claude-haiku-4-5, one token each way), in `/srv`. */
export const claudeAssistantLine = (sid: string, uuid: string, parent: string, at: string, content: unknown) => ({
  type: "assistant", parentUuid: parent, isSidechain: false, cwd: "/srv", sessionId: sid, uuid, timestamp: at, requestId: `r-${uuid}-${sid}`,
  message: { role: "assistant", model: "claude-haiku-4-5", id: `m-${uuid}-${sid}`, content, usage: { input_tokens: 1, output_tokens: 1 } }
})

/**
 * A Claude Code projects root under `dir` (`<dir>/claude`, one project `-home-u-t`), a writer of a session's log there
 * (`lines`: JSON values, one a line) and the path of session `sid`'s log (`file`).
 */
export const claudeProject = (dir: string) => {
  const proj = path.join(dir, "claude", "-home-u-t")
  fs.mkdirSync(proj, { recursive: true })
  const file = (sid: string) => path.join(proj, `${sid}.jsonl`)
  const write = (sid: string, lines: ReadonlyArray<unknown>) =>
    fs.writeFileSync(file(sid), lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
  return { root: path.join(dir, "claude"), write, file }
}

/**
 * Claude Code sessions imported through the CLI into a new index, as the CLI tests of a few written sessions set it
 * up: a new temporary folder `dir` (named `prefix…`), the project {@link claudeProject} of `dir` holding each session
 * of `sessions` (session id to its log's lines, e.g. {@link claudeUserLine} and {@link claudeAssistantLine}), the
 * index `<dir>/index.db`, the folder's own XDG config and data homes (`env`), imported by {@link importClaude} with an
 * absent agents root. `run(args)` runs the CLI with `env` (`args` as given: no `--index` added) and returns its
 * stdout, the test failing (with its stderr) unless it exits 0.
 */
export const importedClaudeIndex = (prefix: string, sessions: Readonly<Record<string, ReadonlyArray<unknown>>>) => {
  const dir = tempDir(prefix)
  const project = claudeProject(dir)
  for (const [sid, lines] of Object.entries(sessions)) project.write(sid, lines)
  const index = path.join(dir, "index.db")
  const env: Record<string, string> = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
  importClaude(index, project.root, path.join(dir, "none"), env)
  const run = (args: ReadonlyArray<string>): string => {
    const r = cli(args, { env })
    expect(r.code, r.stderr).toBe(0)
    return r.stdout
  }
  return { dir, project, index, env, run }
}

/**
 * A Claude Code log of session `sid` that states each of `texts` in every place a session holds text, as the CLI tests
 * of redaction write it: for the i-th text, 4 lines a minute apart from 2026-12-01T00:00:00Z (a second each): the
 * user's prompt `u<i>`, a Bash tool call `a<i>` whose command is the text (`toolu_<i>`), its tool result `t<i>`, and
 * an answer `r<i>` reading `Done: <text>`; chained by `parentUuid`.
 */
export const claudeEchoLog = (sid: string, texts: ReadonlyArray<string>): ReadonlyArray<unknown> => {
  const at = (n: number) => `2026-12-01T00:${String(Math.floor(n / 60)).padStart(2, "0")}:${String(n % 60).padStart(2, "0")}Z`
  return texts.flatMap((text, i) => [
    claudeUserLine(sid, `u${i}`, i === 0 ? null : `r${i - 1}`, at(4 * i), text),
    claudeAssistantLine(sid, `a${i}`, `u${i}`, at(4 * i + 1), [{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: text, description: "run it" } }]),
    claudeUserLine(sid, `t${i}`, `a${i}`, at(4 * i + 2), [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: text }]),
    claudeAssistantLine(sid, `r${i}`, `t${i}`, at(4 * i + 3), [{ type: "text", text: `Done: ${text}` }])
  ])
}

/**
 * A Claude Code log of session `sid` of `turns` turns, 2 events a turn (a user line `u<i>`, then an assistant response
 * `a<i>` of claude-sonnet-4-5 with usage 100 in / 10 out), in `/home/dev/proj`; turn 0's prompt is
 * `please <word> the build`, the others' `question <i>`, the answers `answer <i>`; `at(i, half)` is the time of turn
 * `i`'s user line (half 0) and response (half 1).
 */
export const claudeUsageLog = (sid: string, turns: number, word: string, at: (turn: number, half: 0 | 1) => string): string =>
  Array.from({ length: turns }, (_, i) => [
    JSON.stringify({
      type: "user",
      sessionId: sid,
      uuid: `u${i}`,
      parentUuid: i === 0 ? null : `a${i - 1}`,
      timestamp: at(i, 0),
      cwd: "/home/dev/proj",
      message: { role: "user", content: i === 0 ? `please ${word} the build` : `question ${i}` }
    }),
    JSON.stringify({
      type: "assistant",
      sessionId: sid,
      uuid: `a${i}`,
      parentUuid: `u${i}`,
      timestamp: at(i, 1),
      cwd: "/home/dev/proj",
      requestId: `req_${i}`,
      message: {
        id: `msg_${i}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: `answer ${i}` }],
        usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
      }
    })
  ].join("\n")).join("\n") + "\n"

/**
 * A Claude Code project folder `<dir>/projects/-tmp-p` holding one session log `<sessionId>.jsonl` of `lines` (JSON
 * texts, one a line, ending in a newline); the projects root (what `--claude-root` takes).
 */
export const claudeProjectRoot = (dir: string, sessionId: string, lines: ReadonlyArray<string>): string => {
  const project = path.join(dir, "projects", "-tmp-p")
  fs.mkdirSync(project, { recursive: true })
  fs.writeFileSync(path.join(project, `${sessionId}.jsonl`), lines.join("\n") + "\n")
  return path.join(dir, "projects")
}
