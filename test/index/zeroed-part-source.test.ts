/**
 * A source imported before whose file now holds a run of NUL bytes where it
 * held what was imported: its tail zeroed in place, the same size (what
 * ext4's delayed allocation leaves after a power loss: the last blocks read
 * as NUL bytes), or a block zeroed in the middle. Found by a fresh user: the
 * read of such a file was taken as a new version of the session, the good
 * generation superseded (events and usage left the index), "complete", exit
 * 0; a Muse Code native log's NUL tail passed as a torn tail and a whole
 * subagent session left the index. The rule of files zeroed whole (README,
 * "Sources emptied or zeroed on disk are kept, not superseded") holds for
 * them: what was imported stays as it was, `SOURCE_EMPTIED` names the file
 * and the zeroed bytes, coverage partial. A short NUL run begun off a sector's
 * start and followed by other bytes is not what a disk loses: still a change (`src/layers/index/emptied.ts`).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { ZEROED_RUN } from "../../src/layers/index/emptied.js"
import { expectKeptThenRestored, importOnce, indexView, sessionIds } from "../support/index.js"
import { engines } from "../support/pg.js"
import { breakableSources } from "../support/source-roots.js"
import { tempDir } from "../support/paths.js"

const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A>)

/** Overwrite `length` bytes of `file` at `from` with NUL bytes, in place (its size kept). */
const zero = (file: string, from: number, length: number) => {
  const fd = fs.openSync(file, "r+")
  try {
    fs.writeSync(fd, Buffer.alloc(length), 0, length, from)
  } finally {
    fs.closeSync(fd)
  }
}

/** Damage done in place (the file keeps its size): the offset of its first zeroed byte. */
const damage = {
  // The last half, from the middle of a line (as the fresh user's repro did).
  "its tail zeroed (the last half)": (file: string) => {
    const size = fs.statSync(file).size
    zero(file, size - Math.floor(size / 2), Math.floor(size / 2))
    return size - Math.floor(size / 2)
  },
  // Only its last bytes: a tail of the last block, shorter than a sector, is still the end of the file lost.
  "its last 40 bytes zeroed": (file: string) => {
    const size = fs.statSync(file).size
    zero(file, size - 40, 40)
    return size - 40
  },
  // A last block cut by a power loss, then appended to by the agent: NUL bytes from a sector's start, fewer than a
  // sector, content after them (tester20a's leftover: read as a change, the imported generation superseded).
  "a sector's first 100 bytes zeroed, content after them": (file: string) => {
    const from = Math.floor(fs.statSync(file).size / 2 / ZEROED_RUN) * ZEROED_RUN
    zero(file, from, 100)
    return from
  },
  // A sector in the middle, content after it.
  "a sector zeroed in the middle": (file: string) => {
    const size = fs.statSync(file).size
    const from = Math.floor((size - ZEROED_RUN) / 2)
    zero(file, from, ZEROED_RUN)
    return from
  }
} as const

describe.each(engines)("($engine) a source whose imported part now holds zeroed bytes is kept as it was", ({ newIndex }) => {
  for (const c of breakableSources) {
    for (const [how, apply] of Object.entries(damage)) {
      it(`${c.provider}: ${how}: not superseded, SOURCE_EMPTIED, coverage partial; restored, read as usual`, async () => {
        const s = c.setup()
        // A block in the middle needs content on both sides of it.
        expect(fs.statSync(s.file).size).toBeGreaterThan(ZEROED_RUN + 200)
        const index = await run(newIndex(tempDir()))
        const plan = planFromPolicy(s.policy, { batchSize: 3 })
        const first = await run(importOnce(s.policy, index, plan))
        expect(first.coverage).toBe("complete")
        const ids = await run(sessionIds(index))
        const view = await run(indexView(index))
        const original = fs.readFileSync(s.file)

        const from = apply(s.file)
        const broken = await run(importOnce(s.policy, index, plan))
        expect(broken.superseded).toEqual([])
        expect(broken.sources.superseded).toBe(0)
        expect(broken.sources.newGenerations).toBe(0)
        expect(broken.eventsAdded).toBe(0)
        expect(broken.coverage).toBe("partial")
        await expectKeptThenRestored({ provider: c.provider, file: s.file, policy: s.policy, index, plan, broken, ids, view, original, problem: `NUL bytes from byte ${from}` })
      })
    }
  }

  it("a short NUL run with content after it (not a lost sector) is a change, as before", async () => {
    const c = breakableSources.find((x) => x.provider === "claude-code")!
    const s = c.setup()
    const index = await run(newIndex(path.dirname(s.file)))
    const plan = planFromPolicy(s.policy, { batchSize: 3 })
    await run(importOnce(s.policy, index, plan))
    zero(s.file, 10, 8)
    const next = await run(importOnce(s.policy, index, plan))
    expect(next.causes.map((x) => x.code)).not.toContain("SOURCE_EMPTIED")
    expect(next.sources.newGenerations + next.sources.superseded).toBeGreaterThan(0)
  })
})
