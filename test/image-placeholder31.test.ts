/**
 * tester31a F3: an image in a Claude Code tool result (its event keeps native `images: [{mediaType}]`,
 * docs/providers.md) left no trace in the replay, `show --format markdown|transcript` or the ATIF export. Each shows
 * a placeholder where the result's text is shown, never the image's bytes.
 */
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "./support/paths.js"
import { claudeProjectRoot } from "./support/claude-import.js"
import { cli } from "./support/run.js"

const S = "abababab-0000-4000-8000-0000000000ab"
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
const line = (o: Record<string, unknown>) => JSON.stringify({ sessionId: S, parentUuid: null, cwd: "/tmp/p", ...o })

describe("an image in a tool result leaves a trace in every shareable output (tester31a F3)", () => {
  it("replay, show --format markdown|transcript and ATIF say `[1 image (image/png) not shown]` after the result's text", () => {
    const dir = tempDir("si-image-")
    const root = claudeProjectRoot(dir, S, [
      line({ type: "user", uuid: "u1", timestamp: "2026-11-10T10:00:00.000Z", message: { role: "user", content: "take a screenshot" } }),
      line({
        type: "assistant",
        uuid: "u2",
        timestamp: "2026-11-10T10:00:01.000Z",
        message: { model: "claude-sonnet-4-5-20250929", id: "msg_1", role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Screenshot", input: {} }] }
      }),
      line({
        type: "user",
        uuid: "u3",
        timestamp: "2026-11-10T10:00:02.000Z",
        message: {
          role: "user",
          content: [{
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: [{ type: "text", text: "captured the window" }, { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }]
          }]
        }
      }),
      line({ type: "assistant", uuid: "u4", timestamp: "2026-11-10T10:00:03.000Z", message: { model: "claude-sonnet-4-5-20250929", id: "msg_2", role: "assistant", content: [{ type: "text", text: "done" }] } })
    ])
    const index = path.join(dir, "i.db")
    const imp = cli(["import", "--index", index, "--claude-root", root])
    expect(imp.code, imp.stderr).toBe(0)
    const placeholder = "[1 image (image/png) not shown]"
    const run = (args: ReadonlyArray<string>) => {
      const r = cli([...args, "--index", index])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).not.toContain(PNG.slice(0, 24))
      return r.stdout
    }
    // the transcript clips a result to one line: the placeholder follows the text on it
    expect(run(["show", "abababab", "--format", "transcript"])).toContain(`captured the window ${placeholder}`)
    expect(run(["show", "abababab", "--format", "markdown"])).toContain(`captured the window\n${placeholder}`)
    const atif = JSON.parse(run(["export", "abababab", "--format", "atif"]))
    const results = atif.steps.flatMap((s: { observation?: { results: Array<{ content: string }> } }) => s.observation?.results ?? [])
    expect(results.map((r: { content: string }) => r.content)).toEqual([`captured the window\n${placeholder}`])
    const html = run(["replay", "abababab"])
    expect(html).toContain(JSON.stringify(`captured the window\n${placeholder}`))
  })
})
