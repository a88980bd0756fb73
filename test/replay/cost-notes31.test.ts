/**
 * tester31a F5: the replay's header showed a cost (or none) without the notes every other cost display carries
 * (docs/usage-and-cost.md "The same notes wherever a cost is shown"): an unpriced model's session had no Cost row and
 * no reason; a resumed copy did not say that its other responses count in the session it resumed. The page must say
 * what `show`'s usage line says, in the same words.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const A = "aaaaaaaa-0000-4000-8000-00000000000a"
const B = "bbbbbbbb-0000-4000-8000-00000000000b"
const C = "cccccccc-0000-4000-8000-00000000000c"

const user = (sessionId: string, uuid: string, t: string, text: string) =>
  JSON.stringify({ type: "user", sessionId, uuid, parentUuid: null, cwd: "/tmp/p", timestamp: t, message: { role: "user", content: text } })
const reply = (sessionId: string, uuid: string, t: string, model: string, id: string, text: string) =>
  JSON.stringify({
    type: "assistant",
    sessionId,
    uuid,
    parentUuid: null,
    cwd: "/tmp/p",
    timestamp: t,
    requestId: `req_${id}`,
    message: { model, id, type: "message", role: "assistant", content: [{ type: "text", text }], usage: { input_tokens: 1000, output_tokens: 100 } }
  })

const setUp = () => {
  const dir = tempDir("si-replay-notes-")
  const project = path.join(dir, "projects", "-tmp-p")
  fs.mkdirSync(project, { recursive: true })
  const m = "claude-sonnet-4-5-20250929"
  fs.writeFileSync(path.join(project, `${A}.jsonl`), [
    user(A, "u-a1", "2026-11-10T10:00:00.000Z", "first"),
    reply(A, "u-a2", "2026-11-10T10:00:01.000Z", m, "msg_1", "one"),
    reply(A, "u-a3", "2026-11-10T10:00:02.000Z", m, "msg_2", "two")
  ].join("\n") + "\n")
  // B resumes A: its log begins with copies of A's two responses (counted in A, which began first), then one of its own
  fs.writeFileSync(path.join(project, `${B}.jsonl`), [
    user(B, "u-a1", "2026-11-10T10:00:00.000Z", "first"),
    reply(B, "u-a2", "2026-11-10T10:00:01.000Z", m, "msg_1", "one"),
    reply(B, "u-a3", "2026-11-10T10:00:02.000Z", m, "msg_2", "two"),
    user(B, "u-b1", "2026-11-10T11:00:00.000Z", "again"),
    reply(B, "u-b2", "2026-11-10T11:00:01.000Z", m, "msg_3", "three")
  ].join("\n") + "\n")
  fs.writeFileSync(path.join(project, `${C}.jsonl`), [
    user(C, "u-c1", "2026-11-10T12:00:00.000Z", "unpriced"),
    reply(C, "u-c2", "2026-11-10T12:00:01.000Z", "claude-foo-9", "msg_c", "foo")
  ].join("\n") + "\n")
  const index = path.join(dir, "i.db")
  const r = cli(["import", "--index", index, "--claude-root", path.join(dir, "projects")])
  expect(r.code, r.stderr).toBe(0)
  return { index, claudeRoot: path.join(dir, "projects") }
}

/** The header's rows of a replay page, as label / text (entities decoded, `<wbr>` dropped). */
const rows = (html: string): Array<[string, string]> => {
  const dl = /<dl class="facts">(.*?)<\/dl>/s.exec(html)![1].replace(/<wbr>/g, "")
  const text = (s: string) => s.replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")
  return [...dl.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/gs)].map((m) => [text(m[1]), text(m[2])])
}

describe("the replay header carries the notes of every cost display (tester31a F5)", () => {
  it("an unpriced model: the cost unknown and why, in show's words; a resumed copy: where its other responses count", () => {
    const { index } = setUp()
    const page = (id: string) => {
      const r = cli(["replay", id, "--index", index])
      expect(r.code, r.stderr).toBe(0)
      return rows(r.stdout)
    }
    const showLine = (id: string) => {
      const r = cli(["show", id, "--index", index, "--format", "transcript"])
      expect(r.code, r.stderr).toBe(0)
      return r.stdout.trimEnd().split("\n").at(-1)!
    }
    const unpriced = "claude-foo-9: 1 response without a price (not in the price table): tokens without a cost; add it under \"prices\" in the config file."
    const c = page("cccccccc")
    expect(c).toContainEqual(["Cost", "unknown"])
    expect(c).toContainEqual(["Cost note", unpriced])
    expect(showLine("cccccccc")).toContain(`cost unknown · note: ${unpriced}`)

    const elsewhere = `2 responses counted in session ${A} (the same responses, counted once, there)`
    const b = page("bbbbbbbb")
    expect(b).toContainEqual(["Tokens", "input 1,000 · output 100 (1 response)"])
    expect(b).toContainEqual(["Counted elsewhere", elsewhere])
    expect(showLine("bbbbbbbb")).toContain(` · and ${elsewhere}`)

    // a session with neither has no such rows
    const a = page("aaaaaaaa")
    expect(a.map(([k]) => k)).not.toContain("Counted elsewhere")
    expect(a.map(([k]) => k)).not.toContain("Cost note")
    // 2,000 input at $3/M + 200 output at $15/M (data/prices.json, Sonnet 4.5)
    expect(a).toContainEqual(["Cost", "$0.0090 (USD)"])
  })
})
