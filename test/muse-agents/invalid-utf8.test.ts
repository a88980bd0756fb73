/**
 * tester16 finding 5: bytes that are not valid UTF-8 in a Muse agents line
 * are read as U+FFFD; the line is kept, and counted as the parse warning
 * `invalid-utf8` (a kept kind, docs/index.md "Parse warnings"), as Claude Code
 * counts it: in inspect, discover and the import report. A line skipped for
 * another reason counts once, for why it was skipped.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { cli } from "../support/run.js"
import { jl, removeDir, tempDir, withAdapter, writeTranscript, freshDirs } from "./helpers.js"

const fresh = freshDirs()

const write = (root: string): string =>
  writeTranscript(root, "b", Buffer.concat([
    Buffer.from(jl({ type: "session_header", session_id: "s-bad", agent_id: "b", created_at: "2025-03-01T08:00:00Z" })),
    Buffer.from(`{"type":"item","seq":1,"source":"runtime","item":{"type":"message","role":"user","text":"bad `),
    Buffer.from([0xff, 0xc0]),
    Buffer.from(` utf"},"created_at":"2025-03-01T08:00:01Z"}\n`),
    Buffer.from(jl({ type: "item", seq: 2, source: "runtime", item: { type: "message", role: "user", text: "fine" }, created_at: "2025-03-01T08:00:02Z" })),
    // Not JSON and not UTF-8: skipped as malformed-json, counted once.
    Buffer.from([0x7b, 0xff, 0x0a])
  ]))

describe("muse-agents: invalid UTF-8", () => {
  it.effect("inspect and discover count the kept line as invalid-utf8", () =>
    Effect.gen(function*() {
      const root = nodePath.join(fresh(), "agents")
      const file = write(root)
      const i = yield* withAdapter(root, (a) => a.inspect({ locatorClass: "muse-agent-transcript", path: file }))
      const warnings = i.diagnostics.filter((d) => d.code === "PARSE_WARNING").map((d) => d.details)
      expect(warnings).toContainEqual({ kind: "invalid-utf8", count: 1, firstLine: 2 })
      expect(warnings).toContainEqual({ kind: "malformed-json", count: 1, firstLine: 4 })
      expect(i.eventCount).toBe(2)
      const r = yield* withAdapter(root, (a) => a.discover({}))
      const pw = r.sources[0].overview?.parseWarnings ?? []
      expect(pw).toContainEqual({ kind: "invalid-utf8", count: 1, firstLine: 2 })
      expect(pw.filter((w) => w.kind === "invalid-utf8")).toHaveLength(1)
    }))

  it("the import report counts it, the line kept", () => {
    const dir = fresh()
    const root = nodePath.join(dir, "agents")
    write(root)
    const r = cli(["import", "--json", "--agents-root", root, "--index", nodePath.join(dir, "i.db"), "--state", nodePath.join(dir, "s.db")], { env: { HOME: dir } })
    const report = JSON.parse(r.stdout) as { data: { eventsAdded: number; parseWarnings: { byKind: Record<string, number> } } }
    expect(report.data.parseWarnings.byKind).toEqual({ "invalid-utf8": 1, "malformed-json": 1 })
    expect(report.data.eventsAdded).toBe(2)
    expect(fs.existsSync(nodePath.join(dir, "i.db"))).toBe(true)
  })
})
