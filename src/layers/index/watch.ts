/**
 * `import --watch`: stay running and import what is appended or added under
 * the authorized roots, through the importer's public API (`Importer.run`)
 * and its {@link ImportHooks}.
 *
 * How a round is chosen:
 * - The folders are watched with Node's `fs.watch` (inotify on Linux;
 *   recursive on Node 20), each one a scoped resource: every discovery root recursively
 *   (`DiscoveryReport.roots`: Muse Code native, Muse agents, Claude Code),
 *   and the folder of every other source (an AgentMux store and its `-wal`,
 *   an explicit export). An event only marks its path dirty; a round takes
 *   every dirty path at once, so memory is bounded by the number of distinct
 *   paths, not by the number of writes. (`@effect/platform`'s
 *   `FileSystem.watch` wraps the same `fs.watch`, but starts it in a forked
 *   stream with no sign of when it is ready, so writes right after a round
 *   could be missed, and it stats each event's path relative to the working
 *   directory.) A folder newly watched after a round is followed by one more
 *   full round, which sees what was written before its watcher was there.
 * - A dirty path that is a known source of a one-source-per-file provider, or
 *   one of its nested logs, makes a *targeted* round: the importer runs over
 *   those sources only (an explicit plan with what discovery said of them),
 *   with no discovery and no stat of the others.
 * - Any other path (a new session, a new transcript, an AgentMux store's
 *   `-wal`) makes a *full* round: the plan as `import` runs it (discovery,
 *   then a stat of every source). Full rounds are spaced by at least twice the
 *   last one's duration (500 ms at least), so a noisy file that is no source
 *   (a `cli-*.log` beside a native log) cannot keep discovery running; such
 *   a path, once a full round saw it and it was no source, is not a reason
 *   for another full round for {@link WatchOptions.recheck}.
 * - A full round also runs every {@link WatchOptions.poll} whatever the
 *   events say (the fallback where events are unreliable: network file
 *   systems, an inotify limit), and every {@link WatchOptions.pollUnwatched}
 *   while a folder cannot be watched (it is tried again at each full round).
 * - A targeted round that found more than an append (a new generation, a
 *   rejected or superseded source) is followed by a full round.
 * - A round starts {@link WatchOptions.settle} after the first event of a
 *   burst: a settle, not a debounce, since a debounce never fires while a
 *   log is written to without pause (a subagent's heartbeat).
 *
 * What a growth costs. A plain `import` re-hashes the whole imported prefix
 * of a source whose stat changed (docs/index.md "Incremental"; bench figure f), as
 * it cannot know what happened to the file while it was not running. A watch
 * was running. After each import of a source's own file it keeps, in memory,
 * what it verified: the file's device and inode, its size, the sha256 state
 * at the checkpoint's binding (handed over by the importer, no extra read),
 * and digests of the 4 KiB before the binding and of the first 4 KiB. At the
 * next change the importer asks (`ImportHooks.trustedPrefix`) and the watch
 * vouches for the prefix only when
 * - the binding asked for is the one it kept (the checkpoint is the one
 *   this process wrote),
 * - the file is the same (device and inode) and longer than it saw it (a
 *   truncation, or a replacement by rename, is a full check; a change of
 *   the same size, an edit in place or a `touch`, is no growth: the
 *   importer's own check then reads the prefix, at that change),
 * - the 4 KiB before the binding and the head read now (two small reads)
 *   still have the digests kept (an in-place rewrite of the last imported
 *   lines or of the session header), and
 * - the prefix was hashed in full less than {@link WatchOptions.trustFor} ago.
 *
 * Otherwise the importer hashes the prefix as a plain import does, and a
 * change is a new generation, never an append. What this leaves: an in-place
 * rewrite that keeps the inode, never shortens the file between two of its
 * events, and changes only bytes away from its head and its last 4 KiB; it
 * is caught at the next full hash, at most `trustFor` later (a new
 * generation then, as the importer makes one), and the adapters still refuse
 * a cursor whose line or session head changed (`INVALID_CURSOR`, a new
 * generation). The first growth of a source after the watch starts is a full
 * hash (the watch has verified nothing yet).
 *
 * Not covered here: a Muse Code or Claude Code source's nested logs are
 * streamed again from their start by the importer when any of them changes
 * (their events already in the index are skipped), so a subagent heartbeat
 * re-reads that subagent's log; a cursor per nested log is the adapters' and
 * importer's to add.
 *
 * Interruption (Ctrl-C, SIGTERM): the round in progress is interrupted like
 * an import: each batch commits in one transaction with its checkpoint, so
 * what was committed is consistent and the next run completes it.
 *
 * Source: issue 13 (item 8).
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto"
import * as nodePath from "node:path"
import * as NFS from "node:fs"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Layer from "effect/Layer"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { StoreUnavailable } from "../../domain/errors.js"
import type { ProviderId } from "../../domain/model.js"
import { causeLine, ImportHooks, type ImportHooksShape, Importer, type ImportPlan, type ImportReport, type PartialCause, type SeenSource } from "../../services/Importer.js"
import { SourceAccess, type SourceAccessShape } from "../../services/SourceAccess.js"
import { DirScan } from "./dir-scan.js"
import { indexFileCheck } from "./file-identity.js"
import { bindingLength } from "./prefix.js"

/** Tuning of {@link watch}. */
export interface WatchOptions {
  /** From the first event of a burst to its round (default 15 ms). */
  readonly settle?: Duration.DurationInput | undefined
  /** A full round at least this often, whatever the events say (default 60 s). */
  readonly poll?: Duration.DurationInput | undefined
  /** A full round this often while a folder cannot be watched (default 2 s). */
  readonly pollUnwatched?: Duration.DurationInput | undefined
  /** How long a prefix hashed in full is trusted on the watch's own checks (default 10 min). */
  readonly trustFor?: Duration.DurationInput | undefined
  /**
   * After a targeted round, a full round stores the discovery summaries of
   * what it imported (title, counts, last activity) at most this late
   * (default 10 s): discovery reads a changed transcript whole for its
   * counts, so this is not done at every append.
   */
  readonly refresh?: Duration.DurationInput | undefined
  /** How long a path a full round found to be no source is no reason for another (default 10 s). */
  readonly recheck?: Duration.DurationInput | undefined
  /** Files whose changes are never a reason for a round (the index: `<file>`, `<file>-wal`, `<file>-journal`, …). */
  readonly ignore?: ReadonlyArray<string> | undefined
  /**
   * Roots the operator named (`--claude-root`, `--agents-root`, `--muse-root`):
   * each is watched recursively even before discovery went through it, and
   * while one is missing (not created yet, or deleted) it counts as unwatched,
   * so a full round runs every {@link WatchOptions.pollUnwatched} until it is there.
   */
  readonly roots?: ReadonlyArray<string> | undefined
  /**
   * Files the operator named (`--store`): while one is missing it counts as
   * unwatched (a full round every {@link WatchOptions.pollUnwatched}); once
   * there, its folder is watched.
   */
  readonly files?: ReadonlyArray<string> | undefined
  /**
   * How often the folders under the watched roots are stat'ed for entries
   * `fs.watch` did not report (default 250 ms; see `dir-scan.ts` for the
   * bound on the work). `0`: never.
   */
  readonly scanEvery?: Duration.DurationInput | undefined
  /**
   * The SQLite index file the rounds write to: before each round the watch
   * checks that this path still names the file it opened (same device and
   * inode); if not (deleted or replaced), it stops with `STORE_UNAVAILABLE`
   * rather than write into an unlinked file.
   */
  readonly index?: string | undefined
  /**
   * Told when a round failed because the index's server cannot be reached
   * (`StoreUnavailable`, reason `unreachable`: a PostgreSQL index's outage)
   * and will be tried again ({@link OUTAGE_RETRY}: within 5 s): at the
   * outage's first retry, then at most once every {@link OUTAGE_NOTE_EVERY_MS}
   * while it lasts; `since` is when the outage was first seen (ms since the epoch).
   */
  readonly onOutage?: ((outage: { readonly failure: StoreUnavailable; readonly since: number }) => Effect.Effect<void>) | undefined
}

