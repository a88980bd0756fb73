/**
 * The import lock of a SQLite index (finding F9 of session 13): one import
 * run at a time writes to an index file, so that two `import` processes
 * started together do not both report the same sources imported.
 *
 * An advisory lock that writes nothing to the index: a file beside it,
 * `<index>.lock`, holding the holder's process id, host, start time and
 * whether it is an `import --watch` (JSON). It is made whole in a temporary
 * file and linked into place (`link` fails when the lock exists: the same
 * exclusion as `O_EXCL`, and a reader never sees half a lock). A run takes
 * it only at its first write (an import that finds everything unchanged
 * takes none, so it never waits and never touches the folder's files) and
 * removes it when the run ends (also on failure, on SIGINT/SIGTERM through
 * the run's interruption, and at process exit).
 *
 * A lock whose process is gone (same host, `kill(pid, 0)` says no such
 * process: a `kill -9`, a crash) is stale and taken over at once, as is one
 * whose pid is now another process's (reused after a crash: this very
 * process, or one started after the lock was taken; see `holderLive`). A lock of
 * another host cannot be checked: it is waited for as a live one (an index
 * on a shared folder; the error's remedy says how to clear it). Where no
 * lock can be made (a read-only folder, a full disk: EROFS, EACCES, EPERM,
 * ENOSPC, EDQUOT) the run goes on without one: its first write then fails as
 * the index says.
 *
 * The logic of the wait (a poll, a bounded wait told once, a holder past it:
 * `STORE_UNAVAILABLE` `import-running`) is the import lease of branch
 * `s14-trust14`, kept; its storage (a row in the index, written at every
 * run) is what changed.
 *
 * @module
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { StoreUnavailable } from "../../domain/errors.js"

/** How long an import waits for another run's import lock by default (10 minutes). */
export const DEFAULT_LOCK_WAIT = Duration.minutes(10)

/** How often a waiting import looks at the lock again. */
const POLL = Duration.millis(100)

/**
 * The run that holds an index's import lock: its process id, host, since when (RFC 3339), whether it is
 * `import --watch`, and (locks written since tester19 F4, on Linux) `start`, its process's start ({@link processStart}).
 */
export interface ImportLockHolder {
  readonly pid: number
  readonly host: string
  readonly since: string
  readonly watch: boolean
  readonly start?: string | undefined
}

/** What an import lock is told by its user: how long to wait, who is told of a wait, whether this process is a watch. */
export interface ImportLockOptions {
  /** The longest wait for another live holder (default {@link DEFAULT_LOCK_WAIT}). */
  readonly wait?: Duration.Duration | undefined
  /** Told once when a wait begins, with the holder and the longest wait. */
  readonly onWait?: ((holder: ImportLockHolder, wait: Duration.Duration) => Effect.Effect<void>) | undefined
  /** This process is `import --watch` (said in its lock, for another run's message). */
  readonly watch?: boolean | undefined
}

/** The lock file of the index `file`. */
export const lockPathOf = (file: string): string => `${file}.lock`

/** Whether the process `pid` of this host is running (EPERM: running, as another user). */
const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as { code?: unknown }).code === "EPERM"
  }
}

/** Linux's clock ticks per second of `/proc/<pid>/stat` times (`USER_HZ`, 100 on every architecture Node runs on). */
const USER_HZ = 100

/** Slack between a process's start and its lock's `since` read from `/proc/stat` `btime` (whole seconds, adjusted with the clock). */
const START_SLACK_MS = 2000

/** `/proc/<pid>/stat`'s field 22, the process's start in clock ticks since boot; undefined where there is none (not Linux, gone). */
const startTicks = (pid: number): string | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // Field 2 (the command) is in parentheses and may hold spaces: the fields after its last ")" are 3, 4, ...
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
    return start !== undefined && /^\d+$/.test(start) ? start : undefined
  } catch {
    return undefined
  }
}

/** This boot's id (`/proc/sys/kernel/random/boot_id`), or "" where there is none. */
const bootId = (() => {
  let id: string | undefined
  return () => {
    if (id === undefined) {
      try {
        id = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
      } catch {
        id = ""
      }
    }
    return id
  }
})()

/**
 * The start of the process `pid` of this host, as a lock records it: `<boot id>/<start in clock ticks since boot>`
 * (Linux, `/proc/<pid>/stat` field 22); undefined where it cannot be read (another system, the process gone). Two
 * processes with one pid (a pid reused after a crash or a reboot) have different starts.
 */
export const processStart = (pid: number): string | undefined => {
  const ticks = startTicks(pid)
  return ticks === undefined ? undefined : `${bootId()}/${ticks}`
}

