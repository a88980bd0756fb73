/**
 * A known Muse Code log replaced by a fifo while an import runs (tester27b
 * F5): whatever the moment, the source lands in exactly one bucket of the
 * report (unchanged, imported, rejected, gone, superseded, unreadable), and
 * a fifo met by the import's own open is refused as SOURCE_NOT_REGULAR_FILE
 * (docs/import.md "Sources replaced by a non-file"). The moments are forced
 * deterministically: a SourceAccess that puts the fifo in the log's place
 * before its k-th call, for every k the import makes; and the fifo seen by
 * discovery's probe of the log, then the same bytes put back as a regular file
 * before the next call (the importer's look at what discovery did not list:
 * gone, as discovery reported it; before, counted in no bucket).
 */
import { execFileSync } from "node:child_process"
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

/** The Node access, with `before(k)` run before its k-th call (0-based) of any kind. */
const counted = (before: (k: number) => void): { readonly access: SourceAccessShape; readonly names: ReadonlyArray<string> } => {
  let n = 0
  const names: Array<string> = []
  const access = Object.fromEntries(
    Object.entries(sourceAccessNode).map(([name, f]) => [
      name,
      typeof f === "function"
        ? (...args: Array<unknown>) =>
          Effect.suspend(() => {
            names.push(name)
            before(n++)
            return (f as (...a: Array<unknown>) => Effect.Effect<unknown>)(...args)
          })
        : f
    ])
  ) as unknown as SourceAccessShape
  return { access, names }
}

describe("a known Muse Code log replaced by a fifo during an import", () => {
  const m = museNativeRoot(1)
  const file = nativeSessionPath(m.root, 0)
  const bytes = fs.readFileSync(file)
  const empty = path.join(m.dir, "empty")
  fs.mkdirSync(empty)
  const policy = { workspaceRoots: [m.ws], museRoots: [m.root], agentsRoot: empty, claudeRoot: empty }
  const plan = planFromPolicy(policy, {})
  const toFifo = () => {
    fs.rmSync(file, { force: true })
    execFileSync("mkfifo", [file])
  }
  const toFile = () => {
    fs.rmSync(file, { force: true })
    fs.writeFileSync(`${file}.tmp`, bytes)
    fs.renameSync(`${file}.tmp`, file)
  }
  /** A fresh index that imported the log (as a copy of one made once). */
  const seeded = path.join(tempDir(), "seed.db")
  const indexCopy = () => {
    const target = path.join(tempDir(), "idx.db")
    for (const suffix of ["", "-wal", "-shm"]) if (fs.existsSync(seeded + suffix)) fs.copyFileSync(seeded + suffix, target + suffix)
    return target
  }

  it.live("lands in exactly one bucket at every moment, and a fifo the import opens is SOURCE_NOT_REGULAR_FILE", () =>
    Effect.gen(function*() {
      toFile()
      const first = yield* importOnce(policy, seeded, plan)
      expect(first.sources.accepted).toBe(1)
      // The access calls a re-import makes (the log's bytes the same, its inode new: it is read): the moments to try.
      toFile()
      const probe = counted(() => {})
      yield* importOnce(policy, indexCopy(), plan, undefined, undefined, probe.access)
      const total = probe.names.length
      expect(total).toBeGreaterThan(0)
      const seen: Array<string> = []
      /** One import with the fifo put there before call `k`, and the file put back before call `k + 1` when `back`. */
      const attempt = (k: number, back: boolean) =>
        Effect.gen(function*() {
          toFile()
          const { access } = counted((i) => {
            if (i === k) toFifo()
            if (back && i === k + 1) toFile()
          })
          const r = yield* importOnce(policy, indexCopy(), plan, undefined, undefined, access)
          const s = r.sources
          const buckets = { unchanged: s.unchanged, accepted: s.accepted, rejected: s.rejected, gone: s.gone, superseded: s.superseded, unreadable: s.unreadable }
          const sum = Object.values(buckets).reduce((a, b) => a + b, 0)
          expect({ k, back, sum, buckets }).toMatchObject({ sum: 1 })
          // A fifo met by the import's open: refused as not a regular file.
          for (const rej of r.rejected) expect({ k, code: rej.code }).toEqual({ k, code: "SOURCE_NOT_REGULAR_FILE" })
          seen.push(Object.entries(buckets).filter(([, v]) => v > 0).map(([b]) => b).join("+"))
          return r
        })
      for (let k = 0; k <= total; k++) yield* attempt(k, false)
      // Discovery's probe of the known log (the first probeAll) sees the fifo; the importer then finds a file.
      const atProbe = probe.names.indexOf("probeAll")
      expect(atProbe).toBeGreaterThanOrEqual(0)
      const r = yield* attempt(atProbe, true)
      expect(r.sources.gone).toBe(1)
      expect(r.providers.flatMap((p) => p.diagnostics.map((d) => d.code))).toContain("SOURCE_NOT_REGULAR_FILE")
      // The fifo that stays is, from discovery's probe on, gone; met by the import's open, rejected.
      expect(seen).toContain("gone")
      expect(seen).toContain("rejected")
      toFile()
    }), 120_000)
})
