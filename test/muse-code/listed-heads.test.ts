/**
 * Native discovery reads the logs the index does not know without an `lstat`
 * each (issue 13, bench figure c): each listed `session.jsonl` is opened
 * read-only, no symlink follow, without blocking, and its descriptor's stat
 * tells what it is. The rules of seed 001 still hold for what is not a
 * regular file: a symlink, folder, fifo or socket in a log's place is
 * reported (`SYMLINK_SKIPPED`, `SOURCE_NOT_REGULAR_FILE`), tallied, never
 * read, and a fifo never blocks.
 */
import { execFileSync } from "node:child_process"
import fs from "node:fs"
import { syncBuiltinESMExports } from "node:module"
import * as net from "node:net"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { MuseSourceInspection } from "../../src/layers/muse-code/discovery.js"
import { adapterWith, end, jsonl, metadata, tempDir, writeLog } from "./native-helpers.js"

/** The paths `fs.lstatSync` was called with while `run` ran (the Node layer calls it through `node:fs`). */
const lstatPathsDuring = <A, E>(run: Effect.Effect<A, E>): Effect.Effect<{ readonly value: A; readonly paths: Array<string> }, E> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const original = fs.lstatSync
      const paths: Array<string> = []
      ;(fs as { lstatSync: typeof fs.lstatSync }).lstatSync = ((p: fs.PathLike, o?: fs.StatSyncOptions) => {
        paths.push(String(p))
        return original(p, o)
      }) as typeof fs.lstatSync
      syncBuiltinESMExports()
      return { original, paths }
    }),
    ({ paths }) => Effect.map(run, (value) => ({ value, paths })),
    ({ original }) =>
      Effect.sync(() => {
        ;(fs as { lstatSync: typeof fs.lstatSync }).lstatSync = original
        syncBuiltinESMExports()
      })
  )

describe("native discovery of logs the index does not know", () => {
  const dir = tempDir()
  const ws = nodePath.join(dir, "ws")
  fs.mkdirSync(ws)
  const root = nodePath.join(dir, "sessions")
  const good = jsonl([metadata(1, ws), end(2)])
  const logs = ["a-1", "a-2", "a-3"].map((id) => writeLog(root, "2026/09/25", id, good))

  it.effect("reads each regular log without an lstat of it, and selects them all", () =>
    Effect.gen(function*() {
      const adapter = yield* adapterWith({ policy: { workspaceRoots: [ws], museRoots: [root] } })
      const { value: r, paths } = yield* lstatPathsDuring(adapter.discover({}))
      expect(r.sources.map((s) => s.locator.path)).toEqual(logs.map((p) => fs.realpathSync(p)))
      expect(r.coverage).toBe("complete")
      expect((r.receipts.museEnumeration as Record<string, number>).candidates).toBe(3)
      // Before: one lstat per log (enumeration's probe), then its open and fstat.
      expect(paths.filter((p) => p.endsWith("session.jsonl"))).toEqual([])
    }))
})

describe("native discovery: what is not a regular file in a log's place", () => {
  const dir = tempDir()
  const ws = nodePath.join(dir, "ws")
  fs.mkdirSync(ws)
  const root = nodePath.join(dir, "sessions")
  const good = jsonl([metadata(1, ws), end(2)])
  const valid = writeLog(root, "2026/09/25", "a-valid", good)
  const day = nodePath.join(root, "2026/09/25")
  const place = (id: string) => {
    fs.mkdirSync(nodePath.join(day, id))
    return nodePath.join(day, id, "session.jsonl")
  }
  execFileSync("mkfifo", [place("b-fifo")])
  const socketPath = place("c-socket")
  fs.mkdirSync(place("d-folder"))
  fs.symlinkSync(valid, place("e-symlink"))
  // A session folder without a log: no candidate, nothing reported.
  fs.mkdirSync(nodePath.join(day, "f-empty"))

  it.effect("reports a fifo, socket, folder and symlink, reads none, never blocks, and tallies them", () =>
    Effect.gen(function*() {
      const server = net.createServer()
      yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(socketPath, resolve)))
      try {
        const adapter = yield* adapterWith({ policy: { workspaceRoots: [ws], museRoots: [root] } })
        const r = yield* adapter.discover({}).pipe(Effect.timeout("10 seconds"))
        const real = fs.realpathSync(day)
        expect(r.sources.map((s) => s.locator.path)).toEqual([fs.realpathSync(valid)])
        expect(r.coverage).toBe("partial")
        expect(r.reasonCode).toBe("SOURCE_NOT_REGULAR_FILE")
        expect(r.diagnostics.map((d) => `${d.code} ${String(d.details?.path)}`)).toEqual([
          `SOURCE_NOT_REGULAR_FILE ${real}/b-fifo/session.jsonl`,
          `SOURCE_NOT_REGULAR_FILE ${real}/c-socket/session.jsonl`,
          `SOURCE_NOT_REGULAR_FILE ${real}/d-folder/session.jsonl`,
          `SYMLINK_SKIPPED ${real}/e-symlink/session.jsonl`
        ])
        const tally = r.receipts.museEnumeration as Record<string, number>
        expect(tally.candidates).toBe(1)
        expect(tally.junkSkipped).toBe(3)
        expect(tally.symlinksSkipped).toBe(1)
        // One receipt: the regular log's. What is no log has none.
        const receipts = r.receipts.museSourceInspections as ReadonlyArray<MuseSourceInspection>
        expect(receipts.map((x) => x.outcome)).toEqual(["matched"])
      } finally {
        server.close()
      }
    }))
})
