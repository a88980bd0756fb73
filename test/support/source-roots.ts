/**
 * Source roots the index tests break in various ways (a source made
 * unreadable, one replaced by a fifo or a symlink: `test/index/
 * unreadable-source.test.ts`, `test/index/not-regular-source.test.ts`), each
 * in a new temporary folder.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { writeNativeRoot } from "../../bench/generate/native.js"
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

/** A copy of the Muse agents fixture root (`<dir>/agents`), with the transcript of agent `cron-first` (`file`, session `sess-cron`). */
export const agentsFixtureCopy = (): { readonly dir: string; readonly root: string; readonly file: string; readonly session: string } => {
  const dir = tempDir()
  const root = path.join(dir, "agents")
  fs.cpSync(path.join(fixturesDir, "muse-agents", "agents"), root, { recursive: true })
  return { dir, root, file: path.join(root, "cron-first", "sessions", "cron-first.jsonl"), session: "sess-cron" }
}

/** Append a copy of the file's last line (a JSONL source that grew by one record). */
export const appendLastLine = (file: string): void => {
  const lines = fs.readFileSync(file, "utf8").trimEnd().split("\n")
  fs.appendFileSync(file, lines[lines.length - 1] + "\n")
}
