/**
 * A Muse agents record whose `created_at` (seed 000: the record's time; the
 * runtime writes RFC 3339 or epoch numbers) is there but is not a time
 * (`"not a date"`, a `+99:00` zone, a date the month lacks, no zone, an empty
 * string, a boolean, an object, a negative or far-future number) keeps its
 * event without a time and is counted as the parse warning
 * `timestamp-not-valid` (said "kept", as Claude Code's), in `discover`'s and
 * `inspect`'s warnings and the import report (as Claude Code's). A
 * missing or null `created_at` is no warning. Found by tester11 (F4).
 */
import { emptyFolder } from "../support/paths.js"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { cli } from "../support/run.js"
import { collect, jl, locatorOf, tempDir, withAdapter, writeTranscript } from "./helpers.js"

const item = (seq: number, createdAt: unknown) =>
  jl({ type: "item", seq, source: "runtime", item: { type: "message", role: seq % 2 === 0 ? "assistant" : "user", text: `m${seq}` }, ...(createdAt !== undefined ? { created_at: createdAt } : {}) })

/** Line 1 the header; lines 2.. the items: valid ones, then each bad time, then a missing and a null one. */
const BAD: ReadonlyArray<unknown> = ["not a date", "2025-03-01T08:00:06+99:00", "2025-02-30T08:00:00Z", "2025-03-01T08:00:00", "", true, { at: 1 }, -5, 1e30]
const lines = (): string =>
  [
    jl({ type: "session_header", session_id: "sess-ts", agent_id: "ts", created_at: "2025-03-01T08:00:00Z" }),
    item(1, "2025-03-01T08:00:01Z"),
    item(2, 1740816002000), // epoch milliseconds: a time (the runtime writes them)
    ...BAD.map((t, i) => item(3 + i, t)),
    item(3 + BAD.length, undefined),
    item(4 + BAD.length, null),
    jl({ type: "compaction_checkpoint", compaction_id: "k1", trigger: "auto", summary: "s", created_at: "yesterday" })
  ].join("")

const FIRST_BAD_LINE = 4
const COUNT = BAD.length + 1 // the items, and the compaction

const warningOf = (ws: ReadonlyArray<{ readonly kind: string; readonly count: number; readonly firstLine: number | null }>) =>
  ws.filter((w) => w.kind === "timestamp-not-valid").map((w) => [w.count, w.firstLine])

describe("Muse agents: a created_at that is not a time", () => {
  it.effect("events kept with occurredAt null; counted timestamp-not-valid in discover, inspect (said kept)", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTranscript(root, "ts", lines())
      const events = yield* withAdapter(root, (a) => collect(a.stream(locatorOf("ts", root))))
      expect(events.map((e) => e.occurredAt)).toEqual([
        "2025-03-01T08:00:01.000Z",
        "2025-03-01T08:00:02.000Z",
        ...BAD.map(() => null),
        null,
        null,
        null
      ])
      const d = yield* withAdapter(root, (a) => a.discover({}))
      expect(warningOf((d.sources[0].summary.parseWarnings ?? []) as ReadonlyArray<{ kind: string; count: number; firstLine: number | null }>)).toEqual([[COUNT, FIRST_BAD_LINE]])
      const i = yield* withAdapter(root, (a) => a.inspect(locatorOf("ts", root)))
      const w = i.diagnostics.filter((x) => x.details?.kind === "timestamp-not-valid")
      expect(w.map((x) => [x.details?.count, x.details?.firstLine])).toEqual([[COUNT, FIRST_BAD_LINE]])
      expect(w[0].message).toContain("kept without a time")
      expect(w[0].message).not.toContain("skipped")
    }))

  it.effect("valid, missing and null times: no warning", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTranscript(root, "ok", [
        jl({ type: "session_header", session_id: "sess-ok", agent_id: "ok", created_at: 1740816000 }),
        item(1, "2025-03-01T08:00:01.123456+01:00"),
        item(2, 1740816002000),
        item(3, undefined),
        item(4, null)
      ].join(""))
      const d = yield* withAdapter(root, (a) => a.discover({}))
      expect(warningOf((d.sources[0].summary.parseWarnings ?? []) as ReadonlyArray<{ kind: string; count: number; firstLine: number | null }>)).toEqual([])
      const i = yield* withAdapter(root, (a) => a.inspect(locatorOf("ok", root)))
      expect(i.diagnostics.filter((x) => x.details?.kind === "timestamp-not-valid")).toEqual([])
    }))

  it.effect("a header whose created_at is not a time is counted too", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTranscript(root, "h", [jl({ type: "session_header", session_id: "sess-h", agent_id: "h", created_at: "not a date" }), item(1, "2025-03-01T08:00:01Z")].join(""))
      const d = yield* withAdapter(root, (a) => a.discover({}))
      expect(warningOf((d.sources[0].summary.parseWarnings ?? []) as ReadonlyArray<{ kind: string; count: number; firstLine: number | null }>)).toEqual([[1, 1]])
    }))

  it("CLI: the import report says the lines were kept without a time", () => {
    const root = tempDir()
    writeTranscript(root, "ts", lines())
    const dir = tempDir()
    const args = ["import", "--index", path.join(dir, "index.db"), "--agents-root", root, "--muse-root", emptyFolder(dir), "--claude-root", emptyFolder(dir)]
    const text = cli(args)
    expect([0, 8]).toContain(text.code)
    expect(text.stdout).toMatch(new RegExp(`parse warnings: ${COUNT} lines in 1 source kept without a time \\(timestamp-not-valid ${COUNT}`))
  })
})
