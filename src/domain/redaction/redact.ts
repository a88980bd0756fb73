/**
 * Redaction of whole values: a string, any JSON-like value (deep), a
 * normalized event and a transcript, given the rules
 * (`./rules.ts`). What stays as it is: object keys, numbers, booleans, and
 * the structural fields of an event and a transcript that readers and
 * links need (ids, kinds, roles, cursors). Everything else is walked, so a
 * field added to the model later is redacted without being named here.
 * Unchanged subtrees are returned as they are (no copy). Pure: no I/O.
 *
 * @module
 */
import type { SessionEvent, Transcript } from "../model.js"
import { type RedactionRule, textRedactor } from "./rules.js"

/** The redaction of each kind of value, by one set of rules (see `RedactionShape` in `src/services/Redaction.ts`). */
export interface Redactor {
  readonly text: (s: string) => string
  readonly value: <A>(v: A) => A
  readonly event: (e: SessionEvent) => SessionEvent
  readonly transcript: (t: Transcript) => Transcript
}

/**
 * The fields of a {@link SessionEvent} that are kept as they are: the
 * contract's identity and order (`contractVersion`, `provider`, `sourceId`,
 * `sessionId`, `eventId`, `sequence`, `kind`, `role`, `cursor`) and
 * `toolCallId` (it pairs calls with results). `rawReference` keeps its
 * `locatorClass` (its other fields are numbers).
 */
export const EVENT_STRUCTURAL_FIELDS: ReadonlyArray<string> = [
  "contractVersion",
  "provider",
  "sourceId",
  "sessionId",
  "eventId",
  "sequence",
  "kind",
  "role",
  "cursor",
  "toolCallId"
]

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** The redaction of each kind of value by `rules` (applied in order). No rules: every function is the identity. */
export const makeRedactor = (rules: ReadonlyArray<RedactionRule>): Redactor => {
  if (rules.length === 0) {
    return { text: (s) => s, value: (v) => v, event: (e) => e, transcript: (t) => t }
  }
  const text = textRedactor(rules)

  /** `v` redacted; the same reference when nothing in it changed. */
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return text(v)
    if (Array.isArray(v)) {
      let out: Array<unknown> | undefined
      for (let i = 0; i < v.length; i++) {
        const r = walk(v[i])
        if (r !== v[i]) {
          out ??= v.slice()
          out[i] = r
        }
      }
      return out ?? v
    }
    if (isPlainObject(v)) return walkObject(v, undefined)
    return v
  }

  /** An object with each value walked, except the keys in `keep`. */
  const walkObject = (o: Record<string, unknown>, keep: ReadonlySet<string> | undefined): Record<string, unknown> => {
    let out: Record<string, unknown> | undefined
    for (const k of Object.keys(o)) {
      if (keep?.has(k) === true) continue
      const r = walk(o[k])
      if (r !== o[k]) {
        out ??= { ...o }
        out[k] = r
      }
    }
    return out ?? o
  }

  const eventKeep = new Set([...EVENT_STRUCTURAL_FIELDS, "rawReference"])
  const rawKeep = new Set(["locatorClass"])
  const event = (e: SessionEvent): SessionEvent => {
    const out = walkObject(e as unknown as Record<string, unknown>, eventKeep)
    const raw = e.rawReference as unknown
    const rawOut = isPlainObject(raw) ? walkObject(raw, rawKeep) : raw
    if (rawOut === raw) return out as unknown as SessionEvent
    return { ...(out as unknown as SessionEvent), rawReference: rawOut as SessionEvent["rawReference"] }
  }

  const transcriptKeep = new Set(["sessionId", "turns", "compactions"])
  const turnKeep = new Set(["role", "timestamp", "blocks"])
  const blockKeep = new Set(["type", "id"])
  const compactionKeep = new Set(["id", "timestamp"])
  const transcript = (t: Transcript): Transcript => {
    const top = walkObject(t as unknown as Record<string, unknown>, transcriptKeep)
    return {
      ...(top as unknown as Transcript),
      turns: t.turns.map((turn) => {
        const rest = walkObject(turn as unknown as Record<string, unknown>, turnKeep)
        return { ...(rest as unknown as typeof turn), blocks: turn.blocks.map((b) => walkObject(b as unknown as Record<string, unknown>, blockKeep) as unknown as typeof b) }
      }),
      compactions: t.compactions.map((c) => walkObject(c as unknown as Record<string, unknown>, compactionKeep) as unknown as typeof c)
    }
  }

  return { text, value: <A>(v: A): A => walk(v) as A, event, transcript }
}