/** Whether `e` is a store failure of a server that cannot be reached (an outage a round waits out: {@link OUTAGE_RETRY}). */
export const isOutage = (e: unknown): e is StoreUnavailable =>
  e instanceof StoreUnavailable && (e.details as { readonly reason?: unknown } | undefined)?.reason === "unreachable"

/**
 * The retries of a round that failed on the index (`StoreUnavailable`, or
 * another failure of the importer): with an exponential backoff from 100 ms,
 * at most 5 times (what a SQLite index's passing failure needs); while the
 * failure is an outage of the server ({@link isOutage}: a PostgreSQL index
 * that cannot be reached, or whose connection was lost), without a limit,
 * the delay capped at 5 s, so the watch goes on once the server is back
 * (tester18 F3: it stopped, exit 6, at the first outage). Output: the two
 * delays' schedules' outputs and the retries so far.
 */
export const OUTAGE_RETRY = Schedule.exponential("100 millis").pipe(
  Schedule.union(Schedule.spaced("5 seconds")),
  Schedule.intersect(Schedule.count),
  Schedule.check((e: unknown, [, n]) => n < 5 || isOutage(e))
)

/** How often at most {@link WatchOptions.onOutage} is told of an outage that lasts (ms). */
export const OUTAGE_NOTE_EVERY_MS = 60_000

/**
 * What started a round: the first one, events, the poll, a follow-up (a
 * targeted round found more than an append, or a folder was newly watched),
 * or a refresh (sources a targeted round imported get their discovery
 * summary: title, counts, last activity; see `ImportPlan.explicit`).
 */
export type RoundTrigger = "start" | "change" | "poll" | "follow-up" | "refresh"

/** One round of a watch, as {@link watch} reports it. */
export interface WatchRound {
  /** 1, 2, … */
  readonly round: number
  readonly trigger: RoundTrigger
  /** `full`: discovery and every source (as `import`); `targeted`: only the sources whose files changed. */
  readonly scope: "full" | "targeted"
  /** Changed paths this round took (after filtering). */
  readonly changedPaths: number
  /** Wall time of the round, ms. */
  readonly ms: number
  /** The process's resident set after the round, bytes. */
  readonly rssBytes: number
  /** Folders watched, and those that could not be (polled instead). */
  readonly watching: { readonly folders: number; readonly unwatched: number }
  /**
   * The importer's report of the round. A targeted round's counts cover its
   * sources only; its coverage and causes also carry those the last full
   * round found elsewhere in the tree (a source unreadable, not a regular
   * file, a root missing…), which a targeted round does not look at again:
   * a round never reads "complete" while the tree is still partial.
   */
  readonly report: ImportReport
}

/**
 * A targeted round's report with the causes of partial coverage the last
 * full round found (`tree`) that this round did not look at again: those of
 * other paths than its own sources (a source it read has its own causes, if
 * any, in `report`). Partial when any is left; the remediations follow the causes.
 */
