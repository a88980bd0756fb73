/**
 * tester38b F1: a Muse Code export cut back so that a whole session is gone: `SOURCE_REWRITTEN` counted only the
 * sessions the new file still named ("3 of the 7 events" where 4 of the 8 imported events were gone), said nothing of
 * the session that then disappeared from `sessions` and `show`, and said "its first event is no longer the one
 * imported" when the first event was unchanged (a document's cursors bind its bytes, so none is `kept`).
 * docs/import.md, "Sources rewritten after a prefix of what was imported": the loss is counted over every event the
 * source had, each session no longer shown is named with its events (the diagnostic's `sessionsNoLongerShown`, the
 * report's `sessionsNoLongerShown`, a `no longer shown:` line), and the events a rewritten file was read again into
 * are `re-imported`, not `added`. Every expected count is worked out from the fixture (aaaa: 7 events, bbbb: 1) and
 * checked against what a fresh import of each document holds.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Index } from "../../src/services/Index.js"
import { indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"
import { cli } from "../support/run.js"
import { claudeFixtureCopy } from "../support/source-roots.js"

const EXPORT = nodePath.resolve("fixtures", "muse-code", "export", "orderly.json")
const AAAA = "5f1e0c2a-0000-4000-8000-00000000aaaa"
const BBBB = "5f1e0c2a-0000-4000-8000-00000000bbbb"
const CCCC = "5f1e0c2a-0000-4000-8000-00000000cccc"
const AGENTS = nodePath.resolve("fixtures", "muse-agents", "agents")

type Envelope = { sequence: number; id: string; stream: { id: string } | null; recorded_at: unknown } & Record<string, unknown>
type Entry = { envelope: Envelope | null } & Record<string, unknown>
type Doc = { events: Array<Entry> } & Record<string, unknown>

const env = (dir: string) => ({ XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") })

const importJson = (dir: string, index: string, file: string) => {
  const r = cli(["import", "--index", index, "--workspace", dir, file, "--json"], { env: env(dir) })
  expect(r.code, r.stderr + r.stdout).toBe(0)
  const data = JSON.parse(r.stdout).data
  return { data, muse: data.providers.find((p: { provider: string }) => p.provider === "muse-code") }
}

/** Each session the index shows, by native id, with its event count. */
const shown = (index: string): Record<string, number> =>
  Object.fromEntries((JSON.parse(cli(["sessions", "--index", index, "--json"]).stdout).data as Array<{ sessionId: string; eventCount: number }>).map((s) => [s.sessionId, s.eventCount]))

/** The fixture with a third session: bbbb's record again under stream cccc, sequence 10 (three sessions: 7, 1, 1 events). */
const threeSessions = (doc: Doc): Doc => {
  const b = doc.events.find((e) => e.envelope?.stream?.id === BBBB)!
  const c = JSON.parse(JSON.stringify(b)) as Entry
  c.envelope!.sequence = 10
  c.envelope!.id = `${c.envelope!.id}-c`
  c.envelope!.stream = { ...c.envelope!.stream!, id: CCCC }
  return { ...doc, events: [...doc.events, c] }
}

const of = (e: Entry, session: string) => e.envelope?.stream?.id === session

