/**
 * A killed import's lock whose pid was reused (tester19 F4): in a container
 * every run is pid 1, so the lock of a `kill -9`'d run names the next run's
 * own pid; elsewhere the pid may now be another process's. docs/import.md: "A lock
 * whose process is gone (`kill -9`, a crash) is taken over at once". A lock
 * naming this very process (which does not hold it), or a live process that
 * started after the lock was taken, is stale: taken over without a wait. A
 * live holder (the process that wrote it) is still waited for, and a lock
 * this process holds is not taken by a second lock of the same index.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { afterAll, describe, expect, it } from "vitest"
import { importLock, lockPathOf, processStart } from "../../src/layers/index/import-lock.js"
import { tempDir } from "../support/paths.js"

const children: Array<ChildProcess> = []
/** A live process started now (stopped after the tests). */
const live = (): number => {
  const p = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" })
  children.push(p)
  return p.pid!
}
afterAll(() => {
  for (const p of children) p.kill("SIGKILL")
})

/** An index path in a new folder with `lock` written as its import lock. */
const lockedIndex = (lock: Record<string, unknown>): string => {
  const index = path.join(tempDir("si-lock-reuse-"), "i.db")
  fs.writeFileSync(lockPathOf(index), JSON.stringify(lock))
  return index
}

/** Take the lock of `index` (waiting at most 2 s): whether it was taken, and whether a wait was told. */
const take = (index: string) =>
  Effect.runPromise(Effect.gen(function*() {
    let waited = false
    const lock = importLock(index, { wait: Duration.seconds(2), onWait: () => Effect.sync(() => void (waited = true)) })
    const taken = yield* Effect.either(lock.acquire)
    return { taken: taken._tag === "Right" && taken.right, waited, lock, error: taken._tag === "Left" ? taken.left : undefined }
  }))

const host = os.hostname()
const hasProc = fs.existsSync(`/proc/${process.pid}/stat`)

describe("a stale import lock whose pid was reused (tester19 F4)", () => {
  it("a lock naming this very process, which does not hold it, is taken over at once", async () => {
    const index = lockedIndex({ pid: process.pid, host, since: new Date().toISOString(), watch: false })
    const r = await take(index)
    expect(r).toMatchObject({ taken: true, waited: false })
    expect(JSON.parse(fs.readFileSync(lockPathOf(index), "utf8")).pid).toBe(process.pid)
    // Held now: a second lock of the same index in this process waits for it, then names it.
    const second = await take(index)
    expect(second.taken).toBe(false)
    expect(second.waited).toBe(true)
    expect(second.error?.details).toMatchObject({ reason: "import-running", pid: process.pid, host })
    expect(second.error?.remediation).not.toContain("another host")
    await Effect.runPromise(r.lock.release)
    expect(fs.existsSync(lockPathOf(index))).toBe(false)
  })

  it.runIf(hasProc)("a lock (without a recorded start) naming a live process started after the lock's since is taken over at once", async () => {
    const index = lockedIndex({ pid: live(), host, since: new Date(Date.now() - 60_000).toISOString(), watch: false })
    expect(await take(index)).toMatchObject({ taken: true, waited: false })
  })

  it.runIf(hasProc)("a lock whose recorded start is not its live pid's is taken over at once; the real holder's is waited for", async () => {
    const pid = live()
    const start = processStart(pid)!
    expect(start).toMatch(/\/\d+$/)
    const reused = lockedIndex({ pid, host, since: new Date().toISOString(), watch: false, start: `${start}0` })
    expect(await take(reused)).toMatchObject({ taken: true, waited: false })
    const holder = lockedIndex({ pid, host, since: new Date().toISOString(), watch: false, start })
    const r = await take(holder)
    expect(r).toMatchObject({ taken: false, waited: true })
    expect(r.error?.details).toMatchObject({ reason: "import-running", pid })
  })

  it("a lock taken records this process's start (Linux), so that a later process with its pid is told apart", async () => {
    const index = path.join(tempDir("si-lock-reuse-"), "i.db")
    const r = await take(index)
    expect(r.taken).toBe(true)
    const lock = JSON.parse(fs.readFileSync(lockPathOf(index), "utf8"))
    expect(lock.start).toBe(hasProc ? processStart(process.pid) : undefined)
    await Effect.runPromise(r.lock.release)
  })
})