const withTreeCauses = (
  report: ImportReport,
  tree: ReadonlyArray<PartialCause>,
  targets: ReadonlyArray<{ readonly locator: { readonly path: string } }>
): ImportReport => {
  const read = new Set(targets.map((t) => t.locator.path))
  const own = new Set(report.causes.map((c) => `${c.code}\u0000${c.path ?? ""}`))
  const carried = tree.filter((c) => !(c.path !== null && read.has(c.path)) && !own.has(`${c.code}\u0000${c.path ?? ""}`))
  if (carried.length === 0) return report
  const causes = [...carried, ...report.causes]
  return { ...report, coverage: "partial", causes, remediations: causes.map(causeLine) }
}

/** A named root that resolves to another real path than when the watch first went through it. */
interface MovedRoot {
  /** The root as named (`--claude-root`, ...), absolute. */
  readonly named: string
  /** Its real path then, and now. */
  readonly was: string
  readonly now: string
  /** The providers whose discovery went through it. */
  readonly providers: ReadonlyArray<ProviderId>
}

/** The code of a watched root that resolves to another place ({@link movedRootsReport}). */
export const WATCHED_ROOT_MOVED = "WATCHED_ROOT_MOVED"

/**
 * A full round's report when named roots resolve elsewhere than when the watch first went through them (the root
 * swapped for a symlink to the folder moved away, `mv root root-real && ln -s root-real root`; tester39 F8). Such a
 * root is not followed, as session-ingest follows no symlink below a root (README, "Where sessions are looked for";
 * docs/import.md: a source replaced by a symlink is kept as gone and the link never read): the round did not
 * discover its providers, so the sessions imported from its old place are kept as they were (none gone, none
 * superseded) and none is imported a second time from the new place (before, every session was listed twice). Each
 * such provider is `unavailable`, partial, with a {@link WATCHED_ROOT_MOVED} diagnostic and cause naming both places.
 * Once the root resolves to its old place again (the folder put back) the rounds go on as before.
 */
const movedRootsReport = (report: ImportReport, moved: ReadonlyArray<MovedRoot>): ImportReport => {
  const providers = [...report.providers]
  const causes = [...report.causes]
  for (const m of moved) {
    const problem = `The watched root ${m.named} now resolves to ${m.now}, not to ${m.was} as when the watch started reading it (it was swapped for a symlink, or moved); a watched root is not followed to another place, so its sessions were not read this round, and those imported from ${m.was} are kept as they were.`
    const remedy = `Put the folder back at ${m.named}; or stop the watch and start it again to read ${m.now} (its sessions are then imported as new sources beside those kept from ${m.was}).`
    for (const provider of m.providers) {
      // The remedy in the message too: a watch's text round prints the diagnostics, not the causes.
      const diagnostic = { code: WATCHED_ROOT_MOVED, message: `${problem} ${remedy}`, remediation: remedy, details: { root: m.named, was: m.was, now: m.now } }
      const at = providers.findIndex((p) => p.provider === provider)
      if (at >= 0) {
        const p = providers[at]
        providers[at] = { ...p, coverage: "partial", reasonCode: p.reasonCode ?? WATCHED_ROOT_MOVED, diagnostics: [...p.diagnostics, diagnostic] }
      } else {
        providers.push({ provider, status: "unavailable", coverage: "partial", sourceCount: 0, reasonCode: WATCHED_ROOT_MOVED, remediation: remedy, diagnostics: [diagnostic] })
      }
      causes.push({ provider, code: WATCHED_ROOT_MOVED, path: m.named, problem, remedy })
    }
  }
  return { ...report, coverage: "partial", providers, causes, remediations: causes.map(causeLine) }
}

/** What the watch verified of one source file (see the module's doc). */
interface Verified {
  readonly binding: string
  readonly dev: number
  readonly ino: number
  readonly size: number
  readonly state: Hash
  /** sha256 hex of the `WINDOW` bytes before the binding's end, and of the first `WINDOW` bytes. */
  readonly tail: string
  readonly head: string
  /** When the prefix was last hashed in full (ms since epoch). */
  readonly hashedAt: number
}

/** Bytes of the window before the binding, and of the head, that the watch checks. */
const WINDOW = 4096
/** Paths remembered as "no source" at most; past it, the memory starts over. */
const MAX_NOT_SOURCES = 10_000

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex")

/**
 * What a path is now, as far as a "no source" verdict goes: its own
 * `lstat` (a symlink is not followed) device, inode, mode, size and mtime;
 * `-` when nothing is there.
 */
export const pathStamp = (p: string): string => {
  const st = NFS.lstatSync(p, { throwIfNoEntry: false })
  return st === undefined ? "-" : `${st.dev}:${st.ino}:${st.mode}:${st.size}:${st.mtimeMs}`
}

/** A path a full round found to be no source (see {@link WatchMemory.recentlyNoSource}). */
interface NotSource {
  /** When the window started (ms since epoch). */
  readonly at: number
  /** {@link pathStamp} when the round took the path. */
  readonly stamp: string
  /** The path changed since, and made one more full round in this window. */
  changed: boolean
}

/**
 * The watch's memory: the sources the last rounds saw (by path and by nested
 * log), the roots discovery went through, the prefixes it verified, and the
 * dirty paths. Its {@link WatchMemory.hooks} are the importer's
 * {@link ImportHooks}. Bounded by the number of sources (one entry each, a
 * few hundred bytes) plus {@link MAX_NOT_SOURCES}.
 */
export class WatchMemory {
  /** Sources by path (several for a store). */
  private sources = new Map<string, Array<SeenSource>>()
  /** Nested log → its source's path. */
  private parts = new Map<string, string>()
  private roots = new Map<ProviderId, ReadonlyArray<string>>()
  /** Filled during a full round, then swapped in (sources no longer listed are forgotten). */
  private next: { sources: Map<string, Array<SeenSource>>; parts: Map<string, string>; roots: Map<ProviderId, ReadonlyArray<string>> } | undefined
  private readonly verified = new Map<string, Verified>()
  /** Paths whose trust the importer took this round: their full hash time carries over. */
  private readonly continued = new Map<string, number>()
  private readonly notSources = new Map<string, NotSource>()
  dirty = new Set<string>()