const cases: ReadonlyArray<{
  readonly name: string
  readonly base: (d: Doc) => Doc
  readonly edit: (d: Doc) => Doc
  /** Sessions and events of the first import. */
  readonly before: Record<string, number>
  /** Sessions and events the edited document holds (a fresh import of it). */
  readonly after: Record<string, number>
  readonly missing: number
  readonly imported: number
  readonly gone: ReadonlyArray<{ sessionId: string; events: number }>
}> = [
  {
    // tester38b's steps: events[:6] keeps aaaa's records of sequence 0, 1, 3, 4 (a marker and a gap between).
    name: "the tail cut (bbbb's record among what went)",
    base: (d) => d,
    edit: (d) => ({ ...d, events: d.events.slice(0, 6) }),
    before: { [AAAA]: 7, [BBBB]: 1 },
    after: { [AAAA]: 4 },
    missing: 4,
    imported: 8,
    gone: [{ sessionId: BBBB, events: 1 }]
  },
  {
    name: "a whole session removed (bbbb's one record)",
    base: (d) => d,
    edit: (d) => ({ ...d, events: d.events.filter((e) => !of(e, BBBB)) }),
    before: { [AAAA]: 7, [BBBB]: 1 },
    after: { [AAAA]: 7 },
    missing: 1,
    imported: 8,
    gone: [{ sessionId: BBBB, events: 1 }]
  },
  {
    name: "two sessions removed (bbbb and cccc of three)",
    base: threeSessions,
    edit: (d) => ({ ...d, events: d.events.filter((e) => !of(e, BBBB) && !of(e, CCCC)) }),
    before: { [AAAA]: 7, [BBBB]: 1, [CCCC]: 1 },
    after: { [AAAA]: 7 },
    missing: 2,
    imported: 9,
    gone: [{ sessionId: BBBB, events: 1 }, { sessionId: CCCC, events: 1 }]
  },
  {
    // The same path now another export: its sessions are others (dddd, eeee), both imported ones are gone.
    name: "the export now another session's: both imported sessions gone",
    base: (d) => d,
    edit: (d) => JSON.parse(JSON.stringify(d).replaceAll("00000000aaaa", "00000000dddd").replaceAll("00000000bbbb", "00000000eeee")) as Doc,
    before: { [AAAA]: 7, [BBBB]: 1 },
    after: { [AAAA.replace("aaaa", "dddd")]: 7, [BBBB.replace("bbbb", "eeee")]: 1 },
    missing: 8,
    imported: 8,
    gone: [{ sessionId: AAAA, events: 7 }, { sessionId: BBBB, events: 1 }]
  },
  {
    name: "a middle record removed (aaaa's sequence 3): no session gone",
    base: (d) => d,
    edit: (d) => ({ ...d, events: d.events.filter((e) => e.envelope?.sequence !== 3) }),
    before: { [AAAA]: 7, [BBBB]: 1 },
    after: { [AAAA]: 6, [BBBB]: 1 },
    missing: 1,
    imported: 8,
    gone: []
  },
  {
    // Its one event replaced by another (another time): the session is still shown, its imported event is not.
    name: "a session's events all replaced: still shown, not gone",
    base: (d) => d,
    edit: (d) => ({
      ...d,
      events: d.events.map((e) => (of(e, BBBB) ? { ...e, envelope: { ...e.envelope!, recorded_at: 1_790_000_000_000_000 } } : e))
    }),
    before: { [AAAA]: 7, [BBBB]: 1 },
    after: { [AAAA]: 7, [BBBB]: 1 },
    missing: 1,
    imported: 8,
    gone: []
  }
]

