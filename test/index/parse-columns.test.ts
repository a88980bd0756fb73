/**
 * A parse worker writes each batch's rows straight into columns
 * (`preparedColumnsOfEvents`, issue 13, first import: no `PreparedRow` and
 * no uid `Buffer` per event) and looks up a head's provider, source and
 * session ids only when they change (`headColumnsOf`). What the main thread
 * writes must not change: the columns are those of the rows the writer
 * computes in process (`preparedRowOf`, then `preparedColumnsOf`), and the
 * heads made again (`headsOf`) are the events' own (`eventHeadOf`), over
 * events of hostile text, tool inputs and usage, several sources and
 * sessions interleaved, and what the Muse Code adapter streams from the
 * bench's generated native log and the bundled fixtures.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SessionEvent } from "../../src/domain/model.js"
import { headColumnsOf, headsOf, preparedColumnsOf, ShapeTable, StringTable } from "../../src/layers/index/parse-pool.js"
import { preparedColumnsOfEvents } from "../../src/layers/index/parse-worker-work.js"
import { eventHeadOf, preparedRowOf } from "../../src/layers/index/sqlite-writer.js"
import { writeNativeLog } from "../../bench/generate/native.js"
import { mk } from "../support/events.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { adapterWith } from "../muse-code/native-helpers.js"

const HOSTILE = ["\u0000", "\u0085", "\u009f", "\u202e", "\u2028", "\ud800", "\udfff", "\u{1f389}", "\u65e5", "\u001b[31m", "\"", "\\", "\n", "\t", "word", " "]

/** Events of three sessions of two sources, interleaved, with hostile text, tool inputs and usage. */
const hostileEvents = (): Array<SessionEvent> => {
  const makers = [mk("claude-code", "s-1"), mk("claude-code", "s-2"), mk("muse-agents", "s-3")]
  const out: Array<SessionEvent> = []
  for (let i = 0; i < 300; i++) {
    const text = Array.from({ length: 1 + (i % 23) }, (_, j) => HOSTILE[(i * 7 + j) % HOSTILE.length]).join("")
    const at = makers[i % 3]
    out.push(at(i % 4 === 0 ? "tool-call" : "message", {
      role: i % 5 === 0 ? null : "assistant",
      text: i % 6 === 0 ? null : text.repeat(1 + (i % 3)),
      toolName: i % 4 === 0 ? `Bash${text.slice(0, 2)}` : null,
      toolInput: i % 4 === 0 ? { command: text, nested: [text, i, null, { k: -0 }] } : null,
      usage: i % 7 === 0 ? { inputTokens: i, outputTokens: 2 * i, cacheReadTokens: null, cacheWriteTokens: null } as never : null,
      model: i % 7 === 0 ? "claude-sonnet-4-5" : null,
      occurredAt: i % 9 === 0 ? null : `2026-09-25T15:13:${String(i % 60).padStart(2, "0")}.000Z`
    }, { line: text, n: i }))
  }
  return out
}

/** The columns the main thread gets both ways, and the heads made again. */
const bothWays = (events: ReadonlyArray<SessionEvent>) => {
  const direct = new ShapeTable()
  const viaRows = new ShapeTable()
  const words = new StringTable()
  const columns = headColumnsOf(events, words)
  return {
    direct: { columns: preparedColumnsOfEvents(events, direct), shapes: direct.defs },
    viaRows: { columns: preparedColumnsOf(events.map(preparedRowOf), viaRows), shapes: viaRows.defs },
    heads: headsOf(columns, words.defs)
  }
}

describe("a parse worker's columns are the rows the writer computes", () => {
  it("over hostile events of several sources and sessions, interleaved", () => {
    const events = hostileEvents()
    const r = bothWays(events)
    expect(r.direct).toEqual(r.viaRows)
    expect(r.heads).toEqual(events.map(eventHeadOf))
    // Each event's 16 uid bytes are its own (no two alike), not zeros.
    const uids = new Set<string>()
    for (let i = 0; i < events.length; i++) uids.add(Buffer.from(r.direct.columns.uids.subarray(i * 16, i * 16 + 16)).toString("hex"))
    expect(uids.size).toBe(events.length)
  })

  it.effect("over the Muse Code events of the bench's generated log and the fixtures (their payload's text copied)", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const ws = path.join(root, "ws")
      fs.mkdirSync(ws)
      const generated = path.join(root, "muse", "2026", "09", "25", "00000001-0000-4000-8000-000000000b16", "session.jsonl")
      writeNativeLog(generated, 1024 * 1024, ws)
      const native = path.join(fixturesDir, "muse-code/native")
      const muse = yield* adapterWith({ policy: { museRoots: [path.join(root, "muse"), native], workspaceRoots: [ws, "/workspace/demo"] } })
      const events: Array<SessionEvent> = [
        ...Chunk.toArray(yield* Stream.runCollect(muse.stream({ locatorClass: "muse-native-session-log", path: generated }, { includeSubagents: true })))
      ]
      for (const f of (fs.readdirSync(native, { recursive: true }) as Array<string>).sort()) {
        if (!f.endsWith("session.jsonl")) continue
        const r = yield* Effect.either(Stream.runCollect(muse.stream({ locatorClass: "muse-native-session-log", path: path.join(native, f) }, { includeSubagents: true })))
        if (r._tag === "Right") events.push(...Chunk.toArray(r.right))
      }
      expect(events.length).toBeGreaterThan(300)
      const r = bothWays(events)
      expect(r.direct).toEqual(r.viaRows)
      expect(r.heads).toEqual(events.map(eventHeadOf))
    }))
})