  constructor(private readonly access: SourceAccessShape, private readonly trustMs: number) {}

  /** Start a full round: what it sees replaces what was known. */
  beginFull() {
    this.next = { sources: new Map(), parts: new Map(), roots: new Map() }
  }

  /** End a full round (`ok`: it ran to its end; else the old knowledge stays, merged). */
  endFull(ok: boolean) {
    if (this.next !== undefined && ok) {
      this.sources = this.next.sources
      this.parts = this.next.parts
      this.roots = this.next.roots
      for (const p of this.verified.keys()) if (!this.sources.has(p)) this.verified.delete(p)
    }
    this.next = undefined
  }

  private addSource(target: { sources: Map<string, Array<SeenSource>>; parts: Map<string, string> }, s: SeenSource) {
    const path = s.locator.path
    const list = (target.sources.get(path) ?? []).filter((o) => !sameSource(o, s))
    list.push(s)
    target.sources.set(path, list)
    for (const p of s.parts) target.parts.set(p, path)
  }

  /** The source a changed path belongs to, when it is one source's own file or nested log (one-source-per-file providers). */
  sourceOf(path: string): SeenSource | undefined {
    const own = this.sources.get(path) ?? this.sources.get(this.parts.get(path) ?? "")
    return own !== undefined && own.length === 1 && own[0].perFile ? own[0] : undefined
  }

  /**
   * True when a full round saw `path` less than `recheckMs` ago and it was
   * no source, and it has not changed since the round took it, or has and
   * made its one more round of that window already. So the change that
   * makes a path a source (a transcript created empty, then written; a file
   * put back where a symlink was: session 29, tester29a F2, F3) makes a round
   * at once, while a noisy file beside the sources (a `cli-*.log` written all
   * the time) makes at most two full rounds a window.
   */
  recentlyNoSource(path: string, now: number, recheckMs: number): boolean {
    const n = this.notSources.get(path)
    if (n === undefined || now - n.at >= recheckMs) return false
    if (n.changed) return true
    if (pathStamp(path) === n.stamp) return true
    n.changed = true
    return false
  }

  /**
   * After a full round: the paths that made it and are still no source,
   * each with its {@link pathStamp} when the round took it. A
   * path the round named in a cause of partial coverage (`named`: a source
   * it could not read, a fifo in a session's place) is not "no source": its
   * next change (a `chmod` back, an attribute change only) makes a full round.
   */
  markNoSources(paths: ReadonlyMap<string, string>, now: number, named: ReadonlySet<string>, recheckMs: number) {
    if (this.notSources.size > MAX_NOT_SOURCES) this.notSources.clear()
    for (const [p, stamp] of paths) {
      // A source again (a file put back), or named in a cause: never quiet.
      if (this.sourceOf(p) !== undefined || this.sources.has(p) || named.has(p)) {
        this.notSources.delete(p)
        continue
      }
      const old = this.notSources.get(p)
      // Its look again of this window is taken: the window goes on.
      if (old !== undefined && old.changed && now - old.at < recheckMs) this.notSources.set(p, { at: old.at, stamp, changed: true })
      else this.notSources.set(p, { at: now, stamp, changed: false })
    }
  }

  /** The providers whose discovery went through `root` (a real path) in the last full round. */
  providersAt(root: string): ReadonlyArray<ProviderId> {
    const out: Array<ProviderId> = []
    for (const [provider, roots] of this.roots) if (roots.includes(root)) out.push(provider)
    return out
  }

  /** The folders to watch: each root recursively, and the folder of every source outside them. */
  folders(): Map<string, boolean> {
    const out = new Map<string, boolean>()
    const roots = [...new Set([...this.roots.values()].flat())]
    for (const r of roots) out.set(r, true)
    const under = (p: string) => roots.some((r) => p === r || p.startsWith(r.endsWith(nodePath.sep) ? r : r + nodePath.sep))
    for (const path of this.sources.keys()) {
      if (path === "" || under(path)) continue
      out.set(nodePath.dirname(path), false)
    }
    return out
  }

  /** The importer's hooks. */
  readonly hooks: ImportHooksShape = {
    roots: (provider, roots) =>
      Effect.sync(() => {
        const target = this.next?.roots ?? this.roots
        target.set(provider, [...(target.get(provider) ?? []), ...roots])
      }),
    source: (s) =>
      Effect.sync(() => {
        if (this.next !== undefined) this.addSource(this.next, s)
        this.addSource({ sources: this.sources, parts: this.parts }, s)
      }),
    trustedPrefix: (path, binding) =>
      Effect.gen(this, function*() {
        const v = this.verified.get(path)
        this.verified.delete(path) // taken: `imported` puts it back once the new binding is committed
        // A change with no growth (the same size: an edit in place, a `touch`) is never an append: the importer's own
        // check reads the prefix now, not at the next full hash (tester32a F4).
        if (v === undefined || v.binding !== binding || !(yield* this.stillPrefix(path, v, true))) return null
        this.continued.set(path, v.hashedAt)
        return v.state.copy()
      }),
    imported: (path, binding, state) =>
      Effect.gen(this, function*() {
        const hashedAt = this.continued.get(path) ?? Date.now()
        this.continued.delete(path)
        const now = yield* this.look(path, bindingLength(binding))
        if (now === null) return
        this.verified.set(path, { binding, state, hashedAt, ...now })
      })
  }