describe("a Muse Code export rewritten: SOURCE_REWRITTEN counts every session's events and names the sessions gone (tester38b F1)", () => {
  for (const c of cases) {
    it(c.name, () => {
      const dir = tempDir("si-gone39-")
      const file = nodePath.join(dir, "orderly.json")
      const doc = c.base(JSON.parse(fs.readFileSync(EXPORT, "utf8")) as Doc)
      fs.writeFileSync(file, JSON.stringify(doc, null, 2) + "\n")
      const index = nodePath.join(dir, "i.db")
      importJson(dir, index, file)
      expect(shown(index)).toEqual(c.before)
      const edited = JSON.stringify(c.edit(doc), null, 2) + "\n"
      // What the edited document holds on its own.
      fs.writeFileSync(nodePath.join(dir, "alone.json"), edited)
      importJson(dir, nodePath.join(dir, "alone.db"), nodePath.join(dir, "alone.json"))
      expect(shown(nodePath.join(dir, "alone.db"))).toEqual(c.after)

      fs.writeFileSync(file, edited)
      const again = importJson(dir, index, file)
      expect(again.data.coverage).toBe("complete")
      const said = again.muse.diagnostics.filter((d: { code: string }) => d.code === "SOURCE_REWRITTEN")
      expect(said).toHaveLength(1)
      // Sessions in the index's order (latest activity first, then by uid: a digest of the temporary path when two
      // have the same last activity, as bbbb and its copy cccc): compared by session id.
      const bySession = <A extends { sessionId: string }>(xs: ReadonlyArray<A>) => [...xs].sort((a, b) => a.sessionId.localeCompare(b.sessionId))
      expect({ ...said[0].details, sessionsNoLongerShown: bySession(said[0].details.sessionsNoLongerShown) })
        .toEqual({ path: file, kept: 0, missing: c.missing, imported: c.imported, sessionsNoLongerShown: bySession(c.gone) })
      expect(said[0].message).toContain(`it no longer holds ${c.missing} of the ${c.imported} events imported from it`)
      // The first event (aaaa's sequence 0) is the imported one: a document's events are bound to its bytes, so none
      // is "kept", but its first event did not change.
      expect(said[0].message).not.toContain("first event")
      for (const g of c.gone) expect(said[0].message).toContain(`${g.sessionId} (${g.events} event${g.events === 1 ? "" : "s"})`)
      expect(said[0].message).toContain("which no command shows")
      expect(bySession(again.data.sessionsNoLongerShown)).toEqual(bySession(c.gone.map((g) => ({ provider: "muse-code", path: file, ...g }))))
      // Re-read whole into the new generation: re-imported, not new.
      const holds = Object.values(c.after).reduce((a, b) => a + b, 0)
      const added = Object.keys(c.after).filter((id) => !(id in c.before)).length
      expect([again.data.sessionsAdded, again.data.eventsAdded, again.data.eventsReimported]).toEqual([added, holds, holds])
      expect(shown(index)).toEqual(c.after)
    })
  }

  it("the text report: no event added, the re-read events re-imported, the session gone named on a line of its own", () => {
    const dir = tempDir("si-gone39t-")
    const file = nodePath.join(dir, "orderly.json")
    const doc = JSON.parse(fs.readFileSync(EXPORT, "utf8")) as Doc
    fs.writeFileSync(file, JSON.stringify(doc, null, 2) + "\n")
    const args = ["import", "--index", nodePath.join(dir, "i.db"), "--workspace", dir, file]
    expect(cli(args, { env: env(dir) }).code).toBe(0)
    fs.writeFileSync(file, JSON.stringify({ ...doc, events: doc.events.slice(0, 6) }, null, 2) + "\n")
    const r = cli(args, { env: env(dir) })
    expect(r.code, r.stderr + r.stdout).toBe(0)
    expect(r.stdout).toMatch(/added: +0 sessions, 0 events; re-imported: 4 events \(read again whole into 1 new generation\)/)
    expect(r.stdout).toMatch(new RegExp(`no longer shown: 1 session, .*${BBBB} \\(1 event, muse-code ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\)`))
    expect(r.stdout).toContain("it no longer holds 4 of the 8 events imported from it")
    expect(r.stdout).not.toContain("its first event is no longer the one imported")
  })
})

describe("a Claude Code log whose first line (no event) was edited and cut back (tester38b F1's wording, JSONL)", () => {
  it("its first event is the imported one: not said to have changed; the count is over every imported event", () => {
    const s = claudeFixtureCopy()
    const args = ["import", "--index", nodePath.join(s.dir, "i.db"), "--claude-root", s.policy.claudeRoot!, "--agents-root", AGENTS, "--json"]
    expect(cli(args, { env: env(s.dir) }).code).toBe(0)
    const lines = fs.readFileSync(s.file, "utf8").split("\n")
    // Line 1 is the log's summary (no event; its first bytes, which every cursor's head binding covers); line 3 the
    // first prompt, the first event. The first 10 lines hold 8 of the 22 events (test/index/rewritten-first-event36).
    expect(JSON.parse(lines[0]).type).toBe("summary")
    lines[0] = lines[0].replace("\"summary\":\"", "\"summary\":\"Edited: ")
    fs.writeFileSync(s.file, lines.slice(0, 10).map((l) => l + "\n").join(""))
    const data = JSON.parse(cli(args, { env: env(s.dir) }).stdout).data
    const claude = data.providers.find((p: { provider: string }) => p.provider === "claude-code")
    const d = claude.diagnostics.find((x: { code: string }) => x.code === "SOURCE_REWRITTEN")
    expect(d?.details).toEqual({ path: s.file, kept: 0, missing: 14, imported: 22, sessionsNoLongerShown: [] })
    expect(d?.message).toContain("it no longer holds 14 of the 22 events imported from it")
    expect(d?.message).not.toContain("first event")
    expect(data.sessionsNoLongerShown).toEqual([])
  })
})

