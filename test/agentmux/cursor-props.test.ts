/**
 * AgentMux cursors bind the event they came from (issue 11 item 7): two
 * events of one stream-json line (`am-2-0`, `am-2-1`) have cursors that no
 * edit turns into one another. Any edit of any field of a cursor is
 * INVALID_CURSOR, or resumes exactly where the unedited cursor does.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import { encodeCursor } from "../../src/domain/cursor.js"
import type { SessionEvent } from "../../src/domain/model.js"
import * as App from "../../src/layers/app.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import { fixturesDir, tempDir } from "../support/paths.js"
import { collect } from "../support/run.js"

const store = path.join(fixturesDir, "agentmux", "filestore.db")
const scratch = tempDir()
const loc = (sessionId: string) => ({ locatorClass: "agentmux-agent-record" as const, path: "", agentId: "u1", sessionId })

const streamOf = (sid: string, cursor?: string) =>
  Effect.flatMap(SessionSources, (r) => r.get("agentmux")).pipe(
    Effect.flatMap((a) => collect(a.stream(loc(sid), cursor === undefined ? undefined : { cursor })))
  )

const outcome = (sid: string, cursor: string) =>
  Effect.map(Effect.either(streamOf(sid, cursor)), (r) =>
    r._tag === "Left" ? r.left.code : r.right.map((e: SessionEvent) => e.eventId))

/** A replacement for one field of a `c2` token. */
const arbField = fc.oneof(
  fc.constant(""),
  fc.nat({ max: 40 }).map((n) => n.toString(36)),
  fc.stringMatching(/^[0-9a-f]{1,32}$/),
  fc.stringMatching(/^[A-Za-z0-9_-]{0,12}$/)
)

layer(App.layer({ agentmuxStore: store, stateFile: path.join(scratch, "state.db") }))("agentmux cursors", (it) => {
  it.effect("events of one line have cursors bound to each event: an edited sequence is INVALID_CURSOR", () =>
    Effect.gen(function*() {
      const all = yield* streamOf("S-B")
      const i = all.findIndex((e) => e.eventId === "am-2-0")
      expect(all[i + 1].eventId).toBe("am-2-1")
      const f = all[i].cursor.split(".")
      f[2] = all[i + 1].sequence.toString(36)
      expect(yield* outcome("S-B", f.join("."))).toBe("INVALID_CURSOR")
      const g = all[i + 1].cursor.split(".")
      g[2] = all[i].sequence.toString(36)
      expect(yield* outcome("S-B", g.join("."))).toBe("INVALID_CURSOR")
      // unedited cursors resume right after their event
      expect(yield* outcome("S-B", all[i].cursor)).toEqual(all.slice(i + 1).map((e) => e.eventId))
      expect(yield* outcome("S-B", all[i + 1].cursor)).toEqual(all.slice(i + 2).map((e) => e.eventId))
    }))

  it.effect("a token of the previous build (h = sha256 of the line) resumes only where its line has one event", () =>
    Effect.gen(function*() {
      const all = yield* streamOf("S-B")
      const src = all[0].sourceId
      const old = (seq: number, h: string) => encodeCursor({ v: 1, src, seq, h })
      // what the previous build bound: the first 128 bits of the sha256 of the event's line
      const line0 = "96d67a1c4297972502ad77ef4dd65600" // am-0-0, the only event of its line
      const line2 = "580123faf5f80979c604432a6cc1edca" // am-2-0 and am-2-1
      expect(all.slice(0, 3).map((e) => e.eventId)).toEqual(["am-0-0", "am-2-0", "am-2-1"])
      expect(yield* outcome("S-B", old(0, line0))).toEqual(all.slice(1).map((e) => e.eventId))
      // a line with two events: the old token cannot say which, so it is refused either way
      expect(yield* outcome("S-B", old(1, line2))).toBe("INVALID_CURSOR")
      expect(yield* outcome("S-B", old(2, line2))).toBe("INVALID_CURSOR")
      expect(yield* outcome("S-B", old(1, line0))).toBe("INVALID_CURSOR")
    }))

  it.effect.prop(
    "any edit of any field of a cursor is INVALID_CURSOR or resumes where the unedited cursor does",
    [fc.constantFrom("S-A", "S-B"), fc.nat(), fc.integer({ min: 1, max: 8 }), arbField],
    ([sid, pick, field, value]) =>
      Effect.gen(function*() {
        const all = yield* streamOf(sid)
        const k = pick % all.length
        const f = all[k].cursor.split(".")
        expect(f.length).toBe(9)
        f[field] = value
        const r = yield* outcome(sid, f.join("."))
        if (r !== "INVALID_CURSOR") expect(r).toEqual(all.slice(k + 1).map((e) => e.eventId))
      }),
    { fastCheck: { numRuns: 300 } }
  )

  it.effect.prop(
    "any cursor of one event with another event's sequence, sub or check is INVALID_CURSOR",
    [fc.constantFrom("S-A", "S-B"), fc.nat(), fc.nat(), fc.subarray([2, 5, 6], { minLength: 1 })],
    ([sid, a, b, fields]) =>
      Effect.gen(function*() {
        const all = yield* streamOf(sid)
        const x = all[a % all.length]
        const y = all[b % all.length]
        if (x.sequence === y.sequence) return
        const fx = x.cursor.split(".")
        const fy = y.cursor.split(".")
        for (const i of fields) fx[i] = fy[i]
        const r = yield* outcome(sid, fx.join("."))
        if (fx.join(".") === y.cursor) {
          expect(r).toEqual(all.slice(y.sequence + 1).map((e) => e.eventId))
        } else if (fx.join(".") === x.cursor) {
          expect(r).toEqual(all.slice(x.sequence + 1).map((e) => e.eventId))
        } else {
          expect(r).toBe("INVALID_CURSOR")
        }
      }),
    { fastCheck: { numRuns: 200 } }
  )
})

fs.mkdirSync(scratch, { recursive: true })
