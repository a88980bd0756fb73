/**
 * claude-code on the shared JSONL kit (issue 12): a cursor on an unterminated
 * last line resumes once that line is completed and appended to; tokens that
 * bind the line the way the earlier build did (check over the `\n`, or no
 * head binding) are INVALID_CURSOR; a file that shrinks while read fails.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { encodeCursor, lineCrc, peekCursor, placeCheck } from "../../src/domain/cursor.js"
import { collect, copyFixtures, locatorOf, S, sessionPath, withAdapter } from "./helpers.js"

const record = (uuid: string, text: string) =>
  JSON.stringify({ type: "user", uuid, parentUuid: null, sessionId: S.S5, isSidechain: false, timestamp: "2026-01-15T08:31:00.000Z", message: { role: "user", content: text } })

describe("claude-code cursors on an unterminated last line", () => {
  it.effect("the last line's cursor resumes after its newline is written and more lines appended", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      const p = sessionPath(S.S5, root)
      fs.writeFileSync(p, fs.readFileSync(p, "utf8").trimEnd() + "\n" + record("u-last", "Not yet ended."))
      const before = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S5, root))))
      const last = before[before.length - 1]
      expect(last.text).toBe("Not yet ended.")
      // Nothing after it yet.
      expect(yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S5, root), { cursor: last.cursor })))).toEqual([])
      fs.appendFileSync(p, "\n" + record("u-next", "Now it is.") + "\n")
      const after = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S5, root))))
      const rest = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S5, root), { cursor: last.cursor })))
      expect(rest.map((e) => e.text)).toEqual(["Now it is."])
      expect(rest).toEqual(after.slice(before.length).map((e) => ({ ...e })))
      // Every earlier cursor still resumes with exactly the rest.
      for (let i = 0; i < before.length - 1; i++) {
        const r = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S5, root), { cursor: before[i].cursor })))
        expect(r.map((e) => e.eventId)).toEqual(after.slice(i + 1).map((e) => e.eventId))
      }
    }))
})

describe("claude-code cursor tokens bind by the kit's rule", () => {
  it.effect("a token whose line check covers the newline, or without a head binding, is INVALID_CURSOR", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      const p = sessionPath(S.S1, root)
      const events = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S1, root))))
      const bytes = fs.readFileSync(p)
      for (const ev of [events[0], events[3]]) {
        const state = peekCursor(ev.cursor)
        if (state._tag !== "Right") throw new Error("undecodable cursor")
        const s = { ...state.right, src: events[0].sourceId }
        // The same token re-encoded resumes (the forgeries below differ in one field only).
        const same = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S1, root), { cursor: encodeCursor(s) })))
        expect(same.length).toBe(events.length - events.indexOf(ev) - 1)
        const line = bytes.subarray(s.ls!, s.off! - 1)
        const overNewline = encodeCursor({ ...s, h: placeCheck(lineCrc(line, true), s.seq, s.sub) })
        const { hd: _hd, ...noHead } = s
        for (const c of [overNewline, encodeCursor(noHead)]) {
          const e = yield* Effect.flip(withAdapter(root, (a) => collect(a.stream(locatorOf(S.S1, root), { cursor: c }))))
          expect(e.code, c).toBe("INVALID_CURSOR")
        }
      }
    }))
})

describe("claude-code cursor tokens: an event position past the cursor's place", () => {
  it.effect("a token whose event position (x.n) was edited past what its place can hold is INVALID_CURSOR, never sequences from there", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      const events = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S1, root))))
      for (const ev of [events[0], events[3], events[events.length - 2]]) {
        const state = peekCursor(ev.cursor)
        if (state._tag !== "Right") throw new Error("undecodable cursor")
        const s = { ...state.right, src: events[0].sourceId }
        for (const n of [999_999_999_999, s.off! + 1, Number.MAX_SAFE_INTEGER]) {
          const forged = encodeCursor({ ...s, x: { ...(s.x as Record<string, unknown>), n } })
          const r = yield* Effect.either(withAdapter(root, (a) => collect(a.stream(locatorOf(S.S1, root), { cursor: forged }))))
          // (compared as a short string: a failure message never prints a stream's events)
          expect(r._tag === "Left" ? r.left.code : `resumed with ${r.right.length} events, first sequence ${r.right[0]?.sequence}`, String(n)).toBe("INVALID_CURSOR")
        }
      }
    }))
})
