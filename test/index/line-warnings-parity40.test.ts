/**
 * `StreamOptions.onLineWarning` (session 40, tester36a F1): a stream reports
 * each line's parse warnings as discovery's scan counts them in the source's
 * overview, so that a watch's targeted round can add those of the lines it
 * read to the last full round's count. Whole, a read's warnings are the
 * overview's (kinds, counts, first lines); resumed after a cursor, they are
 * those of the lines after the cursor's, numbered as the file numbers them.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Locator, SessionEvent } from "../../src/domain/model.js"
import type { SessionSourceAdapter } from "../../src/services/SessionSource.js"
import { withAdapter as withClaude } from "../claude-code/helpers.js"
import { jl, tempDir, withAdapter as withAgents, writeTranscript } from "../muse-agents/helpers.js"
import { fixturesDir } from "../support/paths.js"

type Warned = Array<[string, number]>

/** The source's lines' warnings a read reports (from `cursor`), and its events. */
const read = (a: SessionSourceAdapter, locator: Locator, cursor?: string) =>
  Effect.gen(function*() {
    const warned: Warned = []
    const events = yield* Stream.runCollect(a.stream(locator, { cursor, includeSubagents: true, onLineWarning: (k, n) => warned.push([k, n]) }))
    return { warned, events: [...events] as Array<SessionEvent> }
  })

/** `warned` tallied as an overview's `parseWarnings` (in order of first occurrence). */
const tally = (warned: Warned) => {
  const by = new Map<string, { kind: string; count: number; firstLine: number }>()
  for (const [kind, line] of warned) {
    const w = by.get(kind)
    if (w === undefined) by.set(kind, { kind, count: 1, firstLine: line })
    else w.count++
  }
  return [...by.values()]
}

/** For each source discovery lists: whole, the read's warnings are its overview's; resumed after each of a few events, those of the lines after it. */
const parity = (a: SessionSourceAdapter) =>
  Effect.gen(function*() {
    const report = yield* a.discover({})
    expect(report.sources.length).toBeGreaterThan(0)
    let compared = 0
    for (const s of report.sources) {
      const whole = yield* read(a, s.locator)
      expect(tally(whole.warned)).toEqual(s.overview.parseWarnings)
      compared += s.overview.parseWarnings.length
      const own = whole.events.filter((e) => e.sourceId === whole.events[0]?.sourceId)
      for (const e of [own[0], own[Math.floor(own.length / 2)], own[own.length - 1]]) {
        if (e === undefined) continue
        const line = e.rawReference.sequence ?? 0
        const resumed = yield* read(a, s.locator, e.cursor)
        // Lines after the cursor's, as the whole read numbered them (a line re-read to resume counts at most as itself).
        expect(resumed.warned.filter(([, n]) => n > line)).toEqual(whole.warned.filter(([, n]) => n > line))
        for (const w of resumed.warned) expect(whole.warned).toContainEqual(w)
      }
    }
    return compared
  })

describe("a stream's line warnings are its overview's (StreamOptions.onLineWarning)", () => {
  it.effect("Muse agents: every kind the scan counts, whole and resumed", () =>
    Effect.gen(function*() {
      const root = nodePath.join(tempDir(), "agents")
      const item = (seq: number, at: unknown = "2025-03-01T08:00:01Z") =>
        jl({ type: "item", seq, source: "runtime", item: { type: "message", role: "user", text: `m ${seq}` }, created_at: at })
      writeTranscript(root, "b", Buffer.concat([
        Buffer.from(jl({ type: "session_header", session_id: "s-1", agent_id: "b", created_at: "2025-03-01T08:00:00Z" })),
        Buffer.from(item(1)),
        Buffer.from("{not json\n"),
        Buffer.from("[1, 2]\n"),
        Buffer.from(item(2, "not a date")),
        Buffer.from(jl({ type: "session_header", session_id: "s-2", agent_id: "b", created_at: "2025-03-01T08:00:00Z" })),
        Buffer.from(jl({ type: "item", seq: 3 })),
        Buffer.from(`{"type":"item","seq":4,"source":"runtime","item":{"type":"message","role":"user","text":"bad `),
        Buffer.from([0xff, 0xc0]),
        Buffer.from(` utf"},"created_at":"2025-03-01T08:00:01Z"}\n`),
        Buffer.from(item(5, 0)),
        Buffer.from("\n"),
        Buffer.from(item(6)),
        Buffer.from("{still not json\n"),
        Buffer.from(item(7, "also not a date")),
        Buffer.from(item(8))
      ]))
      const compared = yield* withAgents(root, parity)
      expect(compared).toBeGreaterThanOrEqual(6)
    }))

  it.effect("Claude Code: the fixture sessions and a log with every kind, whole and resumed", () =>
    Effect.gen(function*() {
      const root = nodePath.join(tempDir(), "claude")
      fs.cpSync(nodePath.join(fixturesDir, "claude-code", "projects"), root, { recursive: true })
      const sid = "7a7a7a7a-0000-4000-8000-000000000041"
      const user = (n: number, extra: Record<string, unknown> = {}) =>
        jl({ type: "user", sessionId: sid, uuid: `u${n}`, parentUuid: n === 1 ? null : `u${n - 1}`, timestamp: "2025-02-01T10:00:00Z", cwd: "/home/dev/proj", message: { role: "user", content: `q ${n}` }, ...extra })
      fs.mkdirSync(nodePath.join(root, "-home-dev-proj"), { recursive: true })
      fs.writeFileSync(nodePath.join(root, "-home-dev-proj", `${sid}.jsonl`), Buffer.concat([
        Buffer.from(user(1)),
        Buffer.from("{not json\n"),
        Buffer.from("[1]\n"),
        Buffer.from(user(2, { timestamp: "not a date" })),
        Buffer.from(user(3, { timestamp: "1970-01-01T00:00:00Z" })),
        Buffer.from(jl({ type: "assistant", sessionId: sid, uuid: "a3", parentUuid: "u3", timestamp: "2025-02-01T10:00:00Z", cwd: "/home/dev/proj", requestId: "r", message: { id: "m", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: "a" }, { type: "mystery", x: 1 }], usage: { input_tokens: -5, output_tokens: 1 } } })),
        Buffer.from(`{"type":"user","sessionId":"${sid}","uuid":"u4","parentUuid":"u3","timestamp":"2025-02-01T10:00:00Z","message":{"role":"user","content":"bad `),
        Buffer.from([0xff]),
        Buffer.from(`"}}\n`),
        Buffer.from(user(5)),
        Buffer.from(user(5)),
        Buffer.from("{again not json\n"),
        Buffer.from(user(6))
      ]))
      const compared = yield* withClaude(root, parity)
      expect(compared).toBeGreaterThanOrEqual(6)
    }))
})