  /**
   * The module doc's rule: `v` may be trusted for the file at `path` as it is
   * now; `grown`: only if the file is longer than it was (what the importer
   * asks when the file's stat changed: the same size is then an edit in place
   * or a `touch`, never an append).
   */
  private stillPrefix(path: string, v: Verified, grown = false): Effect.Effect<boolean> {
    if (Date.now() - v.hashedAt > this.trustMs) return Effect.succeed(false)
    return Effect.map(this.look(path, bindingLength(v.binding)), (now) =>
      now !== null && now.dev === v.dev && now.ino === v.ino && (grown ? now.size > v.size : now.size >= v.size) &&
      now.tail === v.tail && now.head === v.head)
  }

  /**
   * True when the source file at `path` only grew since the watch verified
   * it (the check `trustedPrefix` will make): a targeted round will then read
   * from the cursor. Anything else goes to a full round, as `import` runs it.
   */
  onlyGrew(path: string): Effect.Effect<boolean> {
    const v = this.verified.get(path)
    return v === undefined ? Effect.succeed(false) : this.stillPrefix(path, v)
  }

  /** The file's identity and size now, and the digests of its window before `n` and of its head (two small reads, through `SourceAccess`). */
  private look(path: string, n: number) {
    const access = this.access
    return Effect.scoped(
      Effect.gen(function*() {
        const src = yield* access.open(yield* access.authorizeFile(path, [nodePath.dirname(path)]))
        const st = yield* src.stat
        if (st.size < n) return null
        const from = Math.max(0, n - WINDOW)
        const tail = yield* src.read(from, n - from)
        const head = yield* src.read(0, Math.min(WINDOW, n))
        if (tail.length !== n - from || head.length !== Math.min(WINDOW, n)) return null
        return { dev: st.dev, ino: st.ino, size: st.size, tail: sha(tail), head: sha(head) }
      })
    ).pipe(Effect.orElseSucceed(() => null))
  }
}

/** Folders walked at most by {@link unlistableUnder} (as the fallback scan remembers at most: `dir-scan.ts`). */
const MAX_WALKED_FOLDERS = 50_000
/** Unlistable folders answered at most by {@link unlistableUnder}. */
const MAX_UNLISTABLE = 100

/** True when `dir` is there but cannot be listed for want of permission (`EACCES`, `EPERM`). */
const isUnlistable = (dir: string): boolean => {
  try {
    NFS.readdirSync(dir)
    return false
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    return code === "EACCES" || code === "EPERM"
  }
}

/**
 * The folders below `root` (not `root` itself, never through a symlink) that cannot be listed for want of
 * permission: what a recursive watcher started now does not watch, ever (Node 20 on Linux walks the tree when it
 * starts; a folder it cannot list is left out in silence, with no `error` event, and is not taken up when it can be
 * listed again: tester39 F5). One `readdir` per folder, the same walk the watcher makes; at most
 * {@link MAX_WALKED_FOLDERS} folders walked and {@link MAX_UNLISTABLE} answered, in the walk's order.
 */
export const unlistableUnder = (root: string): Array<string> => {
  const out: Array<string> = []
  const todo = [root]
  let walked = 0
  while (todo.length > 0 && walked < MAX_WALKED_FOLDERS && out.length < MAX_UNLISTABLE) {
    const dir = todo.pop()!
    walked++
    let entries: Array<NFS.Dirent>
    try {
      entries = NFS.readdirSync(dir, { withFileTypes: true })
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (dir !== root && (code === "EACCES" || code === "EPERM")) out.push(dir)
      continue
    }
    for (const e of entries) if (e.isDirectory()) todo.push(nodePath.join(dir, e.name))
  }
  return out
}

const sameSource = (a: SeenSource, b: SeenSource) =>
  a.provider === b.provider && a.locator.locatorClass === b.locator.locatorClass && a.locator.agentId === b.locator.agentId &&
  a.locator.sessionId === b.locator.sessionId

/** The watch's memory, as a service (what {@link watch} reads and the importer's hooks write). */
export class WatchState extends Context.Tag("session-ingest/WatchState")<WatchState, WatchMemory>() {}

/**
 * Layer: the watch's memory ({@link WatchState}) and the importer's hooks
 * ({@link ImportHooks}) it answers; provide it under the importer's layer.
 */
export const memoryLayer = (options: Pick<WatchOptions, "trustFor"> = {}): Layer.Layer<WatchState | ImportHooks, never, SourceAccess> => {
  const state = Layer.effect(
    WatchState,
    Effect.map(SourceAccess, (access) => new WatchMemory(access, Duration.toMillis(options.trustFor ?? "10 minutes")))
  )
  return Layer.merge(state, Layer.effect(ImportHooks, Effect.map(WatchState, (m) => m.hooks)).pipe(Layer.provide(state)))
}

/**
 * Run `plan` once, then again for what changes under its sources' folders,
 * until interrupted; `onRound` is told of every round. Fails with
 * `StoreUnavailable` when {@link WatchOptions.index} no longer names the file
 * it opened (deleted or replaced), or as the importer does (the index), after retrying a round
 * 5 times with an exponential backoff from 100 ms, or as `onRound` does. Needs the importer built
 * over {@link memoryLayer} (its `WatchState` is the one the hooks write).
 */
