/**
 * Claude Code, leftovers found by fresh users:
 * - the flat layout of older versions, where a subagent's transcript is
 *   `<project>/agent-<agentId>.jsonl` beside the sessions (jeremedia/
 *   claude-code-log-format, `source-docs/JSONL_LOGGING.md`, Claude Code
 *   2.0.55: "Sidechain agents: `<sanitized-cwd>/agent-<agentId>.jsonl` when
 *   `isSidechain && agentId`"), linked to its parent by its entries'
 *   `sessionId`;
 * - the `custom-title` record a `/rename` writes
 *   (`{"type":"custom-title","customTitle":"…","sessionId":"…"}`; the last
 *   one wins, rymalia/claude-code-viewer's plan for it), the session's title
 *   over a `summary`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SessionEvent } from "../../src/domain/model.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"
import { BILLING, copyFixtures, locatorOf, S, sessionPath, withAdapter } from "./helpers.js"

const AGENT = "a7c3e9f1b2d4068e5"
const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

const streamAll = (root: string, id: string) =>
  withAdapter(root, (a) => Stream.runCollect(a.stream(locatorOf(id, root), { includeSubagents: true }))).pipe(Effect.map((c) => Chunk.toReadonlyArray(c) as ReadonlyArray<SessionEvent>))

/** The fixtures with S2's nested subagent file moved to the flat layout (and its meta.json dropped: old versions wrote none). */
const flatCopy = () => {
  const root = copyFixtures()
  const nested = path.join(root, BILLING, S.S2, "subagents", `agent-${AGENT}.jsonl`)
  fs.renameSync(nested, path.join(root, BILLING, `agent-${AGENT}.jsonl`))
  fs.rmSync(path.join(root, BILLING, S.S2), { recursive: true })
  return root
}

describe("Claude Code: flat-layout subagent files", () => {
  it.effect("a flat agent-<id>.jsonl is the subagent session of the session its entries name, as the nested layout reads it", () =>
    Effect.gen(function*() {
      const nested = yield* streamAll(copyFixtures(), S.S2)
      const root = flatCopy()
      const flat = yield* streamAll(root, S.S2)
      const sub = (es: ReadonlyArray<SessionEvent>) => es.filter((e) => e.sessionId === `agent-${AGENT}`)
      expect(sub(nested).length).toBeGreaterThan(0)
      expect(sub(flat).map((e) => [e.kind, e.text])).toEqual(sub(nested).map((e) => [e.kind, e.text]))
      for (const e of sub(flat)) {
        expect(e.parent?.sessionId).toBe(S.S2)
        // no meta.json: linked to its Task call through the parent's Task result (toolUseResult.agentId)
        expect(e.parent?.toolCallId).toBe(sub(nested)[0].parent?.toolCallId)
      }
      // another session of the folder does not take it
      const other = yield* streamAll(root, S.S1)
      expect(other.filter((e) => e.sessionId === `agent-${AGENT}`)).toEqual([])
    }))

  it.effect("a flat file of another session goes with that one; one naming no session of the folder, or a nested twin, is not read twice", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      const src = fs.readFileSync(path.join(root, BILLING, S.S2, "subagents", `agent-${AGENT}.jsonl`), "utf8")
      // the same agent file moved to S1 (its sessionId rewritten), and an orphan
      fs.writeFileSync(path.join(root, BILLING, "agent-bbb111.jsonl"), src.replaceAll(S.S2, S.S1).replaceAll(AGENT, "bbb111"))
      fs.writeFileSync(path.join(root, BILLING, "agent-ccc222.jsonl"), src.replaceAll(S.S2, "00000000-0000-4000-8000-000000000000").replaceAll(AGENT, "ccc222"))
      // a flat twin of the nested file: read once
      fs.writeFileSync(path.join(root, BILLING, `agent-${AGENT}.jsonl`), src)
      const s1 = yield* streamAll(root, S.S1)
      expect(s1.filter((e) => e.sessionId === "agent-bbb111").length).toBeGreaterThan(0)
      for (const e of s1.filter((e) => e.sessionId === "agent-bbb111")) expect(e.parent?.sessionId).toBe(S.S1)
      const s2 = yield* streamAll(root, S.S2)
      const nested = yield* streamAll(copyFixtures(), S.S2)
      expect(s2.length).toBe(nested.length)
      for (const id of [S.S1, S.S2, S.S3, S.S4, S.S5]) {
        const es = yield* streamAll(root, id)
        expect(es.filter((e) => e.sessionId === "agent-ccc222")).toEqual([])
      }
    }))

  it("import and sessions: the flat subagent is indexed; an append to it is imported on the next run", () => {
    const root = flatCopy()
    const dir = tempDir("si-claude-flat-")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(agents, "x"), { recursive: true })
    const index = path.join(dir, "i.db")
    const run = () => cli(["import", "--index", index, "--claude-root", root, "--agents-root", agents, "--json"], { env })
    expect([0, 8]).toContain(run().code)
    const list = JSON.parse(cli(["sessions", "--index", index, "--json"], { env }).stdout).data as Array<any>
    const sub = list.find((s) => s.sessionId === `agent-${AGENT}`)
    expect(sub).toBeDefined()
    const flatFile = path.join(root, BILLING, `agent-${AGENT}.jsonl`)
    const last = fs.readFileSync(flatFile, "utf8").trim().split("\n").pop()!
    const rec = JSON.parse(last)
    fs.appendFileSync(flatFile, JSON.stringify({ ...rec, uuid: "99999999-9999-4999-8999-999999999999", parentUuid: rec.uuid }) + "\n")
    const again = JSON.parse(run().stdout.trim().split("\n").pop()!).data
    expect(again.eventsAdded).toBeGreaterThan(0)
  })
})

