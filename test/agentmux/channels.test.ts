/**
 * Issue 18, part 1: the archives "New conversation" writes into a channel's
 * own store (AgentMux `agent_session::archive::archive_session`), found under
 * the authorized AgentMux root (`--agentmux-root`, default `~/.agentmux`) and
 * merged with the global store's sessions.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { IngestError } from "../../src/domain/errors.js"
import type { DiscoveryReport } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import type { AccessPolicyInput } from "../../src/services/AccessPolicy.js"
import { type SessionSourceAdapter, SessionSources } from "../../src/services/SessionSource.js"
import { assistant, layout } from "./fixture.js"
import {
  CH_ARCHIVE_OLD,
  CH_ARCHIVE_X,
  chOld,
  chX,
  CURRENT,
  DEV0,
  DEV_ARCHIVE,
  devLines,
  G0,
  globalCurrent,
  type Home,
  makeHome,
  OLD0,
  treeFingerprint,
  UID,
  X0
} from "./home-fixture.js"
import { appendBytes, tsidxRecord, withStore, writeFile } from "./store-helper.js"

const iso = (ms: number) => new Date(ms).toISOString()

let dir: string
let home: Home
let state: string

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "am-home-")))
  fs.mkdirSync(nodePath.join(dir, "agentmux"))
  state = nodePath.join(dir, "state", "state.db")
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const build = (opts?: { global?: boolean }) => {
  home = makeHome(nodePath.join(dir, "agentmux"), opts)
}

/** Run `f` on the agentmux adapter; nothing under the AgentMux home changes (listing and bytes). */
const run = <A>(f: (a: SessionSourceAdapter) => Effect.Effect<A, IngestError>, policy: AccessPolicyInput = {}) =>
  Effect.gen(function*() {
    const before = treeFingerprint(home.root)
    const out = yield* Effect.flatMap(SessionSources, (s) => s.get("agentmux")).pipe(
      Effect.flatMap(f),
      Effect.provide(App.layer({ agentmuxRoot: home.root, stateFile: state, ...policy } as AccessPolicyInput))
    )
    expect(treeFingerprint(home.root)).toEqual(before)
    return out
  })

const discover = (policy?: AccessPolicyInput) => run((a) => a.discover({ agentId: UID }), policy)
const locator = (sessionId: string) => ({ locatorClass: "agentmux-agent-record" as const, path: "", agentId: UID, sessionId })
const events = (sid: string) => run((a) => Effect.map(Stream.runCollect(a.stream(locator(sid))), Chunk.toReadonlyArray))
const transcript = (sid: string) => run((a) => a.transcript(locator(sid)))

type ChannelReceipt = {
  store: string
  zones: Array<{ zone: string; readFrom: number; readTo: number; bytesRead: number }>
  ignoredZones: Array<string>
}
const channelReceipt = (r: DiscoveryReport, store: string) =>
  (r.receipts.channelStores as Array<ChannelReceipt>).find((c) => c.store === store)!

const texts = (t: { turns: ReadonlyArray<{ role: string; blocks: ReadonlyArray<{ type: string; text?: string }> }> }) =>
  t.turns.map((x) => `${x.role}:${x.blocks.filter((b) => b.type === "text").map((b) => b.text).join("")}`)

