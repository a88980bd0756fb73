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

  // tester34b F3: the images a user pastes into a message (kept on the message's text event as native `images`, or an
  // image-only message's own `blockType: "image"`: docs/providers.md) vanished from the same outputs.
  it("a user's pasted images: the placeholder after the message's text, and for an image-only message alone", () => {
    const U = "cdcdcdcd-0000-4000-8000-0000000000cd"
    const img = (media: string) => ({ type: "image", source: { type: "base64", media_type: media, data: PNG } })
    const uline = (o: Record<string, unknown>) => JSON.stringify({ sessionId: U, parentUuid: null, cwd: "/tmp/p", ...o })
    const dir = tempDir("si-image-user-")
    const root = claudeProjectRoot(dir, U, [
      uline({
        type: "user", uuid: "u1", timestamp: "2026-11-10T10:00:00.000Z",
        message: { role: "user", content: [{ type: "text", text: "the logo overflows (screenshot)" }, img("image/png"), img("image/jpeg"), img("image/png")] }
      }),
      uline({ type: "assistant", uuid: "u2", timestamp: "2026-11-10T10:00:01.000Z", message: { model: "claude-sonnet-4-5-20250929", id: "msg_1", role: "assistant", content: [{ type: "text", text: "looking" }] } }),
      uline({ type: "user", uuid: "u3", timestamp: "2026-11-10T10:00:02.000Z", message: { role: "user", content: [img("image/gif")] } }),
      uline({ type: "assistant", uuid: "u4", timestamp: "2026-11-10T10:00:03.000Z", message: { model: "claude-sonnet-4-5-20250929", id: "msg_2", role: "assistant", content: [{ type: "text", text: "fixed" }] } })
    ])
    const index = path.join(dir, "i.db")
    const imp = cli(["import", "--index", index, "--claude-root", root])
    expect(imp.code, imp.stderr).toBe(0)
    const three = "[3 images (image/png, image/jpeg) not shown]"
    const one = "[1 image (image/gif) not shown]"
    const run = (args: ReadonlyArray<string>) => {
      const r = cli([...args, "--index", index])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).not.toContain(PNG.slice(0, 24))
      return r.stdout
    }
    const md = run(["show", "cdcdcdcd", "--format", "markdown"])
    expect(md).toContain(`the logo overflows (screenshot)\n${three}`)
    expect(md).toContain(one)
    expect(md.indexOf(one)).toBeGreaterThan(md.indexOf("looking"))
    expect(md.indexOf(one)).toBeLessThan(md.indexOf("fixed"))
    const atif = JSON.parse(run(["export", "cdcdcdcd", "--format", "atif"]))
    const userMessages = atif.steps.filter((s: { source: string }) => s.source === "user").map((s: { message: string }) => s.message)
    expect(userMessages).toEqual([`the logo overflows (screenshot)\n${three}`, one])
    const html = run(["replay", "cdcdcdcd"])
    expect(html).toContain(JSON.stringify(`the logo overflows (screenshot)\n${three}`))
    expect(html).toContain(JSON.stringify(one))
  })

  // tester34c F7: a document (a base64 PDF, no title) beside an image vanished; a media type of free text was shown as one
  it("a document attached to a message says so; a media type that is no type/subtype token is \"type not known\"", () => {
    const D = "dededede-0000-4000-8000-0000000000de"
    const dline = (o: Record<string, unknown>) => JSON.stringify({ sessionId: D, parentUuid: null, cwd: "/tmp/p", ...o })
    const dir = tempDir("si-image-doc-")
    const root = claudeProjectRoot(dir, D, [
      dline({
        type: "user", uuid: "u1", timestamp: "2026-11-10T10:00:00.000Z",
        message: { role: "user", content: [
          { type: "image", source: { type: "url", url: "https://x.example/a.png" } },
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQK" } }
        ] }
      }),
      dline({ type: "assistant", uuid: "u2", timestamp: "2026-11-10T10:00:01.000Z", message: { model: "claude-sonnet-4-5-20250929", id: "msg_1", role: "assistant", content: [{ type: "text", text: "read" }] } }),
      dline({
        type: "user", uuid: "u3", timestamp: "2026-11-10T10:00:02.000Z",
        message: { role: "user", content: [{ type: "text", text: "see above" }, { type: "image", source: { type: "base64", media_type: "image/png\n\n## Injected heading", data: PNG } }] }
      })
    ])
    const index = path.join(dir, "i.db")
    const imp = cli(["import", "--index", index, "--claude-root", root])
    expect(imp.code, imp.stderr).toBe(0)
    const md = cli(["show", "dededede", "--index", index, "--format", "markdown"])
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).toContain("[1 image (type not known) not shown]")
    expect(md.stdout).toContain("[1 document (application/pdf) not shown]")
    expect(md.stdout).toContain("see above\n[1 image (type not known) not shown]")
    expect(md.stdout).not.toContain("Injected heading")
    expect(md.stdout).not.toContain("JVBERi0x")
  })
})
