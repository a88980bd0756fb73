/**
 * Discovery of many listed logs has their heads read ahead on a worker
 * thread (`SourceAccessShape.listedHeadsAhead`, issue 13 item 6: 10,000
 * native sessions in < 1 s, bench figure c) while the main thread scans the
 * heads before. The heads must be the ones the main thread reads itself, in
 * the same order, for every kind of path (regular files of every size, a
 * head shorter than the worker's read, empty files, folders, fifos,
 * symlinks, missing paths), and the reads must still be done when the worker
 * cannot load or does not answer a path it took.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import { readSize } from "../../src/layers/jsonl/lines.js"
import { HeadsAhead, headWorkerEntry, headWorkerStats, sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import type { ListedHead, ListedPath } from "../../src/services/SourceAccess.js"
import type { SourceAccessError } from "../../src/domain/errors.js"
import { cli } from "../support/run.js"
import { end, filler, frame, jsonl, metadata, omission, opened, routeFacts, tempDir, writeLog } from "./native-helpers.js"

/** Discovery's head: 8 KiB. */
const MAX = 8 * 1024

/** A folder of `count` listed paths of every kind, and the `ListedPath` of each (some with a byte cap below the head). */
const listedPaths = (count: number): Array<ListedPath> => {
  const dir = fs.realpathSync(tempDir())
  const sizes = [0, 1, 15, 16, 100, 4095, 4096, 4097, 8191, 8192, 8193, 20_000]
  const out: Array<ListedPath> = []
  for (let i = 0; i < count; i++) {
    const path = nodePath.join(dir, `log-${String(i).padStart(4, "0")}.jsonl`)
    const kind = i % 17
    if (kind === 3) fs.mkdirSync(path)
    else if (kind === 5) execFileSync("mkfifo", [path])
    else if (kind === 7) fs.symlinkSync(nodePath.join(dir, "log-0000.jsonl"), path)
    else if (kind === 11) {
      // nothing there
    } else {
      const size = sizes[i % sizes.length]
      const bytes = Buffer.alloc(size)
      for (let k = 0; k < size; k++) bytes[k] = k % 61 === 60 ? 10 : 97 + ((i + k) % 26)
      fs.writeFileSync(path, bytes)
    }
    // As discovery sizes a head: readSize of 8 KiB steps, cut at the source-byte budget (small for some).
    const cap = i % 5 === 0 ? 1000 : Infinity
    out.push({ path, root: dir, length: (size: number) => Math.min(readSize(0, 0, MAX, size), cap) })
  }
  return out
}

/** An answer as data: the bytes copied (the worker's are a view of its ring, the thread's of its scratch buffer). */
const plain = (a: Either.Either<ListedHead, SourceAccessError>) =>
  a._tag === "Left"
    ? { error: a.left.code, message: a.left.message }
    : a.right._tag === "Head"
    ? { file: JSON.stringify(a.right.file), stat: JSON.stringify(a.right.head.statAtOpen), bytes: Buffer.from(a.right.head.bytes).toString("latin1") }
    : JSON.stringify(a.right)

/** Every head of `paths` through `readListedHeads`, one step of 7 at a time, with `ahead` when given. */
const headsOf = (paths: ReadonlyArray<ListedPath>, ahead?: HeadsAhead) =>
  Effect.gen(function*() {
    const scratch = Buffer.allocUnsafe(MAX)
    const out: Array<ReturnType<typeof plain>> = []
    for (let j = 0; j < paths.length;) {
      j = yield* sourceAccessNode.readListedHeads(j, Math.min(paths.length, j + 7), (i) => paths[i], scratch, (i, a) => {
        expect(i).toBe(out.length)
        out.push(plain(a))
        return true
      }, ahead)
    }
    return out
  })

/** Wait (up to 60 s) until `ahead`'s worker took `n` paths. */
const untilTaken = (ahead: HeadsAhead, n: number) =>
  Effect.gen(function*() {
    for (let t = 0; ahead.taken() < n && t < 600; t++) yield* Effect.sleep("100 millis")
    expect(ahead.taken()).toBe(n)
  })

/** A worker entry written for a test. */
const entryOf = (code: string): string => {
  const file = nodePath.join(tempDir(), "entry.cjs")
  fs.writeFileSync(file, code)
  return file
}

