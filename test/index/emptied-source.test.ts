/**
 * A source imported before whose file now holds nothing (emptied to 0 bytes,
 * or zeroed in place: only NUL bytes, what a power loss or a crashed writer
 * can leave; white space only too): not a new version of the session but a
 * damaged file. Fail closed, as for an unreadable source (found by a fresh
 * user: both sessions left the index, "import complete", exit 0): what was
 * imported stays in the index as it was (not superseded, no new
 * generation), the run reports `SOURCE_EMPTIED` naming the file, with a
 * remedy, and coverage is partial. Once the file holds the session again,
 * the next import reads it as usual. A file rewritten with other content
 * (a session) is still a change: superseded or read again, as before.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { expectKeptThenRestored, importOnce, indexView, sessionIds } from "../support/index.js"
import { breakableSources } from "../support/source-roots.js"

const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A>)

const damage = {
  "emptied": (file: string) => fs.truncateSync(file, 0),
  "zeroed": (file: string) => fs.writeFileSync(file, Buffer.alloc(fs.statSync(file).size)),
  "zeroed, longer": (file: string) => fs.writeFileSync(file, Buffer.alloc(fs.statSync(file).size + 100_000)),
  "blank lines": (file: string) => fs.writeFileSync(file, "\n\n  \r\n\t\n")
} as const

describe("a source whose file now holds nothing is kept as it was, reported SOURCE_EMPTIED", () => {
  for (const c of breakableSources) {
    for (const [how, apply] of Object.entries(damage)) {
      it(`${c.provider}: ${how}`, async () => {
        const s = c.setup()
        const index = path.join(path.dirname(path.dirname(s.file)), `..-emptied.db`)
        const plan = planFromPolicy(s.policy, { batchSize: 3 })
        const first = await run(importOnce(s.policy, index, plan))
        expect(first.coverage).toBe("complete")
        const ids = await run(sessionIds(index))
        const view = await run(indexView(index))
        const original = fs.readFileSync(s.file)

        apply(s.file)
        const broken = await run(importOnce(s.policy, index, plan))
        expect(broken.superseded).toEqual([])
        expect(broken.sources.superseded).toBe(0)
        expect(broken.sources.newGenerations).toBe(0)
        expect(broken.coverage).toBe("partial")
        await expectKeptThenRestored({ provider: c.provider, file: s.file, policy: s.policy, index, plan, broken, ids, view, original })
      })
    }
  }

  it("a file rewritten with another session is a change, as before (the old one superseded or read again)", async () => {
    const c = breakableSources.find((x) => x.provider === "claude-code")!
    const s = c.setup()
    const index = path.join(path.dirname(path.dirname(s.file)), `..-rewritten.db`)
    const plan = planFromPolicy(s.policy, { batchSize: 3 })
    await run(importOnce(s.policy, index, plan))
    const lines = fs.readFileSync(s.file, "utf8").trimEnd().split("\n")
    fs.writeFileSync(s.file, lines.map((l) => l.replace(/hello/g, "changed")).join("\n") + "\n")
    const next = await run(importOnce(s.policy, index, plan))
    expect(next.causes.map((x) => x.code)).not.toContain("SOURCE_EMPTIED")
    expect(next.sources.newGenerations + next.sources.superseded).toBeGreaterThan(0)
  })
})