describe.each(engines)("($engine) Index.sessions({ sourceKey }) and the sessions a rewritten export no longer names", ({ newIndex }) => {
  it.effect("only the source's sessions are listed; the report names the one gone from that source, the other source's stays", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-gone39e-")
      const index = yield* newIndex(dir)
      const doc = JSON.parse(fs.readFileSync(EXPORT, "utf8")) as Doc
      // Two sources holding the same native sessions: two sessions each (docs/index.md: a native id several sources
      // hold is several sessions).
      const file = nodePath.join(dir, "orderly.json")
      const other = nodePath.join(dir, "other.json")
      fs.writeFileSync(file, JSON.stringify(doc, null, 2) + "\n")
      fs.writeFileSync(other, JSON.stringify(doc, null, 2) + "\n")
      const args = ["import", "--index", index, "--workspace", dir, file, other, "--json"]
      const first = cli(args, { env: env(dir) })
      expect(first.code, first.stderr + first.stdout).toBe(0)
      const bySource = yield* Effect.gen(function*() {
        const i = yield* Index
        const all = yield* i.sessions({})
        expect(all).toHaveLength(4)
        const keyOf = (path: string) => all.find((s) => s.locator.path === path)!.sourceKey
        const mine = yield* i.sessions({ sourceKey: keyOf(file) })
        const theirs = yield* i.sessions({ sourceKey: keyOf(other) })
        const none = yield* i.sessions({ sourceKey: "src_00000000000000000000000000000000" })
        return { mine, theirs, none, key: keyOf(file) }
      }).pipe(Effect.provide(indexLayer(index)))
      expect(bySource.mine.map((s) => [s.sourceKey, s.sessionId, s.eventCount]).sort()).toEqual([[bySource.key, AAAA, 7], [bySource.key, BBBB, 1]])
      expect(bySource.theirs.every((s) => s.locator.path === other)).toBe(true)
      expect(bySource.theirs).toHaveLength(2)
      expect(bySource.none).toEqual([])

      fs.writeFileSync(file, JSON.stringify({ ...doc, events: doc.events.slice(0, 6) }, null, 2) + "\n")
      const again = cli(args, { env: env(dir) })
      expect(again.code, again.stderr + again.stdout).toBe(0)
      const data = JSON.parse(again.stdout).data
      expect(data.sessionsNoLongerShown).toEqual([{ provider: "muse-code", path: file, sessionId: BBBB, events: 1 }])
      const muse = data.providers.find((p: { provider: string }) => p.provider === "muse-code")
      const said = muse.diagnostics.filter((d: { code: string }) => d.code === "SOURCE_REWRITTEN")
      expect(said.map((d: { details: unknown }) => d.details)).toEqual([
        { path: file, kept: 0, missing: 4, imported: 8, sessionsNoLongerShown: [{ sessionId: BBBB, events: 1 }] }
      ])
      const listed = JSON.parse(cli(["sessions", "--index", index, "--json"]).stdout).data as Array<{ sessionId: string; eventCount: number; locator: { path: string } }>
      expect(listed.map((s) => [s.locator.path, s.sessionId, s.eventCount]).sort()).toEqual(
        [[file, AAAA, 4], [other, AAAA, 7], [other, BBBB, 1]].sort()
      )
    }))
})