export const watch = <E = never>(
  plan: ImportPlan,
  onRound: (round: WatchRound) => Effect.Effect<void, E>,
  options: WatchOptions = {}
): Effect.Effect<never, StoreUnavailable | E, Importer | WatchState> =>
  Effect.scoped(Effect.gen(function*() {
    const importer = yield* Importer
    const memory = yield* WatchState
    const outer = yield* Effect.scope
    const settle = Duration.decode(options.settle ?? "15 millis")
    const pollMs = Duration.toMillis(options.poll ?? "60 seconds")
    const pollUnwatched = Duration.decode(options.pollUnwatched ?? "2 seconds")
    const recheckMs = Duration.toMillis(options.recheck ?? "10 seconds")
    const refreshMs = Duration.toMillis(options.refresh ?? "10 seconds")
    const ignored = (options.ignore ?? []).map((p) => nodePath.resolve(p))
    const isIgnored = (p: string) => ignored.some((i) => p === i || p.startsWith(`${i}-`))

    /** Wakes the round loop; sliding, so a burst of events is one wake-up. */
    const wake = yield* Queue.sliding<void>(1)
    /** The folders watched, each in its own scope (closing it closes its watcher). */
    const watchers = new Map<string, Scope.CloseableScope>()
    /** The identity (device:inode) of each folder when its watcher started: a folder deleted or replaced is watched again. */
    const watchedIds = new Map<string, string>()
    /**
     * Recursive roots to watch again before the next full round: Node 20's recursive watcher on Linux
     * watches each file by its inode, so a file replaced by a rename (an atomic save, `sed -i`) is no
     * longer watched until the root's watcher is started again.
     */
    const rewatch = new Set<string>()
    const recursiveDirs = new Set<string>()
    const idOf = (p: string): string | undefined => {
      try {
        const st = NFS.statSync(p)
        return st.isDirectory() ? `${st.dev}:${st.ino}` : undefined
      } catch {
        return undefined
      }
    }
    const namedRoots = (options.roots ?? []).map((r) => nodePath.resolve(r))
    const namedFiles = (options.files ?? []).map((r) => nodePath.resolve(r))
    const scanEvery = Duration.toMillis(options.scanEvery ?? "250 millis")
    const scanner = new DirScan()
    const indexPath = options.index === undefined ? undefined : nodePath.resolve(options.index)
    /** Fails when the index path no longer names the file the watch opened (deleted or replaced). */
    const checkIndex = indexFileCheck(indexPath, (change) =>
      new StoreUnavailable({
        // No file at the path any more: a rename away (`mv`) looks the same as a delete from here (tester34a F5).
        message: `The index ${indexPath} was ${change === "deleted" ? "moved or deleted" : change} while the watch was running; the watch stopped rather than write into a file no longer at that path.`,
        remediation: "Run the command again: it creates or opens the index at that path and imports what is missing.",
        details: { path: indexPath, reason: change }
      }))
    /** Folders that could not be watched, or whose watcher failed: polled, tried again at each full round. */
    const unwatched = new Set<string>()
    /**
     * Folders under a recursive root that could not be listed when its watcher started, by root. Node 20's recursive
     * watcher on Linux never watches such a folder, not even once it can be read again (tester39 F5: a project folder
     * `chmod 000` for a moment, then its appends waited for the 60 s poll, the watch saying nothing was unwatched).
     * Each counts as unwatched (a full round every {@link WatchOptions.pollUnwatched}); the root's watcher is started
     * again once one of them can be listed (or is gone).
     */
    const blind = new Map<string, ReadonlyArray<string>>()
    /** Folders and files not watched now: those {@link unwatched}, and those {@link blind} to their root's watcher. */
    const unwatchedCount = () => {
      let n = unwatched.size
      for (const b of blind.values()) n += b.length
      return n
    }
    let followUp = false
    let pollDue = false
    /** A targeted round stored summaries of an earlier discovery: a full round (spaced as any) stores the current ones. */
    let refreshDue = false
    let lastFullAt = 0
    let lastFullMs = 0
    let rounds = 0
    /** The paths that call for a full round, each with its {@link pathStamp} when it was taken. */
    let pendingFull: Map<string, string> = new Map()

    /** Start watching `dir` (ready when this returns); false when it cannot be watched. */
    const watchFolder = (dir: string, recursive: boolean) =>
      Effect.gen(function*() {
        const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
        const started = yield* Effect.acquireRelease(
          Effect.try(() => {
            const w = NFS.watch(dir, { recursive, persistent: true }, (_event, name) => {
              // `name` is relative to the folder watched (absent on some platforms: the folder itself).
              memory.dirty.add(name === null ? dir : nodePath.resolve(dir, String(name)))
              Queue.unsafeOffer(wake, undefined)
            })
            w.on("error", () => {
              w.close()
              unwatched.add(dir)
              Queue.unsafeOffer(wake, undefined)
            })
            return w
          }),
          (w) => Effect.sync(() => w.close())
        ).pipe(Scope.extend(scope), Effect.either)
        if (started._tag === "Left") {
          yield* Scope.close(scope, Exit.void)
          unwatched.add(dir)
          return false
        }
        watchers.set(dir, scope)
        watchedIds.set(dir, idOf(dir) ?? "")
        if (recursive) recursiveDirs.add(dir)
        else recursiveDirs.delete(dir)
        unwatched.delete(dir)
        const unlisted = recursive ? unlistableUnder(dir) : []
        if (unlisted.length > 0) blind.set(dir, unlisted)
        else blind.delete(dir)
        return true
      })
    /** Stop watching `dir` (its watcher closed). */
    const unwatch = (dir: string) =>
      Effect.suspend(() => {
        const scope = watchers.get(dir)
        watchers.delete(dir)
        watchedIds.delete(dir)
        blind.delete(dir)
        return scope === undefined ? Effect.void : Scope.close(scope, Exit.void)
      })
    /** Watch the folders the last full round implies; answers whether one was newly watched. */
    const syncWatchers = Effect.gen(function*() {
      const want = memory.folders()
      for (const r of namedRoots) {
        let real = r
        try {
          real = NFS.realpathSync(r)
        } catch {
          // missing: watched (tried) by the path as named, so it counts as unwatched until it is there
        }
        if (!want.has(real)) want.set(real, true)
      }
      // A named file's folder is watched once the file is there; until then the file counts as unwatched.
      const missingFiles: Array<string> = []
      for (const f of namedFiles) {
        const there = NFS.statSync(f, { throwIfNoEntry: false }) !== undefined
        if (!there) missingFiles.push(f)
        else if (![...want.keys()].some((d) => want.get(d) === true && f.startsWith(d + nodePath.sep)) && !want.has(nodePath.dirname(f))) {
          want.set(nodePath.dirname(f), false)
        }
      }
      let added = false
      for (const dir of [...watchers.keys()]) {
        // A folder deleted or replaced since its watcher started: that watcher sees nothing more. Nor does a recursive
        // one see a folder below it that could not be listed when it started, now listable (or gone): started again.
        const same = idOf(dir) === watchedIds.get(dir)
        const unlisted = blind.get(dir)
        const regained = unlisted !== undefined && unlisted.some((f) => !isUnlistable(f))
        if (want.has(dir) && !unwatched.has(dir) && same && !regained) continue
        yield* unwatch(dir)
      }
      for (const dir of [...unwatched]) if (!want.has(dir)) unwatched.delete(dir)
      for (const [dir, recursive] of want) {
        if (!watchers.has(dir) && (yield* watchFolder(dir, recursive))) added = true
      }
      for (const f of namedFiles) unwatched.delete(f)
      for (const f of missingFiles) unwatched.add(f)
      // The fallback scan covers the recursive roots watched now (a new one is walked silently: its baseline).
      if (scanEvery > 0) scanner.setRoots([...recursiveDirs].filter((d) => watchers.has(d)))
      return added
    })

    /**
     * Each named root's real path when a full round first went through it, with the providers whose discovery did
     * (see {@link movedRootsReport}): a root that resolves to another place later is not followed there.
     */
    const pinned = new Map<string, { readonly real: string; readonly providers: ReadonlyArray<ProviderId> }>()
    const realOf = (p: string): string | undefined => {
      try {
        return NFS.realpathSync(p)
      } catch {
        return undefined
      }
    }
    /** After a full round: pin the named roots its discovery went through, not pinned yet. */
    const pinRoots = () => {
      for (const r of namedRoots) {
        if (pinned.has(r)) continue
        const real = realOf(r)
        const providers = real === undefined ? [] : memory.providersAt(real)
        if (real !== undefined && providers.length > 0) {
          pinned.set(r, { real, providers })
          resolvedAs.set(r, real)
        }
      }
    }
    /** Each pinned root's real path when last looked at (by the fallback scan): a change of it makes one full round. */
    const resolvedAs = new Map<string, string | undefined>()
    /**
     * The pinned roots whose real path changed since last looked at (swapped for a symlink, moved, put back): a move
     * of a watched folder itself is not reliably an event of its watcher, and a folder moved and linked back at once
     * stays the same folder to `stat`, so nothing else would see it before the poll.
     */
    const rootsResolvedElsewhere = (): ReadonlyArray<string> => {
      const out: Array<string> = []
      for (const named of pinned.keys()) {
        const now = realOf(named)
        if (now === resolvedAs.get(named)) continue
        resolvedAs.set(named, now)
        out.push(named)
      }
      return out
    }
    /** The pinned roots that resolve to another real path now (a missing one is no move: discovery says it missing). */
    const movedRoots = (): ReadonlyArray<MovedRoot> => {
      const out: Array<MovedRoot> = []
      for (const [named, pin] of pinned) {
        const now = realOf(named)
        if (now !== undefined && now !== pin.real) out.push({ named, was: pin.real, now, providers: pin.providers })
      }
      return out
    }

    /** The causes of partial coverage of the last full round (carried by targeted rounds: `withTreeCauses`). */
    let lastFullCauses: ReadonlyArray<PartialCause> = []
    /** The paths the last round named in its causes or its providers' diagnostics (not taken for "no source": `markNoSources`). */
    let namedInCauses: ReadonlySet<string> = new Set()

    /** The outage a round is waiting out: since when, and when it was last told ({@link WatchOptions.onOutage}). */
    let outage: { since: number; told: number } | undefined
    const noteOutage = (failure: StoreUnavailable) =>
      Effect.suspend(() => {
        const now = Date.now()
        if (outage === undefined) outage = { since: now, told: now }
        else if (now - outage.told < OUTAGE_NOTE_EVERY_MS) return Effect.void
        else outage.told = now
        return options.onOutage?.({ failure, since: outage.since }) ?? Effect.void
      })

    /** One round: full (the plan) or targeted (the given sources), retried on a store failure ({@link OUTAGE_RETRY}). */
    const round = (trigger: RoundTrigger, full: boolean, targets: ReadonlyArray<SeenSource>, changedPaths: number) =>
      Effect.gen(function*() {
        yield* checkIndex
        const t0 = performance.now()
        const targeted: ImportPlan = {
          discover: [],
          explicit: targets.map((s) => ({ provider: s.provider, locator: s.locator, summary: s.summary, overview: s.overview, linesCounted: s.linesCounted })),
          skipped: [],
          batchSize: plan.batchSize,
          commitEvents: plan.commitEvents
        }
        // A named root that resolves elsewhere now (swapped for a symlink, moved): its providers are not discovered.
        const moved = full ? movedRoots() : []
        const away = new Set(moved.flatMap((m) => m.providers))
        const fullPlan: ImportPlan = away.size === 0 ? plan : { ...plan, discover: plan.discover.filter((e) => !away.has(e.provider)) }
        const imported = yield* Effect.suspend(() => {
          if (full) memory.beginFull()
          return importer.run(full ? fullPlan : targeted)
        }).pipe(
          Effect.onExit((exit) => Effect.sync(() => full && memory.endFull(exit._tag === "Success"))),
          Effect.retry(OUTAGE_RETRY.pipe(Schedule.tapInput((e: unknown) => (isOutage(e) ? noteOutage(e) : Effect.void)))),
          Effect.tap(() => Effect.sync(() => (outage = undefined)))
        )
        const ran = moved.length === 0 ? imported : movedRootsReport(imported, moved)
        if (full) {
          lastFullCauses = ran.causes
          pinRoots()
        }
        const report = full ? ran : withTreeCauses(ran, lastFullCauses, targets)
        const ms = performance.now() - t0
        if (full) {
          lastFullAt = Date.now()
          lastFullMs = trigger === "start" ? 0 : ms // the first import is no measure of a round's cost
          pollDue = false
          // A folder watched only now: one more full round sees what was written before its watcher was there.
          if (yield* syncWatchers) {
            followUp = true
            yield* wake.offer(undefined)
          }
        } else {
          if (report.sources.newGenerations > 0 || report.sources.rejected > 0 || report.sources.superseded > 0) followUp = true
          if (report.sources.accepted > 0) refreshDue = true
          yield* wake.offer(undefined)
        }
        rounds++
        // And the paths its providers' diagnostics name (a fifo, folder or symlink in a log's place: the provider's
        // cause names no path): the file put back there makes a full round at once, not at the poll.
        namedInCauses = new Set([
          ...report.causes.flatMap((c) => (c.path !== null ? [c.path] : [])),
          ...report.providers.flatMap((p) => p.diagnostics.flatMap((d) => (typeof d.details?.path === "string" ? [d.details.path] : [])))
        ])
        yield* onRound({
          round: rounds,
          trigger,
          scope: full ? "full" : "targeted",
          changedPaths,
          ms,
          rssBytes: process.memoryUsage.rss(),
          watching: { folders: watchers.size, unwatched: unwatchedCount() },
          report
        })
      })

    /** What the dirty paths call for: the sources to import, and whether discovery must run. */
    const step = Effect.gen(function*() {
      const dirty = memory.dirty
      memory.dirty = new Set()
      const now = Date.now()
      const targets = new Map<string, SeenSource>()
      for (const p of dirty) {
        if (isIgnored(p)) continue
        const s = memory.sourceOf(p)
        // Only a growth is targeted; a truncation, replacement or rewrite (or a file not verified yet) is a full round.
        if (s !== undefined && (p !== s.locator.path || (yield* memory.onlyGrew(p)))) targets.set(s.locator.path, s)
        // A known source's file is never quiet (one put back after a round found it gone: tester29b F3).
        else if (s !== undefined || !memory.recentlyNoSource(p, now, recheckMs)) {
          pendingFull.set(p, pathStamp(p))
          // It may be a file replaced by a rename: its root's watcher is started again before the full round.
          for (const dir of recursiveDirs) if (watchers.has(dir) && p === dir || p.startsWith(dir.endsWith(nodePath.sep) ? dir : dir + nodePath.sep)) rewatch.add(dir)
        }
      }
      const wantFull = pollDue || followUp || pendingFull.size > 0 || (refreshDue && now - lastFullAt >= refreshMs)
      const fullAt = lastFullAt + Math.max(500, 2 * lastFullMs)
      if (refreshDue && !wantFull) yield* Effect.forkScoped(Effect.delay(wake.offer(undefined), Duration.millis(lastFullAt + refreshMs - now)))
      if (wantFull && now >= fullAt) {
        const trigger: RoundTrigger = followUp ? "follow-up" : pendingFull.size > 0 ? "change" : refreshDue ? "refresh" : "poll"
        const paths = pendingFull
        pendingFull = new Map()
        followUp = false
        refreshDue = false
        // Watch those roots again now: the round then sees what was written before the new watcher was there.
        for (const dir of rewatch) {
          if (!watchers.has(dir)) continue
          yield* unwatch(dir)
          yield* watchFolder(dir, true)
        }
        rewatch.clear()
        yield* round(trigger, true, [], paths.size + targets.size)
        memory.markNoSources(paths, Date.now(), namedInCauses, recheckMs)
        return
      }
      if (wantFull) yield* Effect.forkScoped(Effect.delay(wake.offer(undefined), Duration.millis(fullAt - now)))
      if (targets.size > 0) yield* round("change", false, [...targets.values()], targets.size)
    })

    yield* round("start", true, [], 0)
    // The poll: a full round every `poll`, or every `pollUnwatched` while a folder is not watched.
    yield* Effect.forkScoped(Effect.repeat(
      Effect.suspend(() => {
        const every = unwatchedCount() > 0 ? Duration.toMillis(pollUnwatched) : pollMs
        if (Date.now() - lastFullAt < every) return Effect.void
        pollDue = true
        return wake.offer(undefined)
      }),
      Schedule.spaced(pollUnwatched)
    ))
    // The fallback for what fs.watch misses (a new file in a subfolder that existed when it started): folders' mtimes.
    if (scanEvery > 0) {
      yield* Effect.forkScoped(Effect.repeat(
        Effect.sync(() => {
          let news = false
          for (const p of scanner.tick()) {
            if (memory.sourceOf(p) !== undefined || memory.dirty.has(p)) continue
            memory.dirty.add(p)
            news = true
          }
          for (const p of rootsResolvedElsewhere()) {
            memory.dirty.add(p)
            news = true
          }
          if (news) Queue.unsafeOffer(wake, undefined)
        }),
        Schedule.spaced(Duration.millis(scanEvery))
      ))
    }
    return yield* Stream.fromQueue(wake).pipe(
      Stream.mapEffect(() => Effect.delay(step, settle)),
      Stream.runDrain,
      Effect.zipRight(Effect.never)
    )
  }))
