/**
 * Odd timestamps are never normalised silently (finding F8 of session 13).
 * Rules, per provider (docs/stream-and-cursors.md "Timestamps a source cannot have"; AgentMux's receive times: test/agentmux/receive-time.test.ts):
 * - a leap second (RFC 3339 `23:59:60`) is the last instant of that minute,
 *   `…:59.999999999Z`: the same day, after every earlier instant of it;
 * - a string of digits is an epoch by its magnitude, as a number is
 *   (DESIGN.md: epoch inputs converted);
 * - a time that reads as a date the record cannot have (before 2000 or from
 *   2100 on, fixed bounds: an epoch 0, 1.5, 1e14 ms) is not trusted: the
 *   tolerant providers (Claude Code, Muse agents, AgentMux) keep the event
 *   with `occurredAt` null and count `implausible-timestamp` (count, first
 *   line), said "kept"; Muse Code converts it as before (its mapping has no
 *   counted warning; a rejection would lose the session's other events).
 * Expected values are worked out from the inputs written here.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { mapRecordEnvelope } from "../src/domain/muse-code/records.js"
import { checkSourceTimestamp, compareTimestamps, normalizeTimestamp, timestampWarningOf } from "../src/domain/timestamps.js"
import { isKeptWarningKind, parseWarningMessage } from "../src/domain/warning-kinds.js"
import * as Claude from "./claude-code/helpers.js"
import * as Agents from "./muse-agents/helpers.js"
import { emptyFolder } from "./support/paths.js"
import { cli } from "./support/run.js"

/** A date past the bound (2100-01-01): never trusted, whatever the clock says. */
const farFutureIso = "2100-01-01T00:00:00Z"

describe("timestamps a source cannot have (domain)", () => {
  it("a leap second is the last instant of its minute, never the next day", () => {
    const leap = normalizeTimestamp("2024-12-31T23:59:60Z")
    expect(leap).toMatchObject({ _tag: "ok", value: "2024-12-31T23:59:59.999999999Z" })
    expect(normalizeTimestamp("2016-12-31T23:59:60.5Z")).toMatchObject({ _tag: "ok", value: "2016-12-31T23:59:59.999999999Z" })
    // With a zone: 23:59:60 at +01:00 is 22:59:60 UTC.
    expect(normalizeTimestamp("2017-01-01T00:59:60+01:00")).toMatchObject({ _tag: "ok", value: "2016-12-31T23:59:59.999999999Z" })
    const v = (leap as { value: string }).value
    expect(compareTimestamps(v, "2024-12-31T23:59:59.999Z")).toBeGreaterThan(0)
    expect(compareTimestamps(v, "2025-01-01T00:00:00Z")).toBeLessThan(0)
    expect(checkSourceTimestamp("2024-12-31T23:59:60Z")).toMatchObject({ _tag: "ok", value: "2024-12-31T23:59:59.999999999Z" })
  })

  it("a string of digits is an epoch by its magnitude, as a number is; a string that is no time is not valid", () => {
    expect(checkSourceTimestamp("1733300000")).toMatchObject({ _tag: "ok", value: "2024-12-04T08:13:20.000Z" })
    expect(timestampWarningOf("1733300000")).toBeNull()
    expect(checkSourceTimestamp("yesterday")).toEqual({ _tag: "not-valid" })
    expect(timestampWarningOf("yesterday")).toBe("timestamp-not-valid")
    expect(checkSourceTimestamp(1_733_300_000)).toMatchObject({ _tag: "ok", value: "2024-12-04T08:13:20.000Z" })
    expect(checkSourceTimestamp(1_733_300_000_000)).toMatchObject({ _tag: "ok", value: "2024-12-04T08:13:20.000Z" })
  })

  it("before 2000 or from 2100 on is implausible, whatever the clock; absent is no warning", () => {
    for (const v of [0, 1.5, 1e14, 946_684_799, "1999-12-31T23:59:59Z", "1970-01-01T00:00:00Z", farFutureIso, "9999-12-31T23:59:59Z"]) {
      expect(checkSourceTimestamp(v), String(v)).toEqual({ _tag: "implausible" })
      expect(timestampWarningOf(v), String(v)).toBe("implausible-timestamp")
    }
    for (const v of [946_684_800, "2000-01-01T00:00:00Z", "2099-12-31T23:59:59.999Z", 4_102_444_799_999]) {
      expect(checkSourceTimestamp(v)._tag, String(v)).toBe("ok")
    }
    expect(timestampWarningOf(undefined)).toBeNull()
    expect(timestampWarningOf(null)).toBeNull()
    expect(isKeptWarningKind("implausible-timestamp")).toBe(true)
    expect(parseWarningMessage({ kind: "implausible-timestamp", count: 3, firstLine: 2 })).toMatch(/^3 line\(s\) kept without a time \(.*before 2000.*\): implausible-timestamp \(first at line 2\)\.$/)
  })
})

