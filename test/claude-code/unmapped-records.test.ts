/**
 * claude-code: the records the adapter used to drop without a trace (tester
 * report after session 10): a `system` line whose `content` is not a string,
 * a `progress` record, an assistant `image` block.
 * - a system line's non-string `content` is kept raw (native `block`) on its
 *   `meta` event, its strings the event's text, counted `unknown-block`;
 * - a `progress` record (a tool's or hook's progress: `data`) is a `meta`
 *   event, role system, native `block` its raw `data`, `progressType` its
 *   `data.type`, its strings the text; counted `progress-record` (kept);
 * - an assistant `image` block is a `message` event, role assistant, text
 *   null, native `blockType: "image"` and `mediaType` (as a user image
 *   without text), not counted (it is mapped).
 * Expected values are worked out from the inputs written here.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { cli } from "../support/run.js"
import { collect, nat, tempDir, withAdapter } from "./helpers.js"

const SID = "5e5e5e5e-5e5e-4e5e-8e5e-5e5e5e5e5e5e"
const loc = (file: string) => ({ locatorClass: "claude-code-session-log" as const, path: file })
const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }
const base = { sessionId: SID, cwd: "/x", isSidechain: false }

const progressData = { type: "hook_progress", hookEvent: "PostToolUse", hookName: "PostToolUse:Bash", command: "echo progresswordkappa" }
const rows = [
  { ...base, type: "user", uuid: "u1", parentUuid: null, timestamp: "2026-09-01T00:00:00Z", message: { role: "user", content: "first prompt" } },
  { ...base, type: "system", subtype: "informational", uuid: "s1", parentUuid: "u1", timestamp: "2026-09-01T00:00:01Z", content: { note: "sysobjectwordlambda", n: 3 } },
  { ...base, type: "system", subtype: "local_command", uuid: "s2", parentUuid: "s1", timestamp: "2026-09-01T00:00:02Z", content: [{ type: "text", text: "sysarraywordmu" }] },
  { ...base, type: "progress", uuid: "p1", parentUuid: "s2", timestamp: "2026-09-01T00:00:03Z", toolUseID: "toolu_1", parentToolUseID: "toolu_1", data: progressData },
  {
    ...base, type: "assistant", uuid: "a1", parentUuid: "p1", timestamp: "2026-09-01T00:00:04Z", requestId: "r1",
    message: {
      id: "m1", role: "assistant", model: "claude-sonnet-4-5-20250929",
      content: [{ type: "text", text: "here is the chart" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }],
      usage: { input_tokens: 3, output_tokens: 4 }
    }
  },
  // a system line without content, and one with a string content: as before, not counted
  { ...base, type: "system", subtype: "turn_duration", uuid: "s3", parentUuid: "a1", timestamp: "2026-09-01T00:00:05Z", durationMs: 10 },
  { ...base, type: "system", subtype: "informational", uuid: "s4", parentUuid: "s3", timestamp: "2026-09-01T00:00:06Z", content: "plain note" }
]

const write = (root: string): string => {
  const file = nodePath.join(root, "-x", `${SID}.jsonl`)
  fs.mkdirSync(nodePath.dirname(file), { recursive: true })
  fs.writeFileSync(file, rows.map((r) => JSON.stringify(r) + "\n").join(""))
  return file
}
const warningsOf = (summary: Record<string, unknown>) =>
  Object.fromEntries((summary.parseWarnings as Array<{ kind: string; count: number; firstLine: number | null }>).map((w) => [w.kind, [w.count, w.firstLine]]))

describe("claude-code: system content not a string, progress records, assistant images", () => {
  it.effect("each is an event keeping its value; the kept ones are counted", () =>
    Effect.gen(function*() {
      const root = tempDir("si-claude-unmapped-rec-")
      const file = write(root)
      const events = yield* withAdapter(root, (a) => collect(a.stream(loc(file))))
      expect(events.map((e) => [e.rawReference.sequence, e.kind, e.role])).toEqual([
        [1, "message", "user"],
        [2, "meta", "system"],
        [3, "meta", "system"],
        [4, "meta", "system"],
        [5, "message", "assistant"],
        [5, "message", "assistant"],
        [6, "meta", "system"],
        [7, "meta", "system"]
      ])
      const [, sysObj, sysArr, progress, text, image, noContent, plain] = events
      expect(nat(sysObj).block).toEqual({ note: "sysobjectwordlambda", n: 3 })
      expect(nat(sysObj).subtype).toBe("informational")
      expect(sysObj.text).toContain("sysobjectwordlambda")
      expect(nat(sysArr).block).toEqual([{ type: "text", text: "sysarraywordmu" }])
      expect(sysArr.text).toContain("sysarraywordmu")
      expect(nat(progress).recordType).toBe("progress")
      expect(nat(progress).block).toEqual(progressData)
      expect(nat(progress).progressType).toBe("hook_progress")
      expect(nat(progress).toolUseId).toBe("toolu_1")
      expect(progress.text).toContain("progresswordkappa")
      expect(progress.occurredAt).toBe("2026-09-01T00:00:03.000Z")
      expect(text.text).toBe("here is the chart")
      expect([image.text, nat(image).blockType, nat(image).mediaType]).toEqual([null, "image", "image/png"])
      expect(JSON.stringify(image)).not.toContain("iVBORw0KGgo")
      // the response's usage rides on its last event (the image), counted once
      expect(events.filter((e) => e.usage !== null).map((e) => e.eventId)).toEqual([image.eventId])
      expect([noContent.text, nat(noContent).block]).toEqual([null, undefined])
      expect([plain.text, nat(plain).block]).toEqual(["plain note", undefined])

      const d = yield* withAdapter(root, (a) => a.discover({}))
      expect(d.sources).toHaveLength(1)
      expect(warningsOf(d.sources[0].summary)).toEqual({ "unknown-block": [2, 2], "progress-record": [1, 4] })
      const i = yield* withAdapter(root, (a) => a.inspect(loc(file)))
      expect(i.eventCount).toBe(events.length)
      for (const kind of ["unknown-block", "progress-record"]) {
        const w = i.diagnostics.find((x) => (x.details as { kind?: string } | undefined)?.kind === kind)!
        expect(w, kind).toBeDefined()
        expect(w.message).toContain("kept")
        expect(w.message).not.toContain("skipped")
      }
    }))

  it("CLI: the import counts them as kept, and their words are searchable", () => {
    const root = tempDir("si-claude-unmapped-rec-cli-")
    write(root)
    const dir = tempDir()
    const index = nodePath.join(dir, "idx.db")
    const imp = cli(["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(dir, "none"), "--muse-root", nodePath.join(dir, "none"), "--workspace", dir], { env })
    expect([0, 8]).toContain(imp.code)
    expect(imp.stdout).toMatch(/progress-record 1/)
    expect(imp.stdout).toMatch(/unknown-block 2/)
    expect(imp.stdout).not.toMatch(/lines? skipped/)
    for (const w of ["sysobjectwordlambda", "sysarraywordmu", "progresswordkappa"]) {
      const s = cli(["search", w, "--index", index, "--json"], { env })
      expect(s.code, w).toBe(0)
      expect((JSON.parse(s.stdout).data.hits as Array<unknown>).length, w).toBeGreaterThan(0)
    }
  })
})
