/**
 * The lean stream (`stream --lean`, issue 13): the same events as `stream`,
 * written without what they restate, and the expansion that gives back the
 * full stream, byte for byte.
 *
 * Lean stream contract `lean-1` (docs/stream-and-cursors.md, "Lean stream"): NDJSON, one object
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
 * full stream (the same JSON values); {@link eventLine} is the full stream's
 * line of an event, so `eventLine` of each expanded event is, byte for byte,
 * what `stream` writes.
 *
 * @module
 */
import * as Either from "effect/Either"
import * as Effect from "effect/Effect"
import { schemaIssueList } from "../domain/schema-issues.js"
import * as Schema from "effect/Schema"
import { MalformedSource } from "../domain/errors.js"
import { SessionEvent } from "../domain/model.js"
import { escapeJsonControls } from "../domain/render.js"
import { eventOfRow, type LeanBodyParts, leanEventParts, type ShapePlan, shapePlan, type StreamFacts } from "./index/rows.js"

/** The version of the lean stream's contract, on its first line. */
export const LEAN_STREAM_VERSION = "lean-1" as const

const SHAPES_MAX = 4096

/**
 * The line `stream` (without `--lean`) writes for an event, without its
 * `\n`: `JSON.stringify` of it with C1 controls (U+0080–U+009F) and bidi
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069) written as `\uHHHH`
 * escapes (the same JSON value). `JSON.stringify` alone writes those
 * characters raw, so only this serializer gives the stream's bytes.
 */
export const eventLine = (event: SessionEvent): string => escapeJsonControls(JSON.stringify(event))

/**
 * A lean stream's writer: a function of the events, in stream order, that
 * gives the lines (the JSON text of each, without its `\n`) that stand for
 * them, the first line of the stream included on its first call. Stateful:
 * one writer per stream.
 */
export const leanWriter = (): ((events: Iterable<SessionEvent>) => Array<string>) =>
  writerOf((s) => s, (before, body) => body.payload === undefined ? before + body.head + body.tail + "}" : before + body.head + body.payload.text + body.tail + "}")

/**
 * One line of a lean stream in parts (see {@link leanPartsWriter}): texts,
 * and the source's UTF-8 bytes of a Muse Code payload's text where the event
 * carries them, which joined (the bytes as their text) are the line that
 * {@link leanWriter} gives.
 */
export type LeanLineParts = ReadonlyArray<string | Uint8Array>

/**
 * {@link leanWriter} whose event lines are in parts ({@link LeanLineParts}):
 * a payload's source bytes are copied by the writer of stdout instead of
 * being joined into the line and encoded again (what `stream --lean`
 * writes: the same bytes). Stateful: one writer per stream.
 */
export const leanPartsWriter = (): ((events: Iterable<SessionEvent>) => Array<string | LeanLineParts>) =>
  writerOf<string | LeanLineParts>((s) => s, (before, body) =>
    body.payload === undefined
      ? before + body.head + body.tail + "}"
      : [before + body.head, body.payload.bytes ?? body.payload.text, body.tail + "}"])

/** The writer of {@link leanWriter}, each line made by `text` (a whole line) or `event` (an event line: the text before its body, its body in parts, then `}`). */
const writerOf = <L>(text: (s: string) => L, event: (before: string, body: LeanBodyParts) => L): ((events: Iterable<SessionEvent>) => Array<L>) => {
  let started = false
  let session: StreamFacts | undefined
  const shapes = new Map<string, number>()
  return (events) => {
    const out: Array<L> = []
    if (!started) {
      started = true
      out.push(text(JSON.stringify({ lean: LEAN_STREAM_VERSION })))
    }
    for (const e of events) {
      const l = leanEventParts(e)
      if (l === null) {
        const whole = JSON.stringify({ event: e }) as string | undefined
        if (whole !== undefined) out.push(text(whole))
        continue
      }
      if (session === undefined || session.provider !== e.provider || session.sourceId !== e.sourceId || session.sessionId !== e.sessionId) {
        session = { provider: e.provider, sourceId: e.sourceId, sessionId: e.sessionId }
        out.push(text(JSON.stringify({ session })))
      }
      let id = shapes.get(l.shape)
      if (id === undefined) {
        if (shapes.size >= SHAPES_MAX) shapes.clear()
        id = shapes.size
        shapes.set(l.shape, id)
        out.push(text(`{"shape":${id},"def":${l.shape}}`))
      }
      out.push(event(`{"e":${id},"sequence":${e.sequence},"kind":${JSON.stringify(e.kind)},"occurredAt":${JSON.stringify(e.occurredAt)},"body":`, l.body))
    }
    return out
  }
}

