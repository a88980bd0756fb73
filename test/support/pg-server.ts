/**
 * A throwaway PostgreSQL server for the team-index tests: Debian's server
 * binaries (`/usr/lib/postgresql/<version>/bin`, package `postgresql`, which
 * `.ci/run` installs when missing) run from a temporary folder on a free
 * local port, started once by the vitest global setup and stopped at its end.
 * Never a mock: the tests talk to a real server.
 *
 * PostgreSQL refuses to run as root: when the tests run as root, `initdb` and
 * `postgres` run as the `postgres` OS user (else `nobody`), with a data folder
 * it owns. Authentication is `trust` on 127.0.0.1 only.
 *
 * @module
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

/** The newest `/usr/lib/postgresql/<version>/bin` holding `initdb` and `postgres`, or why there is none. */
export const findPgBin = (): { readonly bin: string } | { readonly error: string } => {
  const root = "/usr/lib/postgresql"
  const versions = fs.existsSync(root)
    ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
    : []
  for (const v of versions) {
    const bin = path.join(root, v, "bin")
    if (fs.existsSync(path.join(bin, "initdb")) && fs.existsSync(path.join(bin, "postgres"))) return { bin }
  }
  return {
    error: `No PostgreSQL server binaries under ${root}/<version>/bin (initdb, postgres): the team-index tests need a real server. ` +
      "Install Debian's postgresql package (`apt-get install postgresql`; .ci/run does this when it is missing)."
  }
}

/** A free TCP port on 127.0.0.1 (asked of the kernel; a race with another process is retried by the caller). */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** The OS user the server runs as: ourselves, or (as root) `postgres`, else `nobody`. */
const serverUser = (): { readonly uid: number; readonly gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  for (const name of ["postgres", "nobody"]) {
    const r = spawnSync("id", ["-u", name], { encoding: "utf8" })
    const g = spawnSync("id", ["-g", name], { encoding: "utf8" })
    if (r.status === 0 && g.status === 0) return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) }
  }
  throw new Error("The tests run as root and there is neither a `postgres` nor a `nobody` user to run PostgreSQL as (it refuses root).")
}

/** A running throwaway server. */
export interface PgServer {
  /** `postgres://si@127.0.0.1:<port>/postgres` (the maintenance database). */
  readonly url: string
  readonly port: number
  /** The server's process id (its postmaster; the backends are its children). */
  readonly pid: number
  /** The server's folder (`/tmp/si-pg-*`: its data folder, sockets and log). */
  readonly base: string
  /** Stops the server (immediate shutdown) and removes its folder. */
  readonly stop: () => void
  /**
   * Starts the server again on the same data folder (no new `initdb`: a restart, with crash recovery when it was
   * killed), on a free port; stops it first when it still runs. Answers the restarted server: this one's `url`,
   * `port` and `pid` no longer apply, and either `stop` ends the restarted one. With `samePort`, on this server's
   * port (a server that comes back where its clients knew it: what a routine restart of a team's database is).
   */
  readonly restart: (options?: { readonly samePort?: boolean }) => Promise<PgServer>
}

/** Options of {@link startPgServer}. */
export interface PgServerOptions {
  /**
   * The process whose end ends the server (default: this process): a watchdog started beside the server stops it
   * and removes its folder once that process is gone, so that a test run killed (SIGKILL, a crash) leaves no
   * server nor `/tmp/si-pg-*` folder behind.
   */
  readonly owner?: number
}

/**
 * The watchdog's shell script (`$1` the owner's pid, `$2` the server's folder): waits while the owner lives and the
 * folder is there; when the owner is gone first, stops the postmaster named by `postmaster.pid` (only if that
 * process still runs on this data folder: a stale pid may be another program's now) and removes the folder.
 */
const WATCHDOG = `
while kill -0 "$1" 2>/dev/null && [ -d "$2" ]; do sleep 1; done
[ -d "$2" ] || exit 0
pid=$(head -n 1 "$2/data/postmaster.pid" 2>/dev/null)
if [ -n "$pid" ] && tr '\\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$2/data"; then
  kill -QUIT "$pid" 2>/dev/null
  i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  kill -KILL "$pid" 2>/dev/null
fi
rm -rf "$2"
`

