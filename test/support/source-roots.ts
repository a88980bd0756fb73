/**
 * Source roots the index tests break in various ways (a source made
 * unreadable, one replaced by a fifo or a symlink: `test/index/
 * unreadable-source.test.ts`, `test/index/not-regular-source.test.ts`), each
 * in a new temporary folder.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { nativeSessionPath, writeNativeRoot } from "../../bench/generate/native.js"
import type { AccessPolicyShape } from "../../src/services/AccessPolicy.js"
import { fixturesDir, tempDir } from "./paths.js"

/** A Muse Code native root (`<dir>/muse/sessions`) of `count` generated sessions (the bench's generator), and their workspace `ws`. */
export const museNativeRoot = (count: number): { readonly dir: string; readonly root: string; readonly ws: string } => {
  const dir = tempDir()
  const root = path.join(dir, "muse", "sessions")
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws, { recursive: true })
  writeNativeRoot(root, count, ws)
  return { dir, root, ws }
}

/**
 * A temporary folder with a workspace (`ws`), a Muse Code root to write logs
 * under (`root`, not made) and an agents root holding an agent folder without
 * a transcript (checked, nothing found: coverage stays complete unless a Muse
 * Code source says otherwise), and the access policy over them.
 */
export const museWorkspace = () => {
  const dir = tempDir()
  const ws = path.join(dir, "ws")
  fs.mkdirSync(ws)
  const root = path.join(dir, "muse")
  fs.mkdirSync(path.join(dir, "agents", "no-transcript"), { recursive: true })
  const policy = { workspaceRoots: [ws], museRoots: [root], agentsRoot: path.join(dir, "agents") }
  return { dir, ws, root, policy }
}

/** A copy of the Muse agents fixture root (`<dir>/agents`), with the transcript of agent `cron-first` (`file`, session `sess-cron`). */
export const agentsFixtureCopy = (): { readonly dir: string; readonly root: string; readonly file: string; readonly session: string } => {
  const dir = tempDir()
  const root = path.join(dir, "agents")
  fs.cpSync(path.join(fixturesDir, "muse-agents", "agents"), root, { recursive: true })
  return { dir, root, file: path.join(root, "cron-first", "sessions", "cron-first.jsonl"), session: "sess-cron" }
}

/**
 * A copy of the Claude Code fixture log with usage (`3f2b8c1e-…`, 24 lines, in project `-home-alice-code-billing-api`
 * of a root `<dir>/cr`): its `file`, `session` id and the policy that authorizes it.
 */
export const claudeFixtureCopy = (): { readonly dir: string; readonly file: string; readonly session: string; readonly policy: Partial<AccessPolicyShape> } => {
  const dir = tempDir()
  const root = path.join(dir, "cr")
  const project = path.join(root, "-home-alice-code-billing-api")
  fs.mkdirSync(project, { recursive: true })
  const name = "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37.jsonl"
  const file = path.join(project, name)
  fs.copyFileSync(path.join(fixturesDir, "claude-code", "projects", "-home-alice-code-billing-api", name), file)
  return { dir, file, session: "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37", policy: { workspaceRoots: [dir], claudeRoot: root } }
}

/** Append a copy of the file's last line (a JSONL source that grew by one record). */
export const appendLastLine = (file: string): void => {
  const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n")
  fs.appendFileSync(file, lines[lines.length - 1] + "\n")
}

/**
 * Append the file's last Muse Code native record again under the next
 * `sequence` (a log that grew by one record: the same record under its own
 * sequence would be a repeat, skipped and counted, docs/providers.md "Providers").
 */
export const appendNextNativeRecord = (file: string): void => {
  const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n")
  const last = JSON.parse(lines[lines.length - 1]) as { sequence: number }
  fs.appendFileSync(file, JSON.stringify({ ...last, sequence: last.sequence + 1 }) + "\n")
}

/** A Claude Code user line of session `sid`, number `i`. */
export const claudeLine = (sid: string, i: number) =>
  JSON.stringify({
    type: "user",
    sessionId: sid,
    uuid: `${sid}-u${i}`,
    timestamp: `2025-01-01T00:00:0${i}Z`,
    message: { role: "user", content: `hello ${i} ${"x".repeat(200)}` }
  })

/** A root of one file-based provider with one log (`file`) to break; `append` grows it by a line. */
export interface BreakableSource {
  readonly policy: Partial<AccessPolicyShape>
  /** The log made unreadable. */
  readonly file: string
  /** Append a line to it (an import that must read it again). */
  readonly append: () => void
}

/** One {@link BreakableSource} a file-based provider (Muse Code native, Claude Code, Muse agents), each in a new temporary folder. */
export const breakableSources: ReadonlyArray<{ readonly provider: string; readonly setup: () => BreakableSource }> = [
  {
    provider: "muse-code",
    setup: (): BreakableSource => {
      const { root, ws } = museNativeRoot(5)
      const file = nativeSessionPath(root, 2)
      return { policy: { workspaceRoots: [ws], museRoots: [root] }, file, append: () => appendNextNativeRecord(file) }
    }
  },
  {
    provider: "claude-code",
    setup: (): BreakableSource => {
      const dir = tempDir()
      const root = path.join(dir, "cr")
      // Session 2 in a project folder of its own (the folder case makes only it unreadable).
      const folderOf = (i: number) => path.join(root, i === 2 ? "-q" : "-p")
      const sids = [0, 1, 2, 3, 4].map((i) => `3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b3${i}`)
      sids.forEach((sid, i) => {
        fs.mkdirSync(folderOf(i), { recursive: true })
        fs.writeFileSync(path.join(folderOf(i), `${sid}.jsonl`), [1, 2, 3, 4].map((k) => claudeLine(sid, k)).join("\n") + "\n")
      })
      const file = path.join(folderOf(2), `${sids[2]}.jsonl`)
      return { policy: { workspaceRoots: [dir], claudeRoot: root }, file, append: () => fs.appendFileSync(file, claudeLine(sids[2], 5) + "\n") }
    }
  },
  {
    provider: "muse-agents",
    setup: (): BreakableSource => {
      const { dir, file, root } = agentsFixtureCopy()
      return { policy: { workspaceRoots: [dir], agentsRoot: root }, file, append: () => appendLastLine(file) }
    }
  }
]
