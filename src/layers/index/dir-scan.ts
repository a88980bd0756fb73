/**
 * The fallback of `import --watch` for what `fs.watch` misses: Node 20's
 * recursive watcher on Linux may raise no event for a file created in a
 * subfolder that existed when it started (a new session in an existing dated
 * folder, a subagent log beside a session). Creating, renaming or deleting an
 * entry changes its folder's mtime, so a cheap periodic stat of the folders
 * under the watched roots finds every new entry; only a folder whose mtime
 * changed is listed again.
 *
 * Bounds: at most {@link DirScanOptions.maxDirs} folders are remembered (a
 * folder beyond it is not scanned; the watch's poll still covers it), and one
 * {@link DirScan.tick} stats at most {@link DirScanOptions.perTick} folders:
 * every "hot" one (mtime within {@link DirScanOptions.hotFor}, or at most two
 * levels below a root, where new dated or project folders appear), then a
 * rotating slice of the others. Memory: one entry per folder and per name in
 * it.
 *
 * Source: issue 13 (item 8): a new event is in the index < 1 s after it is written.
 *
 * @module
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"

/** Tuning of a {@link DirScan}. */
export interface DirScanOptions {
  /** Folders remembered at most (default 50,000). */
  readonly maxDirs?: number
  /** Folders stat'ed at most per tick (default 4,000). */
  readonly perTick?: number
  /** A folder changed this recently (ms) is stat'ed at every tick (default 24 h). */
  readonly hotFor?: number
}

interface Folder {
  mtimeMs: number
  /** Its entries' names, each with its kind ({@link kindOf}). */
  names: Map<string, string>
  readonly depth: number
}

/**
 * An entry's kind as its listing says it (`f` file, `d` folder, `l` symlink, `o` other): an entry replaced under the
 * same name by one of another kind (a symlinked log replaced by the file itself, a log replaced by a fifo) is news,
 * though its name is not (session 37, tester36a F8: a symlink replaced by its file waited for the 60 s poll, as
 * Node 20's recursive watcher raised no event for it either).
 */
const kindOf = (e: fs.Dirent): string => (e.isFile() ? "f" : e.isDirectory() ? "d" : e.isSymbolicLink() ? "l" : "o")

const list = (dir: string): Array<fs.Dirent> | undefined => {
  try {
    return fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return undefined
  }
}

const mtimeOf = (dir: string): number | undefined => {
  try {
    const st = fs.lstatSync(dir)
    return st.isDirectory() ? st.mtimeMs : undefined
  } catch {
    return undefined
  }
}

/**
 * Folders under some roots, remembered with their mtime and names; each
 * {@link DirScan.tick} answers the paths (files and folders, absolute) that
 * appeared since the last look, or whose entry changed kind under the same
 * name (a symlink replaced by a file). Symlinks are not followed.
 */
export class DirScan {
  private readonly folders = new Map<string, Folder>()
  private roots: ReadonlyArray<string> = []
  private cursor = 0
  private readonly maxDirs: number
  private readonly perTick: number
  private readonly hotFor: number

  constructor(options: DirScanOptions = {}) {
    this.maxDirs = options.maxDirs ?? 50_000
    this.perTick = options.perTick ?? 4_000
    this.hotFor = options.hotFor ?? 24 * 3600_000
  }

  /** Folders remembered now. */
  get size(): number {
    return this.folders.size
  }

  /**
   * Scan these roots from now on: a root seen for the first time is walked
   * silently (what is in it now is the baseline, not news); a root no longer
   * listed is forgotten.
   */
  setRoots(roots: ReadonlyArray<string>): void {
    const next = [...new Set(roots.map((r) => nodePath.resolve(r)))]
    const inside = (p: string, r: string) => p === r || p.startsWith(r.endsWith(nodePath.sep) ? r : r + nodePath.sep)
    for (const dir of [...this.folders.keys()]) if (!next.some((r) => inside(dir, r))) this.folders.delete(dir)
    for (const r of next) if (!this.folders.has(r)) this.walk(r, 0, undefined)
    this.roots = next
  }

  /** Remember `dir` and what is below it; `found`: where to put every path in it (news), or undefined (a baseline). */
  private walk(dir: string, depth: number, found: Array<string> | undefined): void {
    if (this.folders.size >= this.maxDirs) return
    const mtimeMs = mtimeOf(dir)
    const entries = mtimeMs === undefined ? undefined : list(dir)
    if (mtimeMs === undefined || entries === undefined) return
    this.folders.set(dir, { mtimeMs, names: new Map(entries.map((e) => [e.name, kindOf(e)])), depth })
    for (const e of entries) {
      const p = nodePath.join(dir, e.name)
      found?.push(p)
      if (e.isDirectory()) this.walk(p, depth + 1, found)
    }
  }

  private forget(dir: string): void {
    const prefix = dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep
    for (const d of [...this.folders.keys()]) if (d === dir || d.startsWith(prefix)) this.folders.delete(d)
  }

  /** Look at one remembered folder again; push what appeared in it to `found`. */
  private look(dir: string, f: Folder, found: Array<string>): void {
    const mtimeMs = mtimeOf(dir)
    if (mtimeMs === undefined) {
      if (!this.roots.includes(dir)) this.forget(dir)
      return
    }
    if (mtimeMs === f.mtimeMs) return
    const entries = list(dir)
    if (entries === undefined) return
    f.mtimeMs = mtimeMs
    const names = new Map<string, string>()
    for (const e of entries) {
      const kind = kindOf(e)
      names.set(e.name, kind)
      const p = nodePath.join(dir, e.name)
      const was = f.names.get(e.name)
      if (was !== undefined && was !== kind) {
        // The same name, another kind of entry: news (a folder that was something else is walked below).
        if (was === "d") this.forget(p)
        found.push(p)
        if (e.isDirectory()) this.walk(p, f.depth + 1, found)
        continue
      }
      if (was !== undefined) {
        // A folder replaced by another under the same name (or one not remembered: over the bound before) is walked anew.
        if (e.isDirectory() && !this.folders.has(p)) this.walk(p, f.depth + 1, found)
        continue
      }
      found.push(p)
      if (e.isDirectory()) this.walk(p, f.depth + 1, found)
    }
    for (const gone of f.names.keys()) if (!names.has(gone)) this.forget(nodePath.join(dir, gone))
    f.names = names
  }

  /** One pass (see the module doc for its bound): the paths that appeared since the last one. */
  tick(now: number = Date.now()): Array<string> {
    const found: Array<string> = []
    const all = [...this.folders]
    let budget = this.perTick
    const cold: Array<[string, Folder]> = []
    for (const [dir, f] of all) {
      if (f.depth <= 2 || now - f.mtimeMs < this.hotFor) {
        if (budget-- <= 0) break
        this.look(dir, f, found)
      } else cold.push([dir, f])
    }
    let looked = 0
    for (; looked < cold.length && budget > 0; looked++, budget--) {
      const [dir, f] = cold[(this.cursor + looked) % cold.length]
      if (this.folders.get(dir) === f) this.look(dir, f, found)
    }
    if (cold.length > 0) this.cursor = (this.cursor + looked) % cold.length
    return found
  }
}
