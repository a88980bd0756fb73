/**
 * A log cut back and then written on (a backup restored or a sync rolled
 * back, after which the agent went on: the first lines of the imported file,
 * then new ones; tester25a F6) is read again as a new generation, as any
 * change in the imported part is, but the imported events it no longer holds
 * leave every view: that is reported as `SOURCE_REWRITTEN`, counted (the
 * events imported, those the file still begins with, those it no longer
 * holds), listed in the report as a diagnostic of its provider, never
 * silently; coverage stays complete (the file was read whole: exit 0, as for
 * any rewritten source; docs/import.md, "Sources rewritten after a prefix of
 * what was imported"). An in-place rewrite that keeps every imported event is no such
 * case, nor is a file whose first event is of another session (another file); a first event edited in the same
 * session is (kept 0; tester36a F4).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import type { AccessPolicyShape } from "../../src/services/AccessPolicy.js"
import { Index } from "../../src/services/Index.js"
import { importOnce, indexLayer } from "../support/index.js"
import { agentsFixtureCopy, claudeFixtureCopy as claudeCopy } from "../support/source-roots.js"

const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A>)

/** The event count of the session `sessionId` in the index (it must hold it once). */
const eventCount = (index: string, sessionId: string) =>
  Effect.map(Effect.flatMap(Index, (i) => i.sessions({})), (ss) => {
    const found = ss.filter((s) => s.sessionId === sessionId)
    expect(found.length).toBe(1)
    return found[0].eventCount
  }).pipe(Effect.provide(indexLayer(index)))

/** The first `n` lines of `text`, each with its line feed. */
const firstLines = (text: string, n: number) => text.split("\n").slice(0, n).map((l) => l + "\n").join("")

/** The events a fresh index holds of `file` written with `content` (in a root of its own laid out as `root`). */
const freshCount = async (setup: () => { file: string; dir: string; session: string; policy: Partial<AccessPolicyShape> }, content: string) => {
  const s = setup()
  fs.writeFileSync(s.file, content)
  const index = path.join(s.dir, "fresh.db")
  const report = await run(importOnce(s.policy, index, planFromPolicy(s.policy, {})))
  expect(report.coverage).toBe("complete")
  return await run(eventCount(index, s.session))
}

const agentsCopy = () => {
  const s = agentsFixtureCopy()
  return { dir: s.dir, file: s.file, session: s.session, policy: { workspaceRoots: [s.dir], agentsRoot: s.root } }
}

/** A Claude Code user prompt of the fixture's session, after line `parent` (a uuid): what the agent wrote after the cut. */
const claudePrompt = (parent: string) =>
  JSON.stringify({
    parentUuid: parent,
    isSidechain: false,
    userType: "external",
    cwd: "/home/alice/code/billing-api",
    sessionId: "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37",
    version: "2.0.76",
    gitBranch: "main",
    type: "user",
    message: { role: "user", content: "after the rollback: run the tests again" },
    uuid: "9d0e4c55-1b2a-4f70-8c3d-5e6f7a8b9c0d",
    timestamp: "2025-12-03T10:00:00.000Z"
  }) + "\n"

const agentsItem = JSON.stringify({
  type: "item",
  seq: 8,
  source: "runtime",
  item: { type: "message", role: "user", text: "after the rollback: run the audit again" },
  created_at: "2025-03-01T09:00:00Z"
}) + "\n"

const cases = [
  {
    provider: "claude-code",
    setup: claudeCopy,
    // The first 8 lines, then a prompt the agent wrote after the rollback.
    rewrite: (text: string) => {
      const head = firstLines(text, 8)
      const last = JSON.parse(head.trimEnd().split("\n").at(-1)!) as { uuid: string }
      return head + claudePrompt(last.uuid)
    }
  },
  {
    provider: "muse-agents",
    setup: agentsCopy,
    // The header and the first 7 items, then another item 8.
    rewrite: (text: string) => firstLines(text, 8) + agentsItem
  }
] as const

/** The `SOURCE_REWRITTEN` diagnostic a report lists for `provider`, if any. */
const rewrittenOf = (report: { readonly providers: ReadonlyArray<{ readonly provider: string; readonly diagnostics: ReadonlyArray<{ readonly code: string; readonly message: string; readonly details?: unknown }> }> }, provider: string) =>
  report.providers.find((p) => p.provider === provider)?.diagnostics.find((d) => d.code === "SOURCE_REWRITTEN")

