/**
 * Storage failures as a user meets them, on real small file systems (tmpfs):
 * a disk that fills up during `import` or `export --out`, an index on a
 * read-only mount or without write permission, a damaged or locked index,
 * and `--state` pointed at another program's database. Every failure is a
 * typed error (one line naming the problem, one with the remedy, the
 * envelope under `--json`), never a stack trace; the index stays consistent.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { storeFiles, UID } from "../agentmux/fixture.js"
import { createStore } from "../agentmux/store-helper.js"
import { dumpIndex, importOnce } from "../support/index.js"
import { fixturesDir, snapshotTree, tempDir } from "../support/paths.js"
import { cliAsync as cli } from "../support/run.js"
import { remount, tmpfs } from "../support/tmpfs.js"

const noStackTrace = (s: string) => {
  expect(s).not.toMatch(/\n\s+at [\w.<]/)
  expect(s).not.toMatch(/SqlError|SqliteError|Failed to (prepare|execute) statement/)
}

/** The text-mode error of the CLI: exactly one problem line and one remedy line on stderr, nothing on stdout. */
const oneErrorLine = (r: { stdout: string; stderr: string }, code: string) => {
  expect(r.stdout).toBe("")
  expect(r.stderr).toMatch(new RegExp(`^session-ingest: ${code}: [^\\n]+\\n  remedy: [^\\n]+\\n$`))
  noStackTrace(r.stderr)
}

/** The `--json` error envelope (the only thing on stdout). */
const envelopeError = (r: { stdout: string; stderr: string }, command: string) => {
  const env = JSON.parse(r.stdout)
  expect(env).toMatchObject({ contractVersion: "1.3.0", command, status: "error", data: null })
  noStackTrace(r.stdout + r.stderr)
  return env.error as { code: string; message: string; remediation: string; details: any }
}

/**
 * A Muse agents root with one agent whose transcript holds `lines` messages
 * of about `width` bytes (session id `sess-big`).
 */
const bigAgents = (lines: number, width = 600) => {
  const root = path.join(tempDir("si-big-"), "agents")
  const dir = path.join(root, "big", "sessions")
  fs.mkdirSync(dir, { recursive: true })
  const out = [JSON.stringify({ type: "session_header", session_id: "sess-big", agent_id: "big", created_at: "2025-03-01T08:00:00Z" })]
  for (let i = 1; i <= lines; i++) {
    const text = `message ${i} `.repeat(Math.ceil(width / 12)).slice(0, width)
    const at = new Date(Date.UTC(2025, 2, 1, 8, 0, 0) + i * 1000).toISOString()
    out.push(JSON.stringify({ type: "item", seq: i, source: "runtime", item: { type: "message", role: i % 2 ? "user" : "assistant", text }, created_at: at }))
  }
  fs.writeFileSync(path.join(dir, "big.jsonl"), out.join("\n") + "\n")
  return root
}

const agentsFixture = path.join(fixturesDir, "muse-agents", "agents")

const importArgs = (index: string, agentsRoot: string) => ["import", "--index", index, "--agents-root", agentsRoot, "--workspace", path.dirname(agentsRoot)]

let agentsImport: Promise<string> | undefined
/**
 * The bundled Muse agents fixtures imported by the CLI, once for this file, into a file nothing else opens; the
 * cases that need such an index (to read, damage, lock, mount read-only) get a copy of it at `to`, byte for byte the
 * index that import writes there.
 */
const importedAgentsAt = async (to: string): Promise<string> => {
  agentsImport ??= (async () => {
    const index = path.join(tempDir("si-agents-ix-"), "index.db")
    expect((await cli(importArgs(index, agentsFixture))).code).toBe(0)
    // The import leaves the index whole in one file (rollback journal): a copy of it is the index.
    expect(fs.readdirSync(path.dirname(index))).toEqual(["index.db"])
    return index
  })()
  fs.copyFileSync(await agentsImport, to)
  return to
}

