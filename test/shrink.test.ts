/**
 * A line source truncated while it is streamed (rewritten in place; an
 * append-only log never shrinks): the stream fails with MALFORMED_SOURCE
 * instead of ending as if it had reached the end. A stream the consumer cuts
 * short (`take`) and one of a file that only grows end normally.
 */
import * as fs from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SessionEvent } from "../src/domain/model.js"
import { adapterWith, filler, jsonl, metadata, tempDir, writeLog } from "./muse-code/native-helpers.js"
import { jl, locatorOf, withAdapter, writeTranscript } from "./muse-agents/helpers.js"

/** Big enough for several 256 KiB read steps. */
const LINES = 6000

/** Run `events`, truncating `path` to `to` bytes once the first event arrives (later steps then read short). */
const truncatingAfterFirst = (events: Stream.Stream<SessionEvent, { readonly code: string }>, path: string, to: number) => {
  let done = false
  return events.pipe(
    Stream.tap(() =>
      Effect.sync(() => {
        if (!done) fs.truncateSync(path, to)
        done = true
      })
    ),
    Stream.runCount,
    Effect.match({ onFailure: (e) => e.code, onSuccess: (n) => `ok:${n}` })
  )
}

describe("a source that shrinks while it is streamed", () => {
  it.effect("Muse Code native log: MALFORMED_SOURCE; cut short by take, or only grown: ends normally", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const lines = [metadata(1, "/w"), ...Array.from({ length: LINES }, (_, i) => filler(i + 2))]
      const text = jsonl(lines)
      const path = writeLog(root, "2026/10/04", "shrinks", text)
      const adapter = yield* adapterWith({ policy: { museRoots: [root] } })
      const locator = { locatorClass: "muse-native-session-log", path } as const
      expect(yield* truncatingAfterFirst(adapter.stream(locator), path, 1000)).toBe("MALFORMED_SOURCE")
      fs.writeFileSync(path, text)
      expect(yield* Stream.runCount(Stream.take(adapter.stream(locator), 3))).toBe(3)
      expect(yield* Stream.runCount(adapter.stream(locator))).toBe(LINES + 1)
    }))

  it.effect("Muse agents transcript: MALFORMED_SOURCE", () =>
    Effect.gen(function*() {
      const root = tempDir()
      let text = jl({ type: "session_header", session_id: "s-1", agent_id: "a1", created_at: "2025-04-01T10:00:00Z" })
      for (let i = 1; i <= LINES; i++) {
        text += jl({ type: "item", seq: i, source: "runtime", item: { type: "message", role: "user", text: `message ${i} ${"x".repeat(40)}` } })
      }
      const path = writeTranscript(root, "a1", text)
      const code = yield* withAdapter(root, (a) => truncatingAfterFirst(a.stream(locatorOf("a1", root)), path, 500))
      expect(code).toBe("MALFORMED_SOURCE")
      fs.writeFileSync(path, text)
      expect(yield* withAdapter(root, (a) => Stream.runCount(a.stream(locatorOf("a1", root))))).toBe(LINES)
    }))
})
