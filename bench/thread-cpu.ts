/**
 * Where a command's processor time goes, by thread (issue 13, first import:
 * is the writing main thread or are the parse workers the bottleneck, and
 * what do V8's helper threads cost?). Runs the command, reads
 * `/proc/<pid>/task/<tid>/stat` every `INTERVAL_MS` (default 50) until it
 * exits, and prints each thread's user and system time (the last reading of
 * a thread that ended before the process; a thread that lived less than one
 * interval is missed) and when it was first seen busy, the process's wall
 * time and exit code, and, with
 * `TIMELINE=1`, the CPU seconds of each thread in each second of the run
 * (a thread that sits near 0 while another is busy waits for it). Linux
 * only; the threads are told apart by tid and by order of start (Node names
 * them all `node`): the first is the main thread, and for an `import`, the
 * two or more that run seconds of CPU besides it are the parse workers, the
 * rest V8's and libuv's helpers (compilation, garbage collection, the file
 * system's thread pool). Writes nothing but stdout.
 *
 * `npx tsx bench/thread-cpu.ts -- node bin/session-ingest.mjs import --index I ...`
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"

const at = process.argv.indexOf("--")
const command = at < 0 ? [] : process.argv.slice(at + 1)
if (command.length === 0) {
  process.stderr.write("usage: npx tsx bench/thread-cpu.ts -- COMMAND [ARGS...]\n")
  process.exit(2)
}
const intervalMs = Number(process.env.INTERVAL_MS ?? "50")
/** Clock ticks a second (`getconf CLK_TCK`: 100 on Linux x86-64 and arm64). */
const TICKS = 100

interface Reading {
  readonly user: number
  readonly system: number
}

/** utime and stime of each thread of `pid` now, in ticks (fields 14 and 15 of `stat`, after the `(comm)` field). */
const readThreads = (pid: number): Map<number, Reading> => {
  const out = new Map<number, Reading>()
  let tids: Array<string>
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`)
  } catch {
    return out
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      out.set(Number(tid), { user: Number(fields[11]), system: Number(fields[12]) })
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out
}

const t0 = performance.now()
const child = spawn(command[0], command.slice(1), { stdio: ["ignore", "ignore", "inherit"] })
const last = new Map<number, Reading>()
/** When each thread was first seen with processor time (s after the start). */
const firstBusy = new Map<number, number>()
const perSecond = new Map<number, Map<number, number>>()
const timer = setInterval(() => {
  if (child.pid === undefined) return
  const second = Math.floor((performance.now() - t0) / 1000)
  for (const [tid, r] of readThreads(child.pid)) {
    const before = last.get(tid)
    const ticks = r.user + r.system - (before === undefined ? 0 : before.user + before.system)
    last.set(tid, r)
    if (ticks === 0) continue
    if (!firstBusy.has(tid)) firstBusy.set(tid, (performance.now() - t0) / 1000)
    let m = perSecond.get(second)
    if (m === undefined) perSecond.set(second, m = new Map())
    m.set(tid, (m.get(tid) ?? 0) + ticks)
  }
}, intervalMs)

child.on("exit", (code, signal) => {
  clearInterval(timer)
  const wall = (performance.now() - t0) / 1000
  const tids = [...last.keys()].sort((a, b) => a - b)
  let user = 0, system = 0
  process.stdout.write("tid        user s   system s   busy from s\n")
  for (const tid of tids) {
    const r = last.get(tid)!
    user += r.user
    system += r.system
    if (r.user + r.system === 0) continue
    process.stdout.write(`${String(tid).padEnd(10)} ${(r.user / TICKS).toFixed(2).padStart(7)} ${(r.system / TICKS).toFixed(2).padStart(10)} ${(firstBusy.get(tid) ?? 0).toFixed(2).padStart(13)}\n`)
  }
  process.stdout.write(`all        ${(user / TICKS).toFixed(2).padStart(7)} ${(system / TICKS).toFixed(2).padStart(10)}\n`)
  process.stdout.write(`wall ${wall.toFixed(2)} s, exit ${code ?? signal}, load ${loadNow()}\n`)
  if (process.env.TIMELINE === "1") {
    process.stdout.write(`second: CPU s of each thread (${tids.join(" ")})\n`)
    for (const [second, m] of [...perSecond].sort((a, b) => a[0] - b[0])) {
      process.stdout.write(`${String(second).padStart(4)}: ${tids.map((t) => ((m.get(t) ?? 0) / TICKS).toFixed(2)).join(" ")}\n`)
    }
  }
})

/** The 1-minute load average (the machine's business while this ran). */
function loadNow(): string {
  return fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]
}
