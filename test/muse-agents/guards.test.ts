/**
 * The hot-path record checks of the Muse agents classifier give the answers
 * of the Schemas they stand for (seed 000, "Record types"): the Schemas stay
 * the definition, the guards only skip building a decoded copy.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as R from "../../src/domain/muse-agents/records.js"

const valid: Record<keyof typeof R.recordGuards, Record<string, unknown>> = {
  SessionHeaderRecord: { type: "session_header", session_id: "s-1", agent_id: "a", created_at: 1 },
  ItemRecord: { type: "item", seq: 1, source: "runtime", item: { type: "message" }, created_at: 1 },
  CompactionCheckpointRecord: { type: "compaction_checkpoint", compaction_id: "c", trigger: "auto", created_at: 1 },
  MessageItem: { type: "message", role: "user", text: "hi" },
  MessagePartsItem: { type: "message_parts", role: "assistant", parts: [{ text: "a" }] },
  ThinkingItem: { type: "thinking", thinking: "hmm" },
  CommentaryItem: { type: "commentary_text", text: "note" },
  FunctionCallItem: { type: "function_call", call_id: "c1", name: "exec", arguments: "{}" },
  FunctionCallOutputItem: { type: "function_call_output", call_id: "c1", output: "ok", success: true }
}

const anyJson = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom("", "x", "message"),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.constantFrom("type", "text"), fc.string({ maxLength: 2 }), { maxKeys: 2 })
)

describe("recordGuards", () => {
  for (const name of Object.keys(valid) as Array<keyof typeof R.recordGuards>) {
    it(`${name} answers as the Schema does`, () => {
      const decode = Schema.decodeUnknownEither(R[name] as Schema.Schema<unknown>)
      const guard = R.recordGuards[name]
      const base = valid[name]
      expect(guard(base)).toBe(true)
      const like = fc.record(
        Object.fromEntries(Object.keys(base).map((k) => [k, fc.oneof(fc.constant(base[k]), anyJson)])),
        { requiredKeys: [] }
      )
      fc.assert(
        fc.property(like, (u) => {
          const parsed = JSON.parse(JSON.stringify(u)) as Record<string, unknown>
          expect(guard(parsed)).toBe(Either.isRight(decode(parsed)))
        }),
        { numRuns: 500 }
      )
    })
  }
})
