/**
 * tester16 finding 3: a transcript whose only prompt is on a line over the
 * import limit `maxRecordBytes`. Muse agents' policy is "skip the line, count
 * a warning" (docs/providers.md "Providers"; the warning `oversized-line`); the line's
 * prompt is not known to be absent, so the session is never omitted as
 * having "neither prompts nor tool calls": it is listed with its warning,
 * which discover and the import report give (parse warnings are reported for
 * every source the run discovered).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { cli } from "../support/run.js"
import { jl, removeDir, tempDir, withAdapter, writeTranscript, freshDirs } from "./helpers.js"

const fresh = freshDirs()

const LIMIT = 4096
const write = (root: string) =>
  writeTranscript(root, "huge", jl({ type: "session_header", session_id: "s-huge", agent_id: "huge", created_at: "2025-03-01T08:00:00Z" }) +
    jl({ type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "huge " + "y".repeat(2 * LIMIT) }, created_at: "2025-03-01T08:00:01Z" }))

describe("muse-agents: a prompt over maxRecordBytes", () => {
  it.effect("discover lists the session with its oversized-line warning; it is not omitted as no-prompts-or-tool-calls", () =>
    Effect.gen(function*() {
      const root = nodePath.join(fresh(), "agents")
      write(root)
      const r = yield* withAdapter(root, (a) => a.discover({}), { maxRecordBytes: LIMIT })
      expect(r.omitted ?? {}).toEqual({})
      expect(r.diagnostics.filter((d) => d.code === "SESSION_OMITTED")).toEqual([])
      expect(r.sources.map((s) => s.sessionId)).toEqual(["s-huge"])
      expect(r.sources[0].overview?.parseWarnings).toEqual([{ kind: "oversized-line", count: 1, firstLine: 2 }])
    }))

  it("import reports the oversized line as a parse warning, nothing omitted", () => {
    const dir = fresh()
    const root = nodePath.join(dir, "agents")
    write(root)
    const config = nodePath.join(dir, "config.json")
    fs.writeFileSync(config, JSON.stringify({ limits: { maxRecordBytes: LIMIT } }))
    const r = cli(["import", "--json", "--config", config, "--agents-root", root, "--index", nodePath.join(dir, "i.db"), "--state", nodePath.join(dir, "s.db")], { env: { HOME: dir } })
    const report = JSON.parse(r.stdout) as {
      data: { sources: { omitted: number }; parseWarnings: { byKind: Record<string, number>; items: Array<{ provider: string; kind: string; count: number }> } }
    }
    expect(report.data.sources.omitted).toBe(0)
    expect(report.data.parseWarnings.byKind).toEqual({ "oversized-line": 1 })
    expect(report.data.parseWarnings.items.map((i) => [i.provider, i.kind, i.count])).toEqual([["muse-agents", "oversized-line", 1]])
  })
})
