/**
 * `show` builds a session's transcript from the index's events
 * (`transcriptFromEvents`); `transcript` builds it from the source. For the
 * same Muse agents source they give the same turns, compactions and times,
 * whatever the records are (a compaction between two assistant messages
 * included: seed 000 keeps compactions as metadata, they do not cut a turn).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { transcriptFromEvents } from "../../src/domain/conversation.js"
import { collect, FIXTURE_ROOT, jl, locatorOf, tempDir, withAdapter, writeTranscript } from "./helpers.js"

const header = { type: "session_header", session_id: "s-cmp", agent_id: "cmp", created_at: "2026-09-18T10:00:00Z" }
const item = (seq: number, it: unknown, at: string) => ({ type: "item", seq, source: "runtime", item: it, created_at: at })

/** The provider's transcript and the one `show` builds from its streamed events. */
const both = (root: string, agent: string) =>
  withAdapter(root, (adapter) =>
    Effect.gen(function*() {
      const locator = locatorOf(agent, root)
      const own = yield* adapter.transcript!(locator)
      const events = yield* collect(adapter.stream(locator))
      const fromEvents = transcriptFromEvents({ sessionId: own.sessionId, title: own.title, model: own.model, startedAt: own.startedAt }, events)
      return { own, fromEvents }
    }))

describe("show's transcript equals the provider's (muse-agents)", () => {
  it.effect("a compaction between two assistant messages does not cut the assistant turn in either", () =>
    Effect.gen(function*() {
      const root = nodePath.join(tempDir(), "agents")
      writeTranscript(root, "cmp", [
        jl(header),
        jl(item(1, { type: "message", role: "user", text: "refactor it" }, "2026-09-18T10:00:01Z")),
        jl(item(2, { type: "message", role: "assistant", text: "step one" }, "2026-09-18T10:00:02Z")),
        jl({ type: "compaction_checkpoint", compaction_id: 7, trigger: "auto", summary: "S", created_at: 1789725603 }),
        jl(item(3, { type: "message", role: "assistant", text: "step two" }, "2026-09-18T10:00:04Z"))
      ].join(""))
      const { own, fromEvents } = yield* both(root, "cmp")
      // One user turn, then one assistant turn holding both messages.
      expect(own.turns.map((t) => [t.role, t.blocks.length])).toEqual([["user", 1], ["assistant", 2]])
      expect(fromEvents.turns).toEqual(own.turns)
      expect(fromEvents.compactions).toEqual(own.compactions)
    }))

  it.effect("every bundled fixture: the same turns, compactions, start and end", () =>
    Effect.gen(function*() {
      for (const agent of fs.readdirSync(FIXTURE_ROOT)) {
        if (!fs.existsSync(nodePath.join(FIXTURE_ROOT, agent, "sessions", `${agent}.jsonl`))) continue
        const r = yield* Effect.either(both(FIXTURE_ROOT, agent))
        if (r._tag === "Left") continue // a fixture the seed leaves out (no header, nothing said)
        const { own, fromEvents } = r.right
        expect(fromEvents.turns, agent).toEqual(own.turns)
        expect(fromEvents.compactions, agent).toEqual(own.compactions)
        expect([fromEvents.startedAt, fromEvents.endedAt], agent).toEqual([own.startedAt, own.endedAt])
      }
    }))
})