const HEADER = `{"lean":"${LEAN_STREAM_VERSION}"}`

const invalid = (line: number, why: string) =>
  new MalformedSource({
    message: `Line ${line} of the lean stream ${why}.`,
    remediation: "Pass the output of `session-ingest stream --lean` whole and unchanged (from its first line)."
  })

/** True when `o`'s own keys are exactly `keys` (in any order). */
const hasKeys = (o: object, keys: ReadonlyArray<string>): boolean => {
  const own = Object.keys(o)
  return own.length === keys.length && keys.every((k) => Object.hasOwn(o, k))
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** A shape number: an integer of 0..4095 (the writer's numbers start again from 0 after 4,096). */
const isShapeNumber = (u: unknown): u is number => Number.isInteger(u) && (u as number) >= 0 && (u as number) < SHAPES_MAX

/** A key a shape names: a string, never `__proto__` (setting it would change a prototype; the writer never declares one). */
const keyProblem = (u: unknown, where: string): string | undefined =>
  typeof u !== "string" ? `names a key of ${where} that is not a string` : u === "__proto__" ? `names a key __proto__ in ${where} (the lean record never declares one)` : undefined

/** A kept object's keys: strings, or `[key, value]` pairs. */
const shapeKeysProblem = (u: unknown, where: string): string | undefined => {
  if (!Array.isArray(u)) return `has keys of ${where} that are not an array`
  for (const k of u) {
    const p = keyProblem(Array.isArray(k) && k.length === 2 ? k[0] : k, where)
    if (p !== undefined) return p
  }
  return undefined
}

/** What is wrong with a shape declaration's `def` (`Shape` in `./index/rows.ts`), or undefined. */
const shapeProblem = (def: Record<string, unknown>): string | undefined => {
  if (typeof def.c !== "string") return "declares a shape without its contract version (c)"
  if (!Array.isArray(def.k)) return "declares a shape without its list of keys (k)"
  for (const k of def.k) {
    const p = keyProblem(k, "the event")
    if (p !== undefined) return `declares a shape that ${p}`
  }
  if (new Set(def.k).size !== def.k.length) return "declares a shape that names a key twice"
  const known = new Set(def.k as Array<string>)
  for (const k of Object.keys(def)) if (!["c", "k", "n", "o", "x", "v", "r"].includes(k)) return `declares a shape with a field ${k} the lean record does not have`
  if (def.n !== undefined && (!Array.isArray(def.n) || def.n.some((k) => !known.has(k)))) return "declares a shape whose null fields (n) are not among its keys"
  if (def.o !== undefined) {
    if (!isObject(def.o)) return "declares a shape whose objects (o) are not an object"
    for (const [k, keys] of Object.entries(def.o)) {
      const p = keyProblem(k, "the event") ?? shapeKeysProblem(keys, k)
      if (p !== undefined) return `declares a shape that ${p}`
    }
  }
  if (def.x !== undefined) {
    if (!Array.isArray(def.x)) return "declares a shape whose extensions (x) are not an array"
    for (const space of def.x) {
      if (!Array.isArray(space) || space.length !== 2) return "declares a shape whose extensions (x) are not [namespace, keys] pairs"
      const p = keyProblem(space[0], "extensions") ?? (space[1] === null ? undefined : shapeKeysProblem(space[1], `extensions ${space[0]}`))
      if (p !== undefined) return `declares a shape that ${p}`
    }
  }
  if (def.v !== undefined) {
    if (!isObject(def.v)) return "declares a shape whose words (v) are not an object"
    for (const k of Object.keys(def.v)) {
      const p = keyProblem(k, "the event")
      if (p !== undefined) return `declares a shape that ${p}`
    }
  }
  if (def.r !== undefined) {
    if (!isObject(def.r)) return "declares a shape whose references (r) are not an object"
    for (const [k, ref] of Object.entries(def.r)) {
      if (!Array.isArray(ref) || (ref[0] !== "=" && ref[0] !== "~") || ref.length < 2) return `declares a shape whose reference of ${k} is not ["=" or "~", path…]`
      const p = keyProblem(k, "the event") ?? ref.slice(1).map((s) => (typeof s === "number" ? undefined : keyProblem(s, `the reference of ${k}`))).find((x) => x !== undefined)
      if (p !== undefined) return `declares a shape that ${p}`
    }
  }
  return undefined
}

/** How many body values a shape's events have (one per object, per extensions and per other kept value). */
const bodyLength = (plan: ShapePlan): number => plan.steps.filter((s) => s.from === "object" || s.from === "extensions" || s.from === "body").length

/** What is wrong with an event line's body for its shape (an object's or a namespace's values of another length), or undefined. */
const bodyProblem = (plan: ShapePlan, body: ReadonlyArray<unknown>): string | undefined => {
  const want = bodyLength(plan)
  if (body.length !== want) return `has a body of ${body.length} value(s) where its shape has ${want}`
  let i = 0
  const fits = (keys: ReadonlyArray<unknown>, values: unknown) =>
    Array.isArray(values) && values.length === keys.filter((k) => typeof k === "string").length
  for (const step of plan.steps) {
    if (step.from === "object") {
      if (!fits(step.keys, body[i++])) return `has a body whose ${step.key} values do not fit its shape`
    } else if (step.from === "extensions") {
      const got = body[i++]
      if (!Array.isArray(got) || got.length !== step.spaces.length) return "has a body whose extensions do not fit its shape"
      for (let j = 0; j < step.spaces.length; j++) {
        const keys = step.spaces[j][1]
        if (keys !== null && !fits(keys, got[j])) return `has a body whose extensions ${step.spaces[j][0]} values do not fit its shape`
      }
    } else if (step.from === "body") i++
  }
  return undefined
}

/** True when every reference of the plan leads, through own properties, to a value of the event's extensions. */
const refsResolve = (plan: ShapePlan, e: Record<string, unknown>): boolean =>
  plan.refs.every(([, mode, path]) => {
    let v: unknown = e.extensions
    for (const p of path) {
      if (typeof v !== "object" || v === null || !Object.hasOwn(v, p)) return false
      v = (v as Record<string | number, unknown>)[p]
    }
    return mode === "=" || typeof v === "string"
  })

const validEvent = Schema.validateEither(SessionEvent)

/** The event when it is one of the contract's (`SessionEvent` in `../domain/model.ts`), else what is wrong with it. */
const contractEvent = (line: number, u: unknown): Either.Either<SessionEvent, MalformedSource> => {
  const r = validEvent(u)
  if (Either.isRight(r)) return Either.right(u as SessionEvent)
  const first = schemaIssueList(r.left, 1)[0]
  const where = first === undefined || first.path === "" ? "" : ` (${first.path}: ${first.message})`
  return Either.left(invalid(line, `is not an event of the contract${where}`))
}

const EVENT_LINE_KEYS = ["e", "sequence", "kind", "occurredAt", "body"] as const

/**
 * An expander of a lean stream: a function given its lines in order (the
 * text of each, without its `\n`) that gives, for each, the full event it
 * stands for (the very event `stream` without `--lean` writes: the same key
 * order, so the same JSON text with {@link eventLine}), or undefined for a
 * line that declares something (the first line, a session, a shape). Fails
 * with `MalformedSource`, its message naming the line and what is wrong, for
 * a line that is not JSON or not of the lean contract (a line of other keys,
 * a shape number not of 0..4095, a shape naming a key `__proto__`, a body of
 * other values than its shape's), an event before its session or shape, an
 * expanded event that is not one of the event contract (`SessionEvent` of
 * `../domain/model.ts`: `sequence` an integer, `kind` a string, ...), or a
 * stream that does not start with `{"lean":"lean-1"}`. Stateful: one
 * expander per stream. Source: the lines `stream --lean` printed
 * ({@link leanWriter}).
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
    if (!isObject(v)) return Either.left(invalid(n, "is not a JSON object"))
    if (n === 1) {
      return v.lean === LEAN_STREAM_VERSION && hasKeys(v, ["lean"])
        ? Either.right(undefined)
        : Either.left(invalid(n, `is not the lean stream's first line (${HEADER})`))
    }
    if (Object.hasOwn(v, "e")) {
      const extra = Object.keys(v).find((k) => !(EVENT_LINE_KEYS as ReadonlyArray<string>).includes(k))
      if (extra !== undefined) return Either.left(invalid(n, `is an event line with a key ${extra} it does not have`))
      if (!isShapeNumber(v.e)) return Either.left(invalid(n, `names shape "e": ${JSON.stringify(v.e)}, not one of 0..${SHAPES_MAX - 1}`))
      const plan = plans.get(v.e)
      if (plan === undefined) return Either.left(invalid(n, `uses shape ${v.e}, not declared before`))
      if (session === undefined) return Either.left(invalid(n, "is an event before any session line"))
      if (!Array.isArray(v.body)) return Either.left(invalid(n, "has no body array"))
      const wrong = bodyProblem(plan, v.body)
      if (wrong !== undefined) return Either.left(invalid(n, wrong))
      let e: SessionEvent
      try {
        e = eventOfRow(plan, JSON.stringify(v.body), session, {
          sequence: v.sequence as number,
          kind: v.kind as string,
          occurredAt: v.occurredAt as string | null
        })
      } catch {
        return Either.left(invalid(n, "does not fit its shape"))
      }
      if (!refsResolve(plan, e as unknown as Record<string, unknown>)) return Either.left(invalid(n, "has a reference that does not lead to a value of its extensions"))
      return contractEvent(n, e)
    }
    if (Object.hasOwn(v, "shape")) {
      if (!hasKeys(v, ["shape", "def"])) return Either.left(invalid(n, "declares a shape with other keys than shape and def"))
      if (!isShapeNumber(v.shape)) return Either.left(invalid(n, `declares shape ${JSON.stringify(v.shape)}, not one of 0..${SHAPES_MAX - 1}`))
      if (!isObject(v.def)) return Either.left(invalid(n, "declares a shape whose def is not an object"))
      const wrong = shapeProblem(v.def)
      if (wrong !== undefined) return Either.left(invalid(n, wrong))
      try {
        plans.set(v.shape, shapePlan(JSON.stringify(v.def)))
      } catch {
        return Either.left(invalid(n, "declares a shape that cannot be read"))
      }
      return Either.right(undefined)
    }
    if (Object.hasOwn(v, "session")) {
      const s = v.session
      if (!hasKeys(v, ["session"]) || !isObject(s) || !hasKeys(s, ["provider", "sourceId", "sessionId"]) ||
        typeof s.provider !== "string" || typeof s.sourceId !== "string" || typeof s.sessionId !== "string") {
        return Either.left(invalid(n, "declares a session other than {provider, sourceId, sessionId} (strings)"))
      }
      session = { provider: s.provider, sourceId: s.sourceId, sessionId: s.sessionId }
      return Either.right(undefined)
    }
    if (Object.hasOwn(v, "event")) {
      if (!hasKeys(v, ["event"])) return Either.left(invalid(n, "is a whole event line with other keys than event"))
      // JSON.parse made every key (`__proto__` included) an own property.
      return contractEvent(n, v.event)
    }
    return Either.left(invalid(n, "is none of the lean stream's lines (lean, session, shape, e, event)"))
  }
}

/**
 * The full events of a whole lean stream's lines (empty lines skipped), in
 * order: {@link eventLine} of each is, byte for byte, the line `stream`
 * without `--lean` writes for it. Fails with `MalformedSource` (see
 * {@link leanExpander}), and for a stream with no line at all (no first line).
 */
export const expandLeanStream = (lines: Iterable<string>): Effect.Effect<Array<SessionEvent>, MalformedSource> =>
  Effect.suspend(() => {
    const expand = leanExpander()
    const out: Array<SessionEvent> = []
    let any = false
    for (const line of lines) {
      if (line.length === 0) continue
      any = true
      const r = expand(line)
      if (Either.isLeft(r)) return Effect.fail(r.left)
      if (r.right !== undefined) out.push(r.right)
    }
    return any ? Effect.succeed(out) : Effect.fail(invalid(1, `is missing: a lean stream starts with ${HEADER} (the stream is empty)`))
  })