describe("a full disk", () => {
  it("import on a 2 MiB disk: STORE_UNAVAILABLE (exit 6) naming the full disk, the envelope with --json; with space, a re-run converges to an uninterrupted import", async () => {
    const root = bigAgents(3000)
    const reference = path.join(tempDir(), "reference.db")
    const disk = tmpfs("2m")
    const index = path.join(disk, "index.db")
    // The uninterrupted import (the reference) beside the one on the small disk: the source is only read.
    const [ref, text] = await Promise.all([cli(importArgs(reference, root)), cli(importArgs(index, root))])
    expect(ref.code).toBe(0)
    expect(text.code).toBe(6)
    oneErrorLine(text, "STORE_UNAVAILABLE")
    expect(text.stderr).toMatch(/disk is full/)
    expect(text.stderr).toContain(index)
    expect(text.stderr).toMatch(/remedy: Free space .*--index/)

    const json = await cli([...importArgs(index, root), "--json"])
    expect(json.code).toBe(6)
    const e = envelopeError(json, "import")
    expect(e.code).toBe("STORE_UNAVAILABLE")
    expect(e.message).toMatch(/disk is full/)
    expect(e.details).toMatchObject({ reason: "disk-full", file: index })

    // Space freed: what was committed is whole (batches are transactions), and a re-run completes it.
    remount(disk, "size=64m")
    const partial = await Effect.runPromise(dumpIndex(index))
    const expected = await Effect.runPromise(dumpIndex(reference))
    expect(partial.events.length).toBeLessThan(expected.events.length)
    // Whole batches (500 events, the default) only, each row as the uninterrupted import has it.
    expect(partial.events.length % 500).toBe(0)
    const byUid = new Map(expected.events.map((e: any) => [e.event_uid, e]))
    for (const e of partial.events as Array<any>) expect(e).toEqual(byUid.get(e.event_uid))
    const again = await cli(importArgs(index, root))
    expect(again.code).toBe(0)
    const got = await Effect.runPromise(dumpIndex(index))
    expect(got.events).toEqual(expected.events)
    expect(got.sessions).toEqual(expected.sessions)
    expect(got.sources).toEqual(expected.sources)
  }, 120_000)

  it.effect("the library: the importer fails with StoreUnavailable (a typed failure, not a defect) on a full disk", () =>
    Effect.gen(function*() {
      const root = bigAgents(1500)
      const disk = tmpfs("1m")
      const policy = { workspaceRoots: [path.dirname(root)], museRoots: [], agentsRoot: root }
      const exit = yield* Effect.exit(importOnce(policy, path.join(disk, "i.db"), planFromPolicy(policy, { batchSize: 200 })))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        expect(exit.cause._tag).toBe("Fail")
        const e = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        expect(e).toMatchObject({ _tag: "StoreUnavailable", details: { reason: "disk-full" } })
      }
    }), 60_000)

  it("export --out on a full disk, every format: OUTPUT_WRITE_FAILED (exit 7) naming ENOSPC and the path, no file left; the retry writes it", async () => {
    const root = bigAgents(2000)
    const index = path.join(tempDir(), "i.db")
    expect((await cli(importArgs(index, root))).code).toBe(0)
    // The formats side by side (each on its own disks), the one index only read.
    await Promise.all(["atif", "ndjson"].map(async (format) => {
      const whole = await cli(["export", "sess-big", "--format", format, "--index", index])
      expect(whole.code).toBe(0)
      expect(whole.stdout.length).toBeGreaterThan(256 * 1024)
      for (const json of [false, true]) {
        const disk = tmpfs("128k")
        const out = path.join(disk, `sess-big.${format}`)
        const r = await cli(["export", "sess-big", "--format", format, "--out", out, "--index", index, ...(json ? ["--json"] : [])])
        expect(r.code).toBe(7)
        if (json) {
          const e = envelopeError(r, "export")
          expect(e.code).toBe("OUTPUT_WRITE_FAILED")
          expect(e.message).toContain(out)
          expect(e.message).toMatch(/ENOSPC/)
          expect(e.details).toMatchObject({ path: out, code: "ENOSPC", reason: "disk-full" })
        } else {
          oneErrorLine(r, "OUTPUT_WRITE_FAILED")
          expect(r.stderr).toContain(out)
          expect(r.stderr).toMatch(/disk is full \(ENOSPC/)
          expect(r.stderr).toMatch(/remedy: Free space .*--out/)
        }
        // Nothing at the path, nothing beside it: the retry does not meet EEXIST.
        expect(fs.readdirSync(disk)).toEqual([])
        remount(disk, "size=16m")
        const retry = await cli(["export", "sess-big", "--format", format, "--out", out, "--index", index])
        expect(retry.code).toBe(0)
        expect(fs.readFileSync(out, "utf8")).toBe(whole.stdout)
        expect(fs.readdirSync(disk)).toEqual([path.basename(out)])
      }
    }))
  }, 120_000)

  it("export --out never overwrites: an existing file is refused before anything is written, and left as it was", async () => {
    const dir = tempDir()
    const index = await importedAgentsAt(path.join(dir, "i.db"))
    const out = path.join(dir, "out")
    fs.mkdirSync(out)
    fs.writeFileSync(path.join(out, "t.json"), "keep me\n")
    for (const format of ["atif", "ndjson"]) {
      const r = await cli(["export", "sess-cron", "--format", format, "--out", path.join(out, "t.json"), "--index", index])
      expect(r.code).toBe(2)
      oneErrorLine(r, "INVALID_ARGUMENT")
      expect(r.stderr).toMatch(/already exists/)
      expect(fs.readdirSync(out)).toEqual(["t.json"])
      expect(fs.readFileSync(path.join(out, "t.json"), "utf8")).toBe("keep me\n")
    }
    // A missing folder names the write failure, not the argument.
    const missing = await cli(["export", "sess-cron", "--out", path.join(dir, "no", "such", "t.json"), "--index", index, "--json"])
    expect(missing.code).toBe(7)
    expect(envelopeError(missing, "export")).toMatchObject({ code: "OUTPUT_WRITE_FAILED", details: { code: "ENOENT" } })
  })

  it("stdout that cannot be written (redirected to a full device): OUTPUT_WRITE_FAILED (exit 7) on stderr, not a silent exit 0", async () => {
    const index = await importedAgentsAt(path.join(tempDir(), "i.db"))
    const full = fs.openSync("/dev/full", "w")
    try {
      for (
        const args of [
          ["export", "sess-cron", "--index", index],
          ["export", "sess-cron", "--format", "ndjson", "--index", index],
          ["sessions", "--json", "--index", index],
          ["show", "sess-cron", "--index", index],
          ["stream", "muse-code", path.join(fixturesDir, "muse-code", "export", "orderly.json")]
        ]
      ) {
        const r = await cli(args, { stdout: full })
        expect({ args, code: r.code }).toEqual({ args, code: 7 })
        expect(r.stderr).toMatch(/^session-ingest: OUTPUT_WRITE_FAILED: Cannot write to standard output: the disk is full \(ENOSPC[^\n]*\n  remedy: [^\n]+\n$/)
      }
    } finally {
      fs.closeSync(full)
    }
  })

  it("the AgentMux scan state on a full disk: discover is STORE_UNAVAILABLE naming the full disk, no stack trace", async () => {
    const dir = tempDir()
    const store = path.join(dir, "transcripts", "filestore.db")
    fs.mkdirSync(path.dirname(store))
    createStore(store, storeFiles(), { wal: true })
    const disk = tmpfs("256k")
    try {
      fs.writeFileSync(path.join(disk, "filler"), Buffer.alloc(512 * 1024))
    } catch (e) {
      expect((e as NodeJS.ErrnoException).code).toBe("ENOSPC")
    }
    const r = await cli(["discover", "agentmux", "--agent", UID, "--store", store, "--state", path.join(disk, "state.db"), "--json"])
    expect(r.code).toBe(6)
    const e = envelopeError(r, "discover")
    expect(e.code).toBe("STORE_UNAVAILABLE")
    expect(e.message).toMatch(/scan state .*disk is full/)
    expect(e.remediation).toMatch(/--state/)
  })
})

const readCommands = {
  sessions: ["sessions"],
  sessionsJson: ["sessions", "--json"],
  events: ["show", "sess-cron"],
  transcript: ["show", "sess-cron", "--format", "transcript", "--json"],
  markdown: ["show", "sess-cron", "--format", "markdown"],
  atif: ["export", "sess-cron", "--format", "atif"],
  ndjson: ["export", "sess-cron", "--format", "ndjson"]
}
type Reads = Record<keyof typeof readCommands, { code: number | null; stdout: string; stderr: string }>

/** Every read command on `index` (side by side: they only read), its exit code and output. */
const reads = async (index: string, env?: Record<string, string>, uid?: number): Promise<Reads> => {
  const keys = Object.keys(readCommands) as Array<keyof typeof readCommands>
  const got = await Promise.all(keys.map((k) => cli([...readCommands[k], "--index", index], { env, uid })))
  return Object.fromEntries(keys.map((k, i) => [k, { code: got[i].code, stdout: got[i].stdout, stderr: got[i].stderr }])) as Reads
}

let fixtureReads: Promise<Reads> | undefined
/**
 * What every read command answers on a writable copy of the imported fixtures (run once for this file): the
 * reference the read-only cases compare with, each over its own copy of the same index.
 */
const readsOfAgentsImport = (): Promise<Reads> =>
  fixtureReads ??= (async () => {
    const r = await reads(await importedAgentsAt(path.join(tempDir(), "index.db")))
    expect(r.sessions.code).toBe(0)
    return r
  })()

const expectSameReads = (got: Reads, want: Reads) => {
  for (const k of Object.keys(want) as Array<keyof typeof want>) {
    expect({ k, code: got[k].code, stderr: got[k].stderr }).toEqual({ k, code: 0, stderr: want[k].stderr })
    expect(got[k].stdout).toBe(want[k].stdout)
  }
}

/** Leave `file` in WAL mode, as an older session-ingest (or an interrupted import) did. */
const leaveInWal = (file: string) => {
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  db.close()
  expect(fs.readFileSync(file)[18]).toBe(2)
}

describe("a read-only index", () => {
  it("on a read-only mount: every read command works and answers as before; an import with nothing to write answers, one with something to write says read-only (exit 6)", async () => {
    const disk = tmpfs("16m")
    const index = await importedAgentsAt(path.join(disk, "index.db"))
    const before = await readsOfAgentsImport()
    const listing = snapshotTree(disk)
    remount(disk, "ro")
    try {
      expectSameReads(await reads(index), before)
      expect(snapshotTree(disk)).toEqual(listing)
      // An import with nothing to write (every source unchanged) writes nothing, so it answers as on a writable index.
      const same = await cli(importArgs(index, agentsFixture))
      expect(same.code).toBe(0)
      expect(same.stdout).toMatch(/unchanged/)
      expect(snapshotTree(disk)).toEqual(listing)
      // One with something to write (a new source) says the index is read-only.
      const imp = await cli(importArgs(index, bigAgents(10)))
      expect(imp.code).toBe(6)
      oneErrorLine(imp, "STORE_UNAVAILABLE")
      expect(imp.stderr).toMatch(/read-only/)
      expect(imp.stderr).toMatch(/remedy: .*writ/)
    } finally {
      remount(disk, "rw")
    }
    // An index left in WAL mode (no -shm beside it) reads on a read-only mount too.
    leaveInWal(index)
    expect(fs.readdirSync(disk)).toEqual(["index.db"])
    remount(disk, "ro")
    try {
      expectSameReads(await reads(index), before)
      // Where that copy cannot be made (TMPDIR missing), the error names the temporary folder, not the index.
      const noTmp = await cli(["sessions", "--index", index], { env: { TMPDIR: path.join(disk, "no-such-tmp") } })
      expect(noTmp.code).toBe(6)
      oneErrorLine(noTmp, "STORE_UNAVAILABLE")
      expect(noTmp.stderr).toContain(`A temporary copy of the read-only index ${path.join(disk, "no-such-tmp")}`)
      expect(noTmp.stderr).toMatch(/remedy: .*set TMPDIR to a folder you can write/)
    } finally {
      remount(disk, "rw")
    }
  }, 120_000)

  it("without write permission (run as an unprivileged user): every read command works; import says read-only (exit 6)", async () => {
    // Root ignores permission bits: the commands run as `nobody`, over folders it may enter but not write.
    const base = tempDir("si-perm-")
    for (let d = base; d !== path.dirname(d) && d.startsWith(os.tmpdir()); d = path.dirname(d)) {
      fs.chmodSync(d, fs.statSync(d).mode | 0o011)
    }
    const home = path.join(base, "home")
    const tmp = path.join(base, "tmp")
    fs.mkdirSync(home)
    fs.mkdirSync(tmp)
    fs.chmodSync(home, 0o777)
    fs.chmodSync(tmp, 0o777)
    const newSource = bigAgents(10)
    for (let d = newSource; d !== path.dirname(d) && d.startsWith(os.tmpdir()); d = path.dirname(d)) {
      fs.chmodSync(d, fs.statSync(d).mode | 0o005)
    }
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), XDG_DATA_HOME: path.join(home, ".data"), TMPDIR: tmp }
    for (const wal of [false, true]) {
      const folder = path.join(base, wal ? "wal" : "rollback")
      fs.mkdirSync(folder)
      const index = await importedAgentsAt(path.join(folder, "index.db"))
      if (wal) leaveInWal(index)
      const before = await readsOfAgentsImport()
      fs.chmodSync(index, 0o444)
      fs.chmodSync(folder, 0o555)
      const listing = snapshotTree(folder)
      expectSameReads(await reads(index, env, 65534), before)
      expect(snapshotTree(folder)).toEqual(listing)
      // An import with something to write (a new source) says the index is read-only.
      const imp = await cli(importArgs(index, newSource), { env, uid: 65534 })
      expect(imp.code).toBe(6)
      oneErrorLine(imp, "STORE_UNAVAILABLE")
      expect(imp.stderr).toMatch(/read-only/)
      fs.chmodSync(folder, 0o755)
    }
  }, 120_000)
})

