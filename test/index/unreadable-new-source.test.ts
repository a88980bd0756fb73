/**
 * A source never imported that cannot be read (tester report after session
 * 10): a Claude Code session log under `chmod 000` showed as a discovery
 * diagnostic while the import said "0 rejected". It is reported as a source
 * imported before that cannot be read is (Muse Code, Claude Code, Muse
 * agents: `unreadable-source.test.ts`): the run counts it (`unreadable`),
 * names it in a `SOURCE_UNREADABLE` cause, and coverage is partial. Tests run as root, so the refusal is injected at
 * the read (`../support/faulty-access.ts`), the real `chmod` still made.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import type { ImportReport } from "../../src/services/Importer.js"
import { faultyAccess } from "../support/faulty-access.js"
import { importOnce, sessionIds } from "../support/index.js"
import { breakableSources as cases } from "../support/source-roots.js"

const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A>)

describe("a source never imported that cannot be read is counted by the import", () => {
  // Claude Code: discovery reads each new log, so an unreadable one is known there. (Muse Code's native log not
  // read cannot be matched to the workspace: "not checked", MUSE_SOURCE_INCONCLUSIVE, not this; Muse agents: not yet.)
  for (const c of cases.filter((x) => x.provider === "claude-code")) {
    it(`${c.provider}: chmod 000 before the first import`, async () => {
      const s = c.setup()
      const index = path.join(path.dirname(path.dirname(s.file)), "..-new-unreadable.db")
      const plan = planFromPolicy(s.policy, { batchSize: 3 })
      fs.chmodSync(s.file, 0o000)
      const r: ImportReport = await run(importOnce(s.policy, index, plan, undefined, undefined, faultyAccess({ kind: "file", file: s.file, errno: "EACCES" })))
      expect(r.sources.unreadable).toBe(1)
      expect(r.coverage).toBe("partial")
      const cause = r.causes.find((x) => x.code === "SOURCE_UNREADABLE")
      expect(cause, JSON.stringify(r.causes)).toBeDefined()
      expect(cause!.provider).toBe(c.provider)
      expect(cause!.path).toBe(s.file)
      // said once: as unreadable, not also as a discovery skip
      expect(r.causes.filter((x) => x.provider === c.provider).map((x) => x.code)).toEqual(["SOURCE_UNREADABLE"])
      // the others were imported
      expect(r.sources.accepted).toBeGreaterThanOrEqual(1)
      fs.chmodSync(s.file, 0o644)
      // readable again: the next run imports it, and counts nothing unreadable
      const again: ImportReport = await run(importOnce(s.policy, index, plan))
      expect(again.sources.unreadable).toBe(0)
      expect(again.coverage).toBe("complete")
      expect((await run(sessionIds(index))).length).toBeGreaterThanOrEqual(2)
    })
  }
})