describe("a log cut back and written on: a new generation, SOURCE_REWRITTEN counted and listed, coverage complete", () => {
  for (const c of cases) {
    it(`${c.provider}: the imported events the file no longer holds are reported, not dropped silently`, async () => {
      const s = c.setup()
      const index = path.join(s.dir, "i.db")
      const plan = planFromPolicy(s.policy, { batchSize: 3 })
      expect((await run(importOnce(s.policy, index, plan))).coverage).toBe("complete")
      const imported = await run(eventCount(index, s.session))
      const original = fs.readFileSync(s.file, "utf8")
      const rewritten = c.rewrite(original)
      // What the file still holds as imported (its first 8 lines) and what it holds in all, each read on its own.
      const kept = await freshCount(c.setup, firstLines(original, 8))
      const now = await freshCount(c.setup, rewritten)
      expect(now).toBe(kept + 1)
      fs.writeFileSync(s.file, rewritten)

      const report = await run(importOnce(s.policy, index, plan))
      expect(report.sources.newGenerations).toBe(1)
      // the file was read whole: coverage complete, and the loss is listed, not a cause of partial coverage
      expect(report.coverage).toBe("complete")
      expect(report.causes.map((x) => x.code)).not.toContain("SOURCE_REWRITTEN")
      const diagnostic = rewrittenOf(report, c.provider)
      expect(diagnostic).toBeDefined()
      expect(diagnostic!.message).toContain(s.file)
      expect(diagnostic!.message).toContain(`begins with ${kept} of the ${imported} events imported from it`)
      expect(diagnostic!.message).toContain(`no longer holds ${imported - kept} of them`)
      expect(diagnostic!.details).toEqual({ path: s.file, kept, missing: imported - kept, imported, sessionsNoLongerShown: [] })
      // The new generation is what the file holds now.
      expect(await run(eventCount(index, s.session))).toBe(now)

      // Said once, in the run that read the rewrite (not stored with the checkpoint: the index holds what a fresh
      // import of the file holds); an append after it is a plain append (nothing more lost).
      const again = await run(importOnce(s.policy, index, plan))
      expect([again.sources.accepted, again.sources.newGenerations]).toEqual([0, 0])
      expect(again.coverage).toBe("complete")
      expect(rewrittenOf(again, c.provider)).toBeUndefined()
      fs.appendFileSync(s.file, c.provider === "claude-code" ? claudePrompt("9d0e4c55-1b2a-4f70-8c3d-5e6f7a8b9c0d").replace("9d0e4c55", "9d0e4c56") : agentsItem.replace("\"seq\":8", "\"seq\":9"))
      const appended = await run(importOnce(s.policy, index, plan))
      expect(appended.sources.newGenerations).toBe(0)
      expect(rewrittenOf(appended, c.provider)).toBeUndefined()
    })
  }

  it("claude-code: an imported line edited in place: a new generation, the one event no longer held as imported reported", async () => {
    const s = claudeCopy()
    const index = path.join(s.dir, "i.db")
    const plan = planFromPolicy(s.policy, { batchSize: 3 })
    await run(importOnce(s.policy, index, plan))
    const lines = fs.readFileSync(s.file, "utf8").split("\n")
    // The answer's text on line 15 edited: that event is no longer as it was imported (1 event), the others are.
    expect(lines[14]).toContain("All 6 tests")
    lines[14] = lines[14].replace("All 6 tests", "All 7 tests")
    fs.writeFileSync(s.file, lines.join("\n"))
    const report = await run(importOnce(s.policy, index, plan))
    expect(report.sources.newGenerations).toBe(1)
    expect(report.coverage).toBe("complete")
    expect(rewrittenOf(report, "claude-code")?.message).toContain("no longer holds 1 of them")
  })

  // tester26a F7: the events after an edited line that changed length are still in the file, only moved (their byte
  // offsets, in their cursors and raw references, changed): they are not missing, the edited line's one event is.
  const edits = [
    { provider: "claude-code", setup: claudeCopy, line: 14, from: "All 6 tests", longer: "All 6 tests (and then some more)", shorter: "All 6" },
    { provider: "muse-agents", setup: agentsCopy, line: 5, from: "The login test races the session store.", longer: "The login test races the session store, and the cache too.", shorter: "Races." }
  ] as const
  for (const c of edits) {
    for (const how of ["longer", "shorter"] as const) {
      it(`${c.provider}: an imported line edited ${how} in place: only its one event is missing, the moved ones after it are held`, async () => {
        const s = c.setup()
        const index = path.join(s.dir, "i.db")
        const plan = planFromPolicy(s.policy, { batchSize: 3 })
        await run(importOnce(s.policy, index, plan))
        const imported = await run(eventCount(index, s.session))
        const original = fs.readFileSync(s.file, "utf8")
        const lines = original.split("\n")
        expect(lines[c.line]).toContain(c.from)
        // The events of the lines before the edited one are kept (each of these lines yields events of its own).
        const kept = await freshCount(c.setup, firstLines(original, c.line))
        lines[c.line] = lines[c.line].replace(c.from, c[how])
        fs.writeFileSync(s.file, lines.join("\n"))
        const report = await run(importOnce(s.policy, index, plan))
        expect(report.sources.newGenerations).toBe(1)
        const diagnostic = rewrittenOf(report, c.provider)
        expect(diagnostic?.details).toEqual({ path: s.file, kept, missing: 1, imported, sessionsNoLongerShown: [] })
        expect(diagnostic?.message).toContain("no longer holds 1 of them")
      })
    }
  }

  it("muse-agents: a file whose first event is of another session is another file: read again, not reported as rewritten", async () => {
    const s = agentsCopy()
    const index = path.join(s.dir, "i.db")
    const plan = planFromPolicy(s.policy, { batchSize: 3 })
    await run(importOnce(s.policy, index, plan))
    const lines = fs.readFileSync(s.file, "utf8").split("\n")
    // Another session written at the same path: its header names another session id, its first item another prompt.
    lines[0] = lines[0].replace("\"sess-cron\"", "\"sess-cron-2\"")
    lines[1] = lines[1].replace("Run the nightly dependency audit", "Run the weekly dependency audit")
    fs.writeFileSync(s.file, lines.join("\n"))
    const report = await run(importOnce(s.policy, index, plan))
    expect(report.sources.accepted).toBe(1)
    expect(rewrittenOf(report, "muse-agents")).toBeUndefined()
    expect(report.coverage).toBe("complete")
  })

  // tester36a F4: the same path and the same session with a different first event is a rewrite of the imported prefix
  // (its first prompt edited in place, a secret scrubbed with `sed -i`, then rolled back by a sync): reported, kept 0.
  it("muse-agents: the first item edited in place (same session): SOURCE_REWRITTEN, kept 0, its one event missing", async () => {
    const s = agentsCopy()
    const index = path.join(s.dir, "i.db")
    const plan = planFromPolicy(s.policy, { batchSize: 3 })
    await run(importOnce(s.policy, index, plan))
    const imported = await run(eventCount(index, s.session))
    const lines = fs.readFileSync(s.file, "utf8").split("\n")
    lines[1] = lines[1].replace("Run the nightly dependency audit", "Run the weekly dependency audit")
    fs.writeFileSync(s.file, lines.join("\n"))
    const report = await run(importOnce(s.policy, index, plan))
    expect(report.sources.newGenerations).toBe(1)
    expect(report.coverage).toBe("complete")
    const diagnostic = rewrittenOf(report, "muse-agents")
    expect(diagnostic?.details).toEqual({ path: s.file, kept: 0, missing: 1, imported, sessionsNoLongerShown: [] })
    expect(diagnostic?.message).toContain("its first event is no longer the one imported from it")
  })

  it("claude-code: rolled back to its first 10 lines with the first prompt edited: SOURCE_REWRITTEN names every event lost", async () => {
    const s = claudeCopy()
    const index = path.join(s.dir, "i.db")
    const plan = planFromPolicy(s.policy, { batchSize: 3 })
    await run(importOnce(s.policy, index, plan))
    const imported = await run(eventCount(index, s.session))
    const original = fs.readFileSync(s.file, "utf8")
    // Line 3 is the first prompt, the first event (lines 1-2, a summary and a snapshot, are none).
    expect(await freshCount(claudeCopy, firstLines(original, 3))).toBe(1)
    const ten = await freshCount(claudeCopy, firstLines(original, 10))
    const lines = firstLines(original, 10).split("\n")
    expect(lines[2]).toContain("off by one cent")
    lines[2] = lines[2].replace("off by one cent", "off by One cent")
    fs.writeFileSync(s.file, lines.join("\n"))
    const report = await run(importOnce(s.policy, index, plan))
    expect(report.sources.newGenerations).toBe(1)
    expect(report.coverage).toBe("complete")
    // Missing: the edited prompt's event and every imported event past line 10.
    const diagnostic = rewrittenOf(report, "claude-code")
    expect(diagnostic?.details).toEqual({ path: s.file, kept: 0, missing: imported - ten + 1, imported, sessionsNoLongerShown: [] })
    expect(diagnostic?.message).toContain(`no longer holds ${imported - ten + 1} of the ${imported} events imported from it`)
    expect(await run(eventCount(index, s.session))).toBe(ten)
  })
})
