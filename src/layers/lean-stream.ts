/**
 * The lean stream (`stream --lean`, issue 13): the same events as `stream`,
 * written without what they restate, and the expansion that gives back the
 * full stream, byte for byte.
 *
 * Lean stream contract `lean-1` (README, "Lean stream"): NDJSON, one object
 * a line, told apart by its first key:
 * - `{"lean":"lean-1"}`: the first line;
 * - `{"session":{"provider","sourceId","sessionId"}}`: the ids every event
 *   of a session restates, written before its first event and again
 *   whenever the next event belongs to another session (a subagent's);
 * - `{"shape":N,"def":{...}}`: a layout of events (the index's lean record
 *   shape, `Shape` in `./index/rows.ts`: the contract version, the event's
 *   keys in order, which are null, the keys of its small objects, which
 *   typed field restates a value of `extensions` and where), declared
 *   before the first event that uses it; N counts from 0 and starts again
 *   from 0 after 4,096 shapes (a later declaration of an N replaces it);
 * - `{"e":N,"sequence":…,"kind":…,"occurredAt":…,"body":[…]}`: an event of
 *   shape N, of the current session: its remaining values, in the shape's
 *   order (null fields, the session's ids, the contract version and a
 *   `toolInput` or `text` that restates the payload in `extensions` are left out);
 * - `{"event":{…}}`: an event written whole (one the lean record declines).
 *
 * C1 controls and bidi overrides are written as `\uHHHH` escapes, as in the
 * full stream (the same JSON values).
 *
 * @module
 */
import * as Either from "effect/Either"
import * as Effect from "effect/Effect"
import { MalformedSource } from "../domain/errors.js"
import type { SessionEvent } from "../domain/model.js"
import { eventOfRow, leanEvent, type ShapePlan, shapePlan, type StreamFacts } from "./index/rows.js"

/** The version of the lean stream's contract, on its first line. */
export const LEAN_STREAM_VERSION = "lean-1" as const

const SHAPES_MAX = 4096

/**
 * A lean stream's writer: a function of the events, in stream order, that
 * gives the lines (the JSON text of each, without its `\n`) that stand for
 * them, the first line of the stream included on its first call. Stateful:
 * one writer per stream.
 */
export const leanWriter = (): ((events: Iterable<SessionEvent>) => Array<string>) => {
  let started = false
  let session: StreamFacts | undefined
  const shapes = new Map<string, number>()
  return (events) => {
    const out: Array<string> = []
    if (!started) {
      started = true
      out.push(JSON.stringify({ lean: LEAN_STREAM_VERSION }))
    }
    for (const e of events) {
      const l = leanEvent(e)
      if (l === null) {
        const whole = JSON.stringify({ event: e }) as string | undefined
        if (whole !== undefined) out.push(whole)
        continue
      }
      if (session === undefined || session.provider !== e.provider || session.sourceId !== e.sourceId || session.sessionId !== e.sessionId) {
        session = { provider: e.provider, sourceId: e.sourceId, sessionId: e.sessionId }
        out.push(JSON.stringify({ session }))
      }
      let id = shapes.get(l.shape)
      if (id === undefined) {
        if (shapes.size >= SHAPES_MAX) shapes.clear()
        id = shapes.size
        shapes.set(l.shape, id)
        out.push(`{"shape":${id},"def":${l.shape}}`)
      }
      // (the body is JSON.stringify's text of an array, as the line's other values are)
      out.push(`{"e":${id},"sequence":${e.sequence},"kind":${JSON.stringify(e.kind)},"occurredAt":${JSON.stringify(e.occurredAt)},"body":${l.body}}`)
    }
    return out
  }
}

const invalid = (line: number, why: string) =>
  new MalformedSource({
    message: `Line ${line} of the lean stream ${why}.`,
    remediation: "Pass the output of `session-ingest stream --lean` whole and unchanged (from its first line)."
  })

/**
 * An expander of a lean stream: a function given its lines in order (the
 * text of each, without its `\n`) that gives, for each, the full event it
 * stands for (the very event `stream` without `--lean` writes: the same key
 * order, so the same JSON text), or undefined for a line that declares
 * something (the first line, a session, a shape). Fails with
 * `MalformedSource` for a line that is not JSON or not of the lean contract,
 * an event before its session or shape, or a stream that does not start with
 * `{"lean":"lean-1"}`. Stateful: one expander per stream. Source: the lines
 * `stream --lean` printed ({@link leanWriter}).
 */
export const leanExpander = (): ((line: string) => Either.Either<SessionEvent | undefined, MalformedSource>) => {
  let n = 0
  let session: StreamFacts | undefined
  const plans = new Map<number, ShapePlan>()
  return (text) => {
    n++
    let v: Record<string, unknown>
    try {
      v = JSON.parse(text)
    } catch {
      return Either.left(invalid(n, "is not JSON"))
    }
    if (typeof v !== "object" || v === null || Array.isArray(v)) return Either.left(invalid(n, "is not a JSON object"))
    if (n === 1) {
      return v.lean === LEAN_STREAM_VERSION
        ? Either.right(undefined)
        : Either.left(invalid(n, `is not the lean stream's first line ({"lean":"${LEAN_STREAM_VERSION}"})`))
    }
    if (typeof v.e === "number") {
      const plan = plans.get(v.e)
      if (plan === undefined) return Either.left(invalid(n, `uses shape ${v.e}, not declared before`))
      if (session === undefined) return Either.left(invalid(n, "is an event before any session line"))
      if (!Array.isArray(v.body)) return Either.left(invalid(n, "has no body array"))
      try {
        const e = eventOfRow(plan, JSON.stringify(v.body), session, {
          sequence: v.sequence as number,
          kind: v.kind as string,
          occurredAt: v.occurredAt as string | null
        })
        return Either.right(e)
      } catch {
        return Either.left(invalid(n, "does not fit its shape"))
      }
    }
    if (typeof v.shape === "number" && typeof v.def === "object" && v.def !== null) {
      try {
        plans.set(v.shape, shapePlan(JSON.stringify(v.def)))
      } catch {
        return Either.left(invalid(n, "declares a shape that cannot be read"))
      }
      return Either.right(undefined)
    }
    if (typeof v.session === "object" && v.session !== null) {
      const s = v.session as Record<string, unknown>
      if (typeof s.provider !== "string" || typeof s.sourceId !== "string" || typeof s.sessionId !== "string") {
        return Either.left(invalid(n, "declares a session without its provider, sourceId and sessionId"))
      }
      session = { provider: s.provider, sourceId: s.sourceId, sessionId: s.sessionId }
      return Either.right(undefined)
    }
    if (typeof v.event === "object" && v.event !== null) return Either.right(v.event as SessionEvent)
    return Either.left(invalid(n, "is none of the lean stream's lines (lean, session, shape, e, event)"))
  }
}

/**
 * The full events of a whole lean stream's lines (empty lines skipped), in
 * order: `JSON.stringify` of each is the line `stream` without `--lean`
 * writes for it. Fails with `MalformedSource` (see {@link leanExpander}).
 */
export const expandLeanStream = (lines: Iterable<string>): Effect.Effect<Array<SessionEvent>, MalformedSource> =>
  Effect.suspend(() => {
    const expand = leanExpander()
    const out: Array<SessionEvent> = []
    for (const line of lines) {
      if (line.length === 0) continue
      const r = expand(line)
      if (Either.isLeft(r)) return Effect.fail(r.left)
      if (r.right !== undefined) out.push(r.right)
    }
    return Effect.succeed(out)
  })