/** When the process `pid` started (ms since the epoch: `/proc/stat` `btime` + its start ticks), or undefined. */
const startedAtMs = (pid: number): number | undefined => {
  const ticks = startTicks(pid)
  if (ticks === undefined) return undefined
  try {
    const btime = /^btime (\d+)$/m.exec(fs.readFileSync("/proc/stat", "utf8"))?.[1]
    return btime === undefined ? undefined : Number(btime) * 1000 + (Number(ticks) * 1000) / USER_HZ
  } catch {
    return undefined
  }
}

/** The lock contents this process holds now (a lock naming this process and not among them is not held: stale). */
const heldHere = new Set<string>()

/**
 * Whether a holder is a live run. Of another host: assumed (it cannot be checked). Of this host: its process runs
 * and is the one that wrote the lock: not this process unless it holds that very lock (a pid reused after a crash:
 * in a container every run is pid 1, tester19 F4), and not a process started after the lock was taken (its recorded
 * `start` differs, or, for a lock without one, it started after `since`).
 */
export const holderLive = (h: ImportLockHolder, host: string = os.hostname(), text?: string): boolean => {
  if (h.host !== host) return true
  if (!Number.isSafeInteger(h.pid) || h.pid <= 0) return false
  if (h.pid === process.pid) return text !== undefined && heldHere.has(text)
  if (!processAlive(h.pid)) return false
  if (h.start !== undefined) {
    const now = processStart(h.pid)
    return now === undefined || now === h.start
  }
  const started = startedAtMs(h.pid)
  const since = Date.parse(h.since)
  return started === undefined || Number.isNaN(since) || started <= since + START_SLACK_MS
}

/** A lock file's holder; null when it is not a lock this code wrote (then: stale, once old enough to not be half made). */
const parseHolder = (text: string): ImportLockHolder | null => {
  try {
    const v = JSON.parse(text) as Record<string, unknown>
    if (typeof v.pid !== "number" || typeof v.host !== "string" || typeof v.since !== "string") return null
    return { pid: v.pid, host: v.host, since: v.since, watch: v.watch === true, start: typeof v.start === "string" ? v.start : undefined }
  } catch {
    return null
  }
}

/** The lock is another live run's (retried). */
class Held {
  readonly _tag = "Held"
  constructor(readonly holder: ImportLockHolder) {}
}

/**
 * Errors of the file system that mean "no lock can be made here" (a read-only folder, a full disk): the run goes on
 * without one, and its first write to the index fails as the index's store errors say (read-only, disk full: exit 6).
 */
const CANNOT_LOCK = new Set(["EROFS", "EACCES", "EPERM", "ENOSPC", "EDQUOT"])

/**
 * An index's import lock (one per writing layer): `acquire` takes it
 * (waiting for a live holder, taking over a stale one; once held, again
 * is a no-op), `release` removes it (a no-op when not held).
 */
export interface ImportLock {
  /** Take the lock. Answers whether it was taken now (false: held already, or none can be made here). */
  readonly acquire: Effect.Effect<boolean, StoreUnavailable>
  /** Remove the lock if held. */
  readonly release: Effect.Effect<void>
  /** Whether this run holds the lock now. */
  readonly held: () => boolean
}

/**
 * The import lock of the index `file` (see the module). Fails
 * `StoreUnavailable` (`details.reason` `import-running`, with the holder's
 * `pid`, `host`, `since`, `watch`) when a live holder outlasts the wait.
 */