/**
 * Start a server: `initdb` into a new folder below the system's temporary
 * folder (not `TMPDIR` of the run, which the server's user may not enter),
 * then `postgres` on a free port with fsync off (a test server), waiting
 * until it accepts connections; a watchdog stops it when `options.owner`
 * (this process) ends without stopping it. Throws, saying why, when it cannot.
 */
export const startPgServer = async (options: PgServerOptions = {}): Promise<PgServer> => {
  const found = findPgBin()
  if ("error" in found) throw new Error(found.error)
  const bin = found.bin
  const user = serverUser()
  const base = fs.mkdtempSync(path.join(fs.existsSync("/tmp") ? "/tmp" : os.tmpdir(), "si-pg-"))
  fs.chmodSync(base, 0o755)
  const data = path.join(base, "data")
  const sockets = path.join(base, "run")
  fs.mkdirSync(data, { mode: 0o700 })
  fs.mkdirSync(sockets)
  if (user !== undefined) {
    fs.chownSync(data, user.uid, user.gid)
    fs.chownSync(sockets, user.uid, user.gid)
  }
  const as = user !== undefined ? { uid: user.uid, gid: user.gid } : {}
  const init = spawnSync(path.join(bin, "initdb"), ["-D", data, "-U", "si", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"], {
    encoding: "utf8",
    cwd: base,
    ...as
  })
  if (init.status !== 0) {
    fs.rmSync(base, { recursive: true, force: true })
    throw new Error(`initdb failed (exit ${init.status}): ${init.stderr || init.error?.message}`)
  }
  spawn("sh", ["-c", WATCHDOG, "si-pg-watchdog", String(options.owner ?? process.pid), base], { stdio: "ignore", detached: true }).unref()

  const stopPid = (pid: number) => {
    try {
      process.kill(pid, "SIGQUIT")
    } catch {
      // already gone
    }
    for (let i = 0; i < 50; i++) {
      try {
        process.kill(pid, 0)
      } catch {
        break
      }
      spawnSync("sleep", ["0.1"])
    }
  }

  const launch = async (samePort?: number): Promise<PgServer> => {
    let lastError = ""
    for (let attempt = 0; attempt < (samePort !== undefined ? 20 : 5); attempt++) {
      // After a kill, the old backends may hold the shared memory (and the port) for a moment: wait a little before a retry.
      if (attempt > 0) await new Promise((r) => setTimeout(r, 300))
      const port = samePort ?? await freePort()
      const log = path.join(base, "server.log")
      const logFd = fs.openSync(log, "a")
      if (user !== undefined) fs.chownSync(log, user.uid, user.gid)
      const child = spawn(
        path.join(bin, "postgres"),
        ["-D", data, "-p", String(port), "-h", "127.0.0.1", "-k", sockets, "-c", "fsync=off", "-c", "synchronous_commit=off",
          "-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=64MB"],
        { cwd: base, stdio: ["ignore", logFd, logFd], detached: true, ...as }
      )
      fs.closeSync(logFd)
      child.unref()
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      let up = false
      for (let i = 0; i < 200 && !up; i++) {
        const done = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 100))])
        if (done) break
        up = await canConnect(port)
      }
      if (up) {
        const pid = child.pid!
        return {
          url: `postgres://si@127.0.0.1:${port}/postgres`,
          port,
          pid,
          base,
          stop: () => {
            stopPid(pid)
            fs.rmSync(base, { recursive: true, force: true })
          },
          restart: (options) => {
            stopPid(pid)
            return launch(options?.samePort === true ? port : undefined)
          }
        }
      }
      try {
        process.kill(child.pid!, "SIGKILL")
      } catch {
        // exited
      }
      lastError = fs.readFileSync(log, "utf8").split("\n").slice(-5).join("\n")
    }
    fs.rmSync(base, { recursive: true, force: true })
    throw new Error(`PostgreSQL did not start: ${lastError}`)
  }
  return launch()
}

/** Whether the server on `port` completes a startup handshake (a real connection, through `pg`). */
const canConnect = async (port: number): Promise<boolean> => {
  const { default: pg } = await import("pg")
  const client = new pg.Client({ host: "127.0.0.1", port, user: "si", database: "postgres", connectionTimeoutMillis: 1000 })
  try {
    await client.connect()
    await client.query("SELECT 1")
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}