describe("AgentMux per-channel archives (issue 18)", () => {
  it.effect("discovers an archive that lives only in a channel's store, and reads it", () =>
    Effect.gen(function*() {
      build()
      const r = yield* discover()
      expect(r.status).toBe("checked")
      expect(r.coverage).toBe("complete")
      expect(r.sources.map((s) => s.sessionId)).toEqual(["S-NEW", "S-X", "S-DEV", "S-OLD"])
      const old = r.sources.find((s) => s.sessionId === "S-OLD")!
      expect(old.summary).toEqual({
        sessionId: "S-OLD",
        cwd: "/w/old",
        firstReceivedAt: iso(OLD0),
        lastReceivedAt: iso(OLD0 + 1000),
        lineCount: 2,
        runs: [{
          store: home.channel,
          zone: CH_ARCHIVE_OLD,
          start: 0,
          end: chOld.bytes.length,
          lines: 2,
          firstReceivedAt: iso(OLD0),
          lastReceivedAt: iso(OLD0 + 1000)
        }]
      })
      // The dev build's store is found too.
      const dev = r.sources.find((s) => s.sessionId === "S-DEV")!
      expect(dev.summary.runs).toEqual([{
        store: home.dev,
        zone: DEV_ARCHIVE,
        start: 0,
        end: devLines.bytes.length,
        lines: 2,
        firstReceivedAt: iso(DEV0),
        lastReceivedAt: iso(DEV0)
      }])
      // One record: every source is addressed by the global store, whichever store holds it.
      expect(new Set(r.sources.map((s) => s.locator.path))).toEqual(new Set([home.global]))
      expect((r.receipts.channelStores as Array<ChannelReceipt>).map((c) => c.store).sort()).toEqual([home.channel, home.dev].sort())
      expect(texts(yield* transcript("S-OLD"))).toEqual(["assistant:old answer"])
      expect(texts(yield* transcript("S-DEV"))).toEqual(["assistant:dev answer"])
    }))

  it.effect("one session seen in two stores is one session, with the runs of both, in the same order everywhere", () =>
    Effect.gen(function*() {
      build()
      const r = yield* discover()
      expect(r.sources.filter((s) => s.sessionId === "S-X")).toHaveLength(1)
      const x = r.sources.find((s) => s.sessionId === "S-X")!
      const globalRun = globalCurrent.lines[1].end
      expect(x.summary).toEqual({
        sessionId: "S-X",
        cwd: "/w/x",
        firstReceivedAt: iso(X0),
        lastReceivedAt: iso(G0),
        lineCount: 5,
        runs: [
          { store: home.channel, zone: CH_ARCHIVE_X, start: 0, end: chX.bytes.length, lines: 3, firstReceivedAt: iso(X0), lastReceivedAt: iso(X0 + 2000) },
          // a run of the global store carries no `store` (as before issue 18)
          { zone: CURRENT, start: 0, end: globalRun, lines: 2, firstReceivedAt: iso(G0), lastReceivedAt: iso(G0) }
        ]
      })
      expect(texts(yield* transcript("S-X"))).toEqual([
        "user:first question",
        "assistant:first answer",
        "user:continue",
        "assistant:resumed answer"
      ])
      const ev = yield* events("S-X")
      // stream and transcript agree: the same messages, from both stores, once each
      expect(ev.filter((e) => e.kind === "message").map((e) => e.text)).toEqual([
        "first question",
        "first answer",
        "continue",
        "resumed answer"
      ])
      expect(new Set(ev.map((e) => e.sourceId))).toEqual(new Set([x.sourceId]))
      const inspected = yield* run((a) => a.inspect(locator("S-X")))
      expect(inspected.sessions).toEqual([x.summary])
      expect(inspected.eventCount).toBe(ev.length)
      // S-X's last run is in the global current: still being written
      expect(inspected.status).toBe("provisional")
      expect((yield* run((a) => a.inspect(locator("S-OLD")))).status).toBe("complete")
    }))

  it.effect("an archive copied byte for byte (AgentMux crashed between the archive write and the clear) is counted once", () =>
    Effect.gen(function*() {
      build()
      // "both zones populated": the channel store holds a copy of the global current as an archive
      withStore(home.channel, (db) => {
        writeFile(db, { zoneId: `agent:${UID}:archive:1700000900000`, name: "output", bytes: globalCurrent.bytes })
      })
      const r = yield* discover()
      const x = r.sources.find((s) => s.sessionId === "S-X")!
      expect(x.summary.lineCount).toBe(5)
      expect((x.summary.runs as Array<{ zone: string }>).map((run) => run.zone)).toEqual([CH_ARCHIVE_X, CURRENT])
      expect((r.sources.find((s) => s.sessionId === "S-NEW")!.summary.runs as Array<{ zone: string }>).map((run) => run.zone)).toEqual([CURRENT])
      expect(texts(yield* transcript("S-X"))).toEqual([
        "user:first question",
        "assistant:first answer",
        "user:continue",
        "assistant:resumed answer"
      ])
    }))

  it.effect("an archive copied byte for byte into the same store (archive_session crashed before the clear) is counted once (tester20 F1)", () =>
    Effect.gen(function*() {
      build()
      const storeAlone = { agentmuxRoot: undefined, agentmuxStore: home.global }
      const before = yield* discover(storeAlone)
      const eventsBefore = yield* run((a) => Effect.map(Stream.runCollect(a.stream(locator("S-X"))), Chunk.toReadonlyArray), storeAlone)
      withStore(home.global, (db) => {
        writeFile(db, { zoneId: `agent:${UID}:archive:1700000900000`, name: "output", bytes: globalCurrent.bytes })
      })
      const after = yield* discover(storeAlone)
      // the copy's runs left out: the same sessions, the same runs (the current zone's), the same lines
      const shape = (r: DiscoveryReport) => r.sources.map((s) => [s.sessionId, s.summary.lineCount, (s.summary.runs as Array<{ zone: string }>).map((x) => x.zone)])
      expect(shape(after)).toEqual(shape(before))
      expect(shape(after)).toEqual([["S-NEW", expect.any(Number), [CURRENT]], ["S-X", expect.any(Number), [CURRENT]]])
      const eventsAfter = yield* run((a) => Effect.map(Stream.runCollect(a.stream(locator("S-X"))), Chunk.toReadonlyArray), storeAlone)
      expect(eventsAfter.map((e) => [e.kind, e.text])).toEqual(eventsBefore.map((e) => [e.kind, e.text]))
    }))

  it.effect("only the agent's own zones of a channel store: never another agent's, a template's or a block's", () =>
    Effect.gen(function*() {
      build()
      const r = yield* discover()
      const ids = r.sources.map((s) => s.sessionId)
      for (const foreign of ["S-U10", "S-TPL", "S-TPL2", "S-BLOCK", "S-BAD1", "S-BAD2"]) expect(ids).not.toContain(foreign)
      // S-X's lines in another agent's archive are not S-X's runs
      const x = r.sources.find((s) => s.sessionId === "S-X")!
      expect((x.summary.runs as Array<{ zone: string }>).every((run) => run.zone.startsWith(`agent:${UID}:`))).toBe(true)
      const ch = channelReceipt(r, home.channel)
      expect(ch.zones.map((z) => z.zone).sort()).toEqual([CH_ARCHIVE_OLD, CH_ARCHIVE_X].sort())
      expect(ch.ignoredZones).toEqual([`agent:${UID}:archive:`, `agent:${UID}:archive:12ab`])
    }))

  it.effect("a WAL channel store with a live -wal is read through a private copy: nothing written beside it", () =>
    Effect.gen(function*() {
      build()
      const writer = new Database(home.channel)
      try {
        writer.pragma("wal_autocheckpoint = 0")
        appendBytes(writer, CH_ARCHIVE_OLD, "output", Buffer.from(`${assistant("S-OLD", "mo2", [{ type: "text", text: "in the wal" }])}\n`))
        const folder = nodePath.dirname(home.channel)
        expect(fs.existsSync(`${home.channel}-wal`)).toBe(true)
        const listing = fs.readdirSync(folder).sort()
        // `run` compares every file's bytes under the home before and after
        const r = yield* discover()
        expect(r.sources.find((s) => s.sessionId === "S-OLD")!.summary.lineCount).toBe(3)
        expect(texts(yield* transcript("S-OLD"))).toEqual(["assistant:old answerin the wal"])
        expect(fs.readdirSync(folder).sort()).toEqual(listing)
        expect(channelReceipt(r, home.channel)).toMatchObject({ storeMode: "snapshot" })
      } finally {
        writer.close()
      }
    }))

  it.effect("rescans are incremental per store: nothing appended, nothing read; an append is read alone", () =>
    Effect.gen(function*() {
      build()
      const first = yield* discover()
      expect(channelReceipt(first, home.channel).zones.map((z) => z.bytesRead).sort((a, b) => a - b)).toEqual(
        [chOld.bytes.length, chX.bytes.length].sort((a, b) => a - b)
      )
      const second = yield* discover()
      for (const c of second.receipts.channelStores as Array<ChannelReceipt>) {
        expect(c.zones.map((z) => z.bytesRead)).toEqual(c.zones.map(() => 0))
      }
      expect((second.receipts.zones as Array<{ bytesRead: number }>).map((z) => z.bytesRead)).toEqual([0])
      expect(second.sources).toEqual(first.sources)

      // This channel's own :current grows (S-X goes on there).
      const more = layout([assistant("S-X", "mx3", [{ type: "text", text: "on the channel" }])]).bytes
      withStore(home.channel, (db) => {
        appendBytes(db, CURRENT, "output", more)
        appendBytes(db, CURRENT, "output.tsidx", Buffer.from(tsidxRecord(0, G0 + 5000)))
      })
      const third = yield* discover()
      const ch = channelReceipt(third, home.channel)
      expect(ch.zones.find((z) => z.zone === CURRENT)).toMatchObject({ readFrom: 0, readTo: more.length, bytesRead: more.length })
      expect(ch.zones.filter((z) => z.zone !== CURRENT).map((z) => z.bytesRead)).toEqual([0, 0])
      expect(channelReceipt(third, home.dev).zones.map((z) => z.bytesRead)).toEqual([0])
      expect((third.receipts.zones as Array<{ bytesRead: number }>).map((z) => z.bytesRead)).toEqual([0])
      const x = third.sources.find((s) => s.sessionId === "S-X")!
      expect(x.summary.lineCount).toBe(6)
      expect(x.summary.lastReceivedAt).toBe(iso(G0 + 5000))
      expect(third.sources[0].sessionId).toBe("S-X")
    }))

  it.effect("without the global store, the channels' archives are still read", () =>
    Effect.gen(function*() {
      build({ global: false })
      const r = yield* discover()
      expect(r.status).toBe("checked")
      expect(r.sources.map((s) => s.sessionId)).toEqual(["S-X", "S-DEV", "S-OLD"])
      expect(r.diagnostics.map((d) => d.code)).toContain("STORE_ABSENT")
      expect(texts(yield* transcript("S-X"))).toEqual(["user:first question", "assistant:first answer"])
    }))

  it.effect("--store alone reads that store only; --agentmux-root with it adds the channels", () =>
    Effect.gen(function*() {
      build()
      const only = yield* discover({ agentmuxRoot: undefined, agentmuxStore: home.global })
      expect(only.sources.map((s) => s.sessionId)).toEqual(["S-NEW", "S-X"])
      expect(only.receipts.channelStores).toEqual([])
      const both = yield* discover({ agentmuxStore: home.global })
      expect(both.sources.map((s) => s.sessionId)).toEqual(["S-NEW", "S-X", "S-DEV", "S-OLD"])
    }))
})