export const importLock = (file: string, options: ImportLockOptions = {}): ImportLock => {
  const lockPath = lockPathOf(file)
  const wait = options.wait ?? DEFAULT_LOCK_WAIT
  const host = os.hostname()
  let held = false
  /** No lock can be made beside the index (a read-only folder): not tried again until `release`. */
  let none = false
  let content = ""

  const removeOwn = () => {
    if (!held) return
    held = false
    try {
      // Only ours: a lock another run took over after we were thought dead is left alone.
      heldHere.delete(content)
      if (fs.readFileSync(lockPath, "utf8") === content) fs.unlinkSync(lockPath)
    } catch {
      // Gone already, or the folder failing: a lock of a process that ended is stale.
    }
  }
  const onExit = () => removeOwn()

  /** One attempt: taken, none possible here, or held by another (`Held`). */
  const tryTake = (): "taken" | "none" | Held => {
    const start = processStart(process.pid)
    content = JSON.stringify({
      pid: process.pid,
      host,
      since: new Date().toISOString(),
      watch: options.watch === true,
      ...(start !== undefined ? { start } : {})
    })
    const tmp = `${lockPath}.${process.pid}.${randomBytes(4).toString("hex")}`
    try {
      fs.writeFileSync(tmp, content, { flag: "wx", mode: 0o644 })
    } catch (e) {
      try {
        fs.unlinkSync(tmp) // made, but not written (a full disk)
      } catch {
        // Never made.
      }
      if (CANNOT_LOCK.has(String((e as { code?: unknown }).code))) return "none"
      throw e
    }
    try {
      for (;;) {
        try {
          fs.linkSync(tmp, lockPath)
          heldHere.add(content)
          return "taken"
        } catch (e) {
          if ((e as { code?: unknown }).code !== "EEXIST") {
            if (CANNOT_LOCK.has(String((e as { code?: unknown }).code))) return "none"
            throw e
          }
        }
        let text: string
        try {
          text = fs.readFileSync(lockPath, "utf8")
        } catch (e) {
          if ((e as { code?: unknown }).code === "ENOENT") continue // released meanwhile: again
          throw e
        }
        const holder = parseHolder(text)
        if (holder !== null && holderLive(holder, host, text)) return new Held(holder)
        // Stale (its process is gone) or not a lock of ours: moved aside (rename is atomic: of two runs taking it
        // over, one moves it), then checked to be the one read, else put back.
        const aside = `${lockPath}.stale.${process.pid}`
        try {
          fs.renameSync(lockPath, aside)
        } catch (e) {
          if ((e as { code?: unknown }).code === "ENOENT") continue
          throw e
        }
        const moved = fs.readFileSync(aside, "utf8")
        if (moved !== text) {
          try {
            fs.linkSync(aside, lockPath)
          } catch {
            // Another run took it meanwhile: theirs stands.
          }
        }
        fs.unlinkSync(aside)
      }
    } finally {
      try {
        fs.unlinkSync(tmp)
      } catch {
        // Not there: nothing to remove.
      }
    }
  }

  let told = false
  const attempt = Effect.suspend((): Effect.Effect<boolean, Held | StoreUnavailable> => {
    try {
      const r = tryTake()
      if (r instanceof Held) return Effect.fail(r)
      if (r === "none") {
        none = true
        return Effect.succeed(false)
      }
      held = true
      process.once("exit", onExit)
      return Effect.succeed(true)
    } catch (e) {
      return Effect.fail(
        new StoreUnavailable({
          message: `The import lock ${lockPath} of the index ${file} cannot be made: ${(e as Error).message}`,
          remediation: "Check that the index's folder is writable and has space.",
          details: { index: file, lock: lockPath, reason: "import-lock" }
        })
      )
    }
  })

  const acquire: Effect.Effect<boolean, StoreUnavailable> = Effect.suspend(() => {
    if (held || none) return Effect.succeed(false)
    told = false
    return attempt.pipe(
      Effect.tapError((e) =>
        e instanceof Held && !told && options.onWait !== undefined
          ? Effect.suspend(() => {
            told = true
            return options.onWait!(e.holder, wait)
          })
          : Effect.void
      ),
      Effect.retry({ while: (e) => e instanceof Held, schedule: Schedule.spaced(POLL).pipe(Schedule.upTo(wait)) }),
      Effect.catchIf((e): e is Held => e instanceof Held, (e) => {
        const h = e.holder
        return Effect.fail(
          new StoreUnavailable({
            message: `The index ${file} is being written by ${describeHolder(h)}; it was still writing after ${
              Duration.format(wait)
            } of waiting, and nothing was imported.`,
            remediation:
              `Let that import finish (or stop it), then run import again; SESSION_INGEST_IMPORT_WAIT_SECONDS sets how long an import waits. ` +
              (h.host === host
                ? `A lock whose process is gone is taken over by itself.`
                : `A lock whose process is gone is taken over by itself; one of another host (${h.host}) is not checked: ` +
                  `once no import runs there, delete ${lockPath}.`),
            details: { index: file, lock: lockPath, reason: "import-running", pid: h.pid, host: h.host, since: h.since, watch: h.watch }
          })
        )
      })
    )
  })

  const release = Effect.sync(() => {
    none = false
    if (!held) return
    removeOwn()
    process.removeListener("exit", onExit)
  })

  return { acquire, release, held: () => held }
}

/** A holder in words: "another import (pid N on HOST, since T)" or "an `import --watch` (pid N on HOST, since T)". */
export const describeHolder = (h: ImportLockHolder): string =>
  `${h.watch ? "an `import --watch`" : "another import"} (pid ${h.pid} on ${h.host}, since ${h.since})`

/**
 * The live run holding the import lock of the index `file` now (see
 * {@link holderLive}: of another host, assumed live), or null: no lock, one
 * whose process is gone (`kill -9`, a crash) or not a lock of ours. Only reads
 * the lock file; never takes, moves or removes it. `push` uses it to tell a
 * source being imported from one whose import stopped part-way.
 */
export const liveImport = (file: string): ImportLockHolder | null => {
  let text: string
  try {
    text = fs.readFileSync(lockPathOf(file), "utf8")
  } catch {
    return null
  }
  const holder = parseHolder(text)
  return holder !== null && holderLive(holder, os.hostname(), text) ? holder : null
}