describe("Claude Code: custom-title (/rename)", () => {
  it.effect("the latest custom-title is the title, over a summary and the first prompt; a record of another session is not", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      const file = sessionPath(S.S1, root)
      const before = yield* withAdapter(root, (a) => a.transcript(locatorOf(S.S1, root)))
      const rename = (t: string, sid: string = S.S1) => JSON.stringify({ type: "custom-title", customTitle: t, sessionId: sid }) + "\n"
      fs.appendFileSync(file, rename("First name") + rename("Billing CSV fix") + rename("Not mine", S.S2))
      const t = yield* withAdapter(root, (a) => a.transcript(locatorOf(S.S1, root)))
      expect(before.title).not.toBe("Billing CSV fix")
      expect(t.title).toBe("Billing CSV fix")
      // no parse warning, no event for it
      expect(t.parseWarnings).toEqual(before.parseWarnings)
      const events = yield* streamAll(root, S.S1)
      const plain = yield* streamAll(copyFixtures(), S.S1)
      expect(events.length).toBe(plain.length)
      const d = yield* withAdapter(root, (a) => a.discover({}))
      expect(d.sources.find((s) => s.sessionId === S.S1)?.overview.title).toBe("Billing CSV fix")
      // What the title came from is said: the rename, not the session's summary.
      const before0 = yield* withAdapter(copyFixtures(), (a) => a.discover({}))
      expect((before0.sources.find((s) => s.sessionId === S.S1)?.summary as Record<string, unknown>).titleFrom).toBe("summary")
      expect((d.sources.find((s) => s.sessionId === S.S1)?.summary as Record<string, unknown>).titleFrom).toBe("custom-title")
    }))

  it.effect("an empty customTitle leaves the title as it was", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      const before = yield* withAdapter(root, (a) => a.transcript(locatorOf(S.S1, root)))
      fs.appendFileSync(sessionPath(S.S1, root), JSON.stringify({ type: "custom-title", customTitle: "  ", sessionId: S.S1 }) + "\n")
      const t = yield* withAdapter(root, (a) => a.transcript(locatorOf(S.S1, root)))
      expect(t.title).toBe(before.title)
    }))
})