describe("a damaged or busy index", () => {
  it("a damaged index: every command is STORE_UNAVAILABLE naming the damage, with a remedy, never a SQL error", async () => {
    const index = await importedAgentsAt(path.join(tempDir(), "i.db"))
    // Keep the header page (the file is still ours), garble every page after it.
    const size = fs.statSync(index).size
    const fd = fs.openSync(index, "r+")
    fs.writeSync(fd, Buffer.alloc(size - 16384, 0xa5), 0, size - 16384, 16384)
    fs.closeSync(fd)
    for (const args of [["sessions"], ["show", "sess-cron"], ["export", "sess-cron"], importArgs(index, agentsFixture).slice(1)]) {
      const cmd = args[0] === "--index" ? ["import", ...args] : [...args, "--index", index]
      const r = await cli(cmd)
      expect({ cmd: cmd[0], code: r.code }).toEqual({ cmd: cmd[0], code: 6 })
      oneErrorLine(r, "STORE_UNAVAILABLE")
      expect(r.stderr).toMatch(/damaged/)
    }
  }, 60_000)

  it("an index another process holds locked: import is STORE_UNAVAILABLE saying so, never a SQL error", async () => {
    const index = await importedAgentsAt(path.join(tempDir(), "i.db"))
    const db = new Database(index)
    try {
      db.exec("BEGIN EXCLUSIVE")
      const r = await cli([...importArgs(index, agentsFixture), "--json"])
      expect(r.code).toBe(6)
      const e = envelopeError(r, "import")
      expect(e.code).toBe("STORE_UNAVAILABLE")
      expect(e.details.reason).toBe("locked")
      expect(e.message).toMatch(/locked/)
    } finally {
      db.close()
    }
  }, 60_000)
})

