/**
 * tester23b F9: an ATIF export names the models without a price (`final_metrics.extra.unpriced_models`, the
 * session's and each subagent's) as every other field shows them: redacted alike. The names come from the usage
 * the index counted (its models kept as the sources wrote them, to price them), not from the redacted events, so
 * a custom pattern that hides a model name in `model_name` hid it nowhere there.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { SessionEvent } from "../../src/domain/model.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { groupRows, usageRows } from "../../src/domain/usage.js"
import { shareableTrajectory } from "../../src/layers/share.js"
import { Redaction, redactionWith } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"

const MODEL = "claude-ACME-00000006"
const SHOWN = `claude-${marker("acme-key")}`

const eventsOf = (sessionId: string): Array<SessionEvent> => {
  const e = mk("claude-code", sessionId)
  return [
    e("message", { role: "user", text: "hi", occurredAt: "2026-03-01T10:00:00Z" }),
    e("message", {
      role: "assistant",
      text: "hello",
      model: MODEL,
      responseId: "msg_1",
      occurredAt: "2026-03-01T10:00:01Z",
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null }
    } as Partial<SessionEvent>)
  ]
}

/** The usage groups the index counts for `events` (one per event, its model as written). */
const counted = (events: ReadonlyArray<SessionEvent>) => groupRows(usageRows(events), (r) => r.eventId)

describe("ATIF's unpriced models are redacted as the model's other fields (tester23b F9)", () => {
  const custom = Either.getOrThrow(redactionWith([{ id: "acme-key", pattern: "ACME-[0-9]{8}" }]))

  it.effect("with the index's usage counts: the session's and a subagent's unpriced_models, as model_name", () =>
    Effect.gen(function*() {
      const events = eventsOf("s1")
      const sub = eventsOf("s2")
      const atif = yield* shareableTrajectory({
        session: { sessionId: "s1", provider: "claude-code", title: "t", model: MODEL },
        events,
        usage: counted(events),
        subagents: [{ session: { sessionId: "s2", provider: "claude-code", title: "u", model: MODEL }, events: sub, usage: counted(sub) }]
      } as never).pipe(Effect.provideService(Redaction, custom))
      expect(atif.agent.model_name).toBe(SHOWN)
      expect(atif.final_metrics?.extra?.unpriced_models).toEqual([SHOWN])
      expect(atif.subagent_trajectories?.[0].final_metrics?.extra?.unpriced_models).toEqual([SHOWN])
      // the counts stay what they were
      expect(atif.final_metrics?.total_completion_tokens).toBe(5)
      expect(JSON.stringify(atif)).not.toContain("ACME-0")
    }))

  it.effect("without redaction the name stays as written", () =>
    Effect.gen(function*() {
      const events = eventsOf("s1")
      const atif = yield* shareableTrajectory({
        session: { sessionId: "s1", provider: "claude-code", title: "t", model: MODEL },
        events,
        usage: counted(events),
        subagents: []
      } as never).pipe(Effect.provide(Redaction.off))
      expect(atif.final_metrics?.extra?.unpriced_models).toEqual([MODEL])
    }))
})