describe("heads read ahead on a worker thread", () => {
  const paths = listedPaths(300)

  it.live("are the heads the main thread reads, in order, for every kind of path", () =>
    Effect.gen(function*() {
      const inThread = yield* headsOf(paths)
      const entry = headWorkerEntry()
      expect(entry).not.toBeNull()
      const ahead = new HeadsAhead(paths.map((p) => p.path), MAX, entry!)
      try {
        // The worker fills its ring (64 paths) before the main thread asks for any.
        yield* untilTaken(ahead, 64)
        const before = headWorkerStats.fromWorker
        const read = yield* headsOf(paths, ahead)
        expect(read).toEqual(inThread)
        // The regular files among the ring's first 64 paths (48: every 17 paths hold 4 of other kinds) came from the worker.
        expect(headWorkerStats.fromWorker - before).toBeGreaterThanOrEqual(48)
      } finally {
        ahead.stop()
      }
    }), 90_000)

  it.live("are read in the main thread when the worker cannot load", () =>
    Effect.gen(function*() {
      const inThread = yield* headsOf(paths)
      const ahead = new HeadsAhead(paths.map((p) => p.path), MAX, entryOf("throw new Error('no worker here')\n"))
      try {
        yield* Effect.sleep("200 millis")
        const before = headWorkerStats.fromWorker
        expect(yield* headsOf(paths, ahead)).toEqual(inThread)
        expect(headWorkerStats.fromWorker).toBe(before)
      } finally {
        ahead.stop()
      }
    }), 90_000)

  it.live("are read in the main thread when the worker takes a path and never answers it", () =>
    Effect.gen(function*() {
      const inThread = yield* headsOf(paths)
      // Takes path 0 (the protocol's compare-exchange of the claim index), then sleeps for ever.
      const entry = entryOf(
        "const { workerData } = require('node:worker_threads')\n" +
          "const control = new Int32Array(workerData.shared, 0, 4)\n" +
          "Atomics.compareExchange(control, 0, 0, 1)\n" +
          "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)\n"
      )
      const ahead = new HeadsAhead(paths.map((p) => p.path), MAX, entry)
      try {
        yield* untilTaken(ahead, 1)
        expect(yield* headsOf(paths, ahead)).toEqual(inThread)
      } finally {
        ahead.stop()
      }
    }), 90_000)
})

describe("discover muse-code with the head reader worker", () => {
  const dir = fs.realpathSync(tempDir())
  const ws = nodePath.join(dir, "ws")
  const other = nodePath.join(dir, "other")
  fs.mkdirSync(nodePath.join(ws, "sub"), { recursive: true })
  fs.mkdirSync(other)
  const root = nodePath.join(dir, "sessions")
  const pad = (seq: number, n: number) => ({ ...filler(seq), pad: "p".repeat(n) })
  let deep: unknown = "leaf"
  for (let i = 0; i < 70; i++) deep = { d: deep }
  // Logs of every outcome and odd shape, each many times over, so that the worker reads most of them.
  const shapes: Array<string | Buffer> = [
    jsonl([opened(1), metadata(2, ws), end(3)]),
    jsonl([frame([opened(1), metadata(2, ws)]), filler(3), end(4)]),
    jsonl([...Array.from({ length: 12 }, (_, i) => pad(i + 1, 3000)), routeFacts(13, nodePath.join(ws, "sub")), end(14)]),
    jsonl([opened(1), metadata(2, other), omission(3), end(4)]),
    jsonl([opened(1), filler(2), end(3)]),
    jsonl([opened(1), "{not json", metadata(3, ws)]),
    jsonl([opened(1)], "{\"schema_version\":1,\"payload_type\":\"runtime.sess"),
    jsonl([opened(1), { ...filler(2), payload: { deep } }, metadata(3, ws)]),
    "\ufeff" + jsonl([metadata(1, ws), end(2)]),
    Buffer.from("\ufeff" + jsonl([metadata(1, ws)]), "utf16le"),
    jsonl([{ ...filler(1), note: "caf\u00e9 \u65e5\u672c \u{1f389} \u2028" }, metadata(2, ws), end(3)]),
    Buffer.concat([Buffer.from("{\"a\":\"\xff\xfe\"}\n", "latin1"), Buffer.from(jsonl([metadata(2, ws)]))]),
    "",
    jsonl([routeFacts(1, "relative/ws"), end(2)]),
    jsonl([metadata(1, other), filler(2), routeFacts(3, ws)])
  ]
  for (let i = 0; i < 330; i++) writeLog(root, `2026/10/${String(1 + (i % 3)).padStart(2, "0")}`, `s-${String(i).padStart(4, "0")}`, shapes[i % shapes.length])
  const day = nodePath.join(root, "2026/10/02")
  fs.mkdirSync(nodePath.join(day, "x-link"))
  fs.symlinkSync(nodePath.join(day, "s-0001", "session.jsonl"), nodePath.join(day, "x-link", "session.jsonl"))
  fs.mkdirSync(nodePath.join(day, "x-folder", "session.jsonl"), { recursive: true })
  fs.mkdirSync(nodePath.join(day, "x-fifo"))
  execFileSync("mkfifo", [nodePath.join(day, "x-fifo", "session.jsonl")])
  fs.mkdirSync(nodePath.join(day, "x-missing"))

  it("prints what it prints with every head read in the main thread", () => {
    const args = ["discover", "muse-code", "--muse-root", root, "--workspace", ws, "--json"]
    const withWorker = cli(args, { env: { SESSION_INGEST_HEAD_WORKER: "1" } })
    const without = cli(args, { env: { SESSION_INGEST_HEAD_WORKER: "0" } })
    expect(without.stdout.length).toBeGreaterThan(0)
    expect(withWorker.code).toBe(without.code)
    expect(withWorker.stdout).toBe(without.stdout)
    expect(JSON.parse(without.stdout).data.sourceCount).toBeGreaterThan(50)
  }, 120_000)
})