describe("--state at another program's database", () => {
  it("discover and transcript refuse it (exit 6), import leaves AgentMux out (exit 8), before anything is written beside it", async () => {
    const dir = tempDir()
    const store = path.join(dir, "transcripts", "filestore.db")
    fs.mkdirSync(path.dirname(store))
    createStore(store, storeFiles(), { wal: true })
    const other = path.join(dir, "other")
    fs.mkdirSync(other)
    const foreign = path.join(other, "app.db")
    const db = new Database(foreign)
    db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')")
    db.close()
    fs.writeFileSync(path.join(other, "notes.txt"), "not a database, but long enough to have a header.....................................\n")
    const listing = snapshotTree(other)
    const storeListing = snapshotTree(path.dirname(store))
    for (const state of [foreign, path.join(other, "notes.txt"), store]) {
      for (
        const args of [
          ["discover", "agentmux", "--agent", UID],
          ["transcript", "agentmux", "--agent", UID, "--session", "S-A"],
          ["import", "--index", path.join(dir, "i.db"), "--agent", UID, "--workspace", dir]
        ]
      ) {
        const r = await cli([...args, "--store", store, "--state", state, "--json"])
        noStackTrace(r.stdout + r.stderr)
        if (args[0] === "import") {
          // The run goes on without AgentMux: partial coverage (exit 8), the refusal as the remedy.
          expect({ state, code: r.code }).toEqual({ state, code: 8 })
          const report = JSON.parse(r.stdout).data
          expect(report.providers.find((p: any) => p.provider === "agentmux")).toMatchObject({ status: "unavailable", reasonCode: "STORE_UNAVAILABLE" })
          expect(report.remediations.join("\n")).toContain(`Refusing to use ${state}`)
        } else {
          expect({ args: args[0], state, code: r.code }).toEqual({ args: args[0], state, code: 6 })
          const e = envelopeError(r, args[0])
          expect(e.code).toBe("STORE_UNAVAILABLE")
          expect(e.message).toContain(`Refusing to use ${state}`)
        }
        expect(snapshotTree(other)).toEqual(listing)
        expect(snapshotTree(path.dirname(store))).toEqual(storeListing)
      }
    }
  }, 60_000)
})