describe("Claude Code", () => {
  const sid = "eeeeeeee-0000-4000-8000-00000000000e"
  const u = (i: number, ts: unknown) => ({
    type: "user", sessionId: sid, uuid: `u${i}`, cwd: "/x", timestamp: ts, message: { role: "user", content: `prompt ${i}` }
  })
  const write = (root: string) => {
    const dir = nodePath.join(root, "-x")
    fs.mkdirSync(dir, { recursive: true })
    const file = nodePath.join(dir, `${sid}.jsonl`)
    const rows = [u(1, "2024-12-31T23:59:59Z"), u(2, "2024-12-31T23:59:60Z"), u(3, "yesterday"), u(4, "1970-01-01T00:00:00Z"), u(5, farFutureIso), u(6, "2025-01-01T00:00:00Z")]
    fs.writeFileSync(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n")
    return file
  }
  const loc = (path: string) => ({ locatorClass: "claude-code-session-log" as const, path })

  it.effect("leap second kept in its minute; a word not valid; 1970 and 2100 implausible, counted; every event kept", () =>
    Effect.gen(function*() {
      const root = Claude.tempDir("si-claude-implausible-")
      const file = write(root)
      const events = yield* Claude.withAdapter(root, (a) => Claude.collect(a.stream(loc(file))))
      expect(events.map((e) => e.text)).toEqual([1, 2, 3, 4, 5, 6].map((i) => `prompt ${i}`))
      expect(events.map((e) => e.occurredAt)).toEqual(["2024-12-31T23:59:59.000Z", "2024-12-31T23:59:59.999999999Z", null, null, null, "2025-01-01T00:00:00.000Z"])
      const d = yield* Claude.withAdapter(root, (a) => a.discover({}))
      const ws = (d.sources[0].summary.parseWarnings ?? []) as ReadonlyArray<{ kind: string; count: number; firstLine: number }>
      expect(Object.fromEntries(ws.map((w) => [w.kind, [w.count, w.firstLine]]))).toEqual({ "timestamp-not-valid": [1, 3], "implausible-timestamp": [2, 4] })
      const i = yield* Claude.withAdapter(root, (a) => a.inspect(loc(file)))
      const w = i.diagnostics.find((x) => x.details?.kind === "implausible-timestamp")!
      expect(w.message).toContain("kept without a time")
    }))

  it("the import report counts them, kept (text and --json)", () => {
    const root = Claude.tempDir("si-claude-implausible-")
    write(root)
    const dir = Claude.tempDir("si-claude-implausible-")
    const args = ["import", "--index", nodePath.join(dir, "i.db"), "--claude-root", root, "--agents-root", emptyFolder(dir), "--workspace", dir]
    const j = cli([...args, "--json"], { env: { NO_COLOR: "1", MUSE_AGENTS_DIR: "" } })
    const data = JSON.parse(j.stdout).data
    expect(data.parseWarnings.byKind).toMatchObject({ "implausible-timestamp": 2, "timestamp-not-valid": 1 })
    expect(data.eventsAdded).toBe(6)
    const t = cli(args, { env: { NO_COLOR: "1", MUSE_AGENTS_DIR: "" } })
    expect(t.stdout).toMatch(/implausible-timestamp 2: a timestamp before 2000 or after 2099/)
  })

  it("discover's text output counts them as its --json does (kind, count, first line), as the import report says them", () => {
    const root = Claude.tempDir("si-claude-implausible-")
    const file = write(root)
    const env = { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "" }
    const j = JSON.parse(cli(["discover", "claude-code", "--claude-root", root, "--json"], { env }).stdout).data
    expect(j.sources[0].overview.parseWarnings.map((w: { kind: string; count: number }) => [w.kind, w.count])).toEqual([["timestamp-not-valid", 1], ["implausible-timestamp", 2]])
    const t = cli(["discover", "claude-code", "--claude-root", root], { env })
    expect(t.code).toBe(0)
    // One summary line (3 lines of 1 source, each kind with its count, all kept), then the source with its kinds.
    expect(t.stdout).toMatch(/^parse warnings: 3 lines in 1 source kept: .*timestamp-not-valid 1: a timestamp not valid.*implausible-timestamp 2: a timestamp before 2000 or after 2099.*every line was read$/m)
    expect(t.stdout).toContain(`  - claude-code ${fs.realpathSync(file)}: timestamp-not-valid 1 (first at line 3), implausible-timestamp 2 (first at line 4)`)
  })
})

describe("Muse agents", () => {
  const jl = (v: unknown) => JSON.stringify(v) + "\n"
  const item = (seq: number, createdAt: unknown) =>
    jl({ type: "item", seq, source: "runtime", item: { type: "message", role: seq % 2 === 0 ? "assistant" : "user", text: `m${seq}` }, created_at: createdAt })

  it.effect("created_at: leap second, a word, 0, 1.5, 1e14 — events kept, counted by kind, first line", () =>
    Effect.gen(function*() {
      const root = Agents.tempDir()
      const dir = nodePath.join(root, "ag", "sessions")
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(
        nodePath.join(dir, "ag.jsonl"),
        jl({ type: "session_header", session_id: "s-ag", agent_id: "ag", created_at: "2024-12-31T23:59:00Z" }) +
          item(1, "2024-12-31T23:59:60Z") + item(2, "soon") + item(3, 0) + item(4, 1.5) + item(5, 1e14) + item(6, 1_735_689_600)
      )
      const events = yield* Agents.withAdapter(root, (a) => Agents.collect(a.stream(Agents.locatorOf("ag", root))))
      expect(events.map((e) => e.occurredAt)).toEqual(["2024-12-31T23:59:59.999999999Z", null, null, null, null, "2025-01-01T00:00:00.000Z"])
      const d = yield* Agents.withAdapter(root, (a) => a.discover({}))
      const ws = (d.sources[0].summary.parseWarnings ?? []) as ReadonlyArray<{ kind: string; count: number; firstLine: number }>
      expect(Object.fromEntries(ws.map((w) => [w.kind, [w.count, w.firstLine]]))).toEqual({ "timestamp-not-valid": [1, 3], "implausible-timestamp": [3, 4] })
    }))
})

describe("Muse Code", () => {
  const ctx = { sourceId: "s", locatorClass: "manual-export" as const, fallbackSessionId: "f", sequence: 0, cursor: "c", spawns: new Map(), provenance: {} }
  const map = (recordedAt: unknown) => mapRecordEnvelope({ sequence: 1, payload_type: "turn.prompt", recorded_at: recordedAt, payload: { event: { prompt: "p" } } }, ctx, "event 1")

  it("recorded_at: a µs time, a leap second in its minute, and an odd epoch converted as before (the session is not rejected)", () => {
    expect(Either.getOrThrow(map(1_790_349_213_894_901)).occurredAt).toBe("2026-09-25T15:13:33.894901Z")
    expect(Either.getOrThrow(map("2024-12-31T23:59:60Z")).occurredAt).toBe("2024-12-31T23:59:59.999999999Z")
    expect(Either.getOrThrow(map(0)).occurredAt).toBe("1970-01-01T00:00:00.000Z")
  })
})