describe("something else than a file in a channel's store place (tester19 F8: skipped without a word)", () => {
  it.effect.each([
    ["a fifo", (p: string) => execFileSync("mkfifo", [p])],
    ["a folder", (p: string) => fs.mkdirSync(p)]
  ] as const)("%s: CHANNEL_STORE_UNREADABLE names the store, coverage partial; never waited on; the other stores are read", ([, make]) =>
    Effect.gen(function*() {
      build()
      fs.rmSync(home.dev)
      make(home.dev)
      const r = yield* discover()
      expect(r.coverage).toBe("partial")
      expect(r.reasonCode).toBe("CHANNEL_STORE_UNREADABLE")
      const unreadable = r.diagnostics.filter((d) => d.code === "CHANNEL_STORE_UNREADABLE")
      expect(unreadable.map((d) => (d.details as { store: string }).store)).toEqual([home.dev])
      expect(r.sources.map((s) => s.sessionId)).toContain("S-NEW")
      expect(r.sources.map((s) => s.sessionId)).toContain("S-OLD")
      expect(r.sources.map((s) => s.sessionId)).not.toContain("S-DEV")
    }))
})

describe("a channel's store reached through a symlink (found by a fresh user: skipped without a word)", () => {
  /** Move the dev store (or one folder on its path) out of the home and link it back: its sessions are not read. */
  const linked = (at: (h: Home) => string) => {
    build()
    const target = at(home)
    const away = nodePath.join(dir, "elsewhere", nodePath.basename(target))
    fs.mkdirSync(nodePath.dirname(away), { recursive: true })
    fs.renameSync(target, away)
    fs.symlinkSync(away, target)
    return target
  }

  it.effect.each([
    ["the store file", (h: Home) => h.dev],
    ["its db folder", (h: Home) => nodePath.dirname(h.dev)],
    ["its data folder", (h: Home) => nodePath.dirname(nodePath.dirname(h.dev))],
    ["its dev build's folder", (h: Home) => nodePath.dirname(nodePath.dirname(nodePath.dirname(h.dev)))],
    ["a channel's version folder", (h: Home) => nodePath.dirname(nodePath.dirname(nodePath.dirname(h.channel)))]
  ] as const)("%s: SYMLINK_SKIPPED names it, coverage partial; the other stores are read", ([, at]) =>
    Effect.gen(function*() {
      const link = linked(at)
      const r = yield* discover()
      expect(r.coverage).toBe("partial")
      expect(r.reasonCode).toBe("SYMLINK_SKIPPED")
      const skipped = r.diagnostics.filter((d) => d.code === "SYMLINK_SKIPPED")
      expect(skipped.map((d) => (d.details as { path: string }).path)).toEqual([link])
      expect(skipped[0].message).toContain(link)
      // What was not behind the link is still read.
      expect(r.sources.map((s) => s.sessionId)).toContain("S-NEW")
      const behind = link.startsWith(nodePath.join(home.root, "dev")) ? "S-DEV" : "S-OLD"
      expect(r.sources.map((s) => s.sessionId)).not.toContain(behind)
    }))

  it.effect("a symlink elsewhere under the home (not where a store would be) is no diagnostic", () =>
    Effect.gen(function*() {
      build()
      fs.symlinkSync(dir, nodePath.join(home.root, "dev", "feature-x", "node_modules"))
      fs.symlinkSync(dir, nodePath.join(home.root, "shared", "link"))
      const r = yield* discover()
      expect(r.coverage).toBe("complete")
      expect(r.diagnostics.map((d) => d.code)).not.toContain("SYMLINK_SKIPPED")
    }))

  it.effect("no global store and the only channel's store behind a symlink: STORE_ABSENT, and the symlink named", () =>
    Effect.gen(function*() {
      build({ global: false })
      fs.rmSync(nodePath.join(home.root, "channels"), { recursive: true })
      const away = nodePath.join(dir, "elsewhere-dev")
      fs.renameSync(nodePath.join(home.root, "dev"), away)
      fs.symlinkSync(away, nodePath.join(home.root, "dev"))
      const r = yield* discover()
      expect(r.coverage).toBe("partial")
      expect(r.diagnostics.map((d) => [d.code, (d.details as { path?: string }).path ?? null])).toContainEqual(["SYMLINK_SKIPPED", nodePath.join(home.root, "dev")])
    }))
})
