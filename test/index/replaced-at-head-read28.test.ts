/**
 * A known Muse Code log replaced by another regular file between discovery's
 * look at it (its probe) and its head read (session 27's open finding): the
 * head read refuses the other file (not the one probed), and the source must
 * still land in exactly one bucket of the report: `unreadable` (kept as it
 * was, a `SOURCE_UNREADABLE` cause saying it was replaced while the run read
 * it; docs/import.md "Unreadable sources are kept"), whatever the new file
 * holds (the same bytes: before, counted in no bucket; other bytes: never
 * superseded by a read that did not happen in discovery). The moment is
 * forced deterministically: a SourceAccess that swaps the file just before
 * discovery's `readHeads` call.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { nativeSessionPath } from "../../bench/generate/native.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import type { SourceAccessShape } from "../../src/services/SourceAccess.js"
import { importOnce } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { museNativeRoot } from "../support/source-roots.js"

/** The Node access, with `before(name)` run before each call (its name). */
const hooked = (before: (name: string) => void): SourceAccessShape =>
  Object.fromEntries(
    Object.entries(sourceAccessNode).map(([name, f]) => [
      name,
      typeof f === "function"
        ? (...args: Array<unknown>) =>
          Effect.suspend(() => {
            before(name)
            return (f as (...a: Array<unknown>) => Effect.Effect<unknown>)(...args)
          })
        : f
    ])
  ) as unknown as SourceAccessShape

describe("a known Muse Code log replaced by another regular file before discovery's head read", () => {
  const m = museNativeRoot(1)
  const file = nativeSessionPath(m.root, 0)
  const bytes = fs.readFileSync(file)
  const empty = path.join(m.dir, "empty")
  fs.mkdirSync(empty)
  const policy = { workspaceRoots: [m.ws], museRoots: [m.root], agentsRoot: empty, claudeRoot: empty }
  const plan = planFromPolicy(policy, {})
  /** Put `content` in the log's place as a new file (a new inode: an atomic save). */
  const replaceWith = (content: Buffer) => {
    fs.writeFileSync(`${file}.tmp`, content)
    fs.renameSync(`${file}.tmp`, file)
  }

  const run = (swapTo: Buffer) =>
    Effect.gen(function*() {
      replaceWith(bytes)
      const idx = path.join(tempDir(), "idx.db")
      const first = yield* importOnce(policy, idx, plan)
      expect(first.sources.accepted).toBe(1)
      // A new inode (same bytes): the log is not selected unchanged, so discovery reads its head.
      replaceWith(bytes)
      let swapped = 0
      const access = hooked((name) => {
        if (name === "readHeads" && swapped++ === 0) replaceWith(swapTo)
      })
      const r = yield* importOnce(policy, idx, plan, undefined, undefined, access)
      expect(swapped).toBeGreaterThan(0)
      const s = r.sources
      expect({ unchanged: s.unchanged, accepted: s.accepted, rejected: s.rejected, gone: s.gone, superseded: s.superseded, unreadable: s.unreadable })
        .toEqual({ unchanged: 0, accepted: 0, rejected: 0, gone: 0, superseded: 0, unreadable: 1 })
      const cause = r.causes.find((c) => c.code === "SOURCE_UNREADABLE")
      expect(cause?.path).toBe(file)
      expect(cause?.problem).toMatch(/replaced/)
      expect(r.coverage).toBe("partial")
      // The next run reads the file as it is now (imported or found unchanged: one bucket, no cause left).
      const next = yield* importOnce(policy, idx, plan)
      expect(next.causes.filter((c) => c.code === "SOURCE_UNREADABLE")).toEqual([])
      return next
    })

  it.live("the same bytes: counted unreadable (was counted nowhere)", () =>
    Effect.gen(function*() {
      const next = yield* run(bytes)
      expect(next.sources.unchanged + next.sources.accepted).toBe(1)
    }), 60_000)

  it.live("other bytes: counted unreadable, not superseded in the same run", () =>
    Effect.gen(function*() {
      // The same session, its last line left out (a rewrite of the imported part).
      const lines = bytes.toString("utf8").split("\n").filter((l) => l.length > 0)
      yield* run(Buffer.from(lines.slice(0, -1).map((l) => `${l}\n`).join("") + lines[lines.length - 1].replace(/"/, "\"x_\":1,\"") + "\n"))
      replaceWith(bytes)
    }), 60_000)
})
