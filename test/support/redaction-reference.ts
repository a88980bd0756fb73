/**
 * A frozen copy of the redaction as it was before its speed-up (session 7,
 * bench figure redact): `textRedactor` + `redactText` of
 * src/domain/redaction/rules.ts and `makeRedactor` of
 * src/domain/redaction/redact.ts at ff38eef, over the same rule table. The
 * differential test (test/domain/redaction-differential.test.ts) holds the
 * live redaction to it: same output, same references kept, for every input.
 * Not used by src/. The rules' patterns, hints and gates come from the live
 * table; each rule is applied by its pattern, except `email`, applied by its
 * hand-written `apply` as before (its own test holds it to its pattern), and
 * the rules that read a structure by hand (`byHand`: `secret-nested`,
 * `secret-block`, session 11), whose pattern says only where a match starts.
 * Session 10 and 11 additions to the walk are marked as such. The text
 * redaction is read through the live decoded view (session 26), a layer over it, and through the live view of
 * the text without its shell line continuations (session 35), another, and through the live view of the text with
 * the line breaks a format lets stand for a space folded (session 40), a third.
 */
import type { SessionEvent, Transcript } from "../../src/domain/model.js"
import { throughDecoded } from "../../src/domain/redaction/decoded-views.js"
import { throughContinuations } from "../../src/domain/redaction/continuations.js"
import { scanThroughJoints, throughJoints } from "../../src/domain/redaction/line-breaks.js"
import {
  EVENT_STRUCTURAL_FIELDS,
  SOURCE_JSON_FIELDS,
  FIELD_MARK,
  isPairValueKey,
  NESTED_MARK,
  OPTION_MARK,
  optionValueAt,
  PAIR_MARK,
  pairNamesOf,
  PIN_MARK,
  type Redactor,
  secretValue
} from "../../src/domain/redaction/redact.js"
import {
  headerValue,
  leafSecret,
  marker,
  opaqueSignature,
  pairSecret,
  type RedactionRule,
  schemaLike,
  secretKeyKind,
  type SecretKeyKind,
  signatureKey,
  underKind
} from "../../src/domain/redaction/rules.js"

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const hintPatterns = new WeakMap<RedactionRule, RegExp>()
const hintsOf = (rule: RedactionRule): RegExp => {
  let p = hintPatterns.get(rule)
  if (p === undefined) {
    p = new RegExp(rule.hints.map(escapeRegExp).join("|"))
    hintPatterns.set(rule, p)
  }
  return p
}

/** The old `redactText`: every rule in order, each skipped when its hints are absent from the current text. */
export const referenceRedactText = (rules: ReadonlyArray<RedactionRule>, s: string): string => {
  let out = s
  for (const rule of rules) {
    if (rule.hints.length > 0 && !hintsOf(rule).test(out)) continue
    if (rule.apply !== undefined && (rule.id === "email" || rule.byHand === true)) {
      out = rule.apply(out)
      continue
    }
    rule.pattern.lastIndex = 0
    out = rule.replace === undefined
      ? out.replace(rule.pattern, marker(rule.id))
      : out.replace(rule.pattern, rule.replace as (m: string, ...g: Array<string>) => string)
  }
  return out
}

/** The old `textRedactor`: one prefilter of every rule's gate (or hints), then {@link referenceRedactText}. */
export const referenceTextRedactor = (rules: ReadonlyArray<RedactionRule>): (s: string) => string => {
  if (rules.some((r) => r.hints.length === 0)) return (s) => referenceRedactText(rules, s)
  const hints = [...new Set(rules.flatMap((r) => r.gate ?? r.hints))].sort((a, b) => b.length - a.length)
  const any = new RegExp(hints.map(escapeRegExp).join("|"))
  return (s) => (any.test(s) ? referenceRedactText(rules, s) : s)
}

/**
 * {@link referenceTextRedactor} read through the live decoded view (session 26,
 * src/domain/redaction/decoded-views.ts, a layer over the text redaction, not a part of its speed-up) where the
 * prefilter lets a text through, as the live redaction reads it.
 */
export const referenceDecodedTextRedactor = (rules: ReadonlyArray<RedactionRule>): (s: string) => string => {
  const plain = referenceTextRedactor(rules)
  // (session 35: and read as a shell reads it, its line continuations taken out: the live layer of
  // src/domain/redaction/continuations.ts, under the decoded view as in the live redaction)
  // (session 40: and with the line breaks a format lets stand for a space folded into one: the live layer of
  // src/domain/redaction/line-breaks.ts, under the continuations' view as in the live redaction, its prefilter too)
  const decoded = throughDecoded(throughContinuations(throughJoints(plain)))
  if (rules.some((r) => r.hints.length === 0)) return decoded
  const hints = [...new Set(rules.flatMap((r) => r.gate ?? r.hints))].sort((a, b) => b.length - a.length)
  const any = new RegExp(hints.map(escapeRegExp).join("|"))
  const scan = scanThroughJoints((s) => (any.test(s) ? 1 : 0))
  return (s) => ((scan(s) & 1) !== 0 ? decoded(s) : s)
}
/** Set an own data property (also for a key such as `__proto__`, which plain assignment would not create). */
const setOwn = (o: Record<string, unknown>, k: string, v: unknown) =>
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true })

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** The redaction of each kind of value by `rules` (applied in order). No rules: every function is the identity. */
export const referenceRedactor = (rules: ReadonlyArray<RedactionRule>): Redactor => {
  if (rules.length === 0) {
    return { text: (s) => s, id: (s) => s, value: (v) => v, event: (e) => e, eventIn: (e) => e, eventNoting: (e) => e, restated: (e) => e, transcript: (t) => t, title: (s) => s }
  }
  // session 26: read through the decoded view (HTML references, percent escapes), as the live redaction reads it
  const text = referenceDecodedTextRedactor(rules)

  /** `v` redacted; the same reference when nothing in it changed. */
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return text(v)
    if (Array.isArray(v)) {
      let out: Array<unknown> | undefined
      for (let i = 0; i < v.length; i++) {
        let r = i > 0 && optionValueAt(v[i - 1], v[i]) ? OPTION_MARK : walk(v[i])
        // session 10: a header as a `[name, value]` pair
        if (i === 1 && v.length === 2 && r !== OPTION_MARK && pairSecret(v[0], r, true)) r = PAIR_MARK
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

  /** Session 11: a value under a secret's name of kind `kind`: each secret leaf becomes the nested marker; schemas walked as usual. */
  const walkUnder = (kind: SecretKeyKind, v: unknown): unknown => {
    if (typeof v === "string" || typeof v === "number") return leafSecret(kind, v) ? NESTED_MARK : walk(v)
    if (Array.isArray(v)) {
      const out = v.map((x) => walkUnder(kind, x))
      return out.every((x, i) => x === v[i]) ? v : out
    }
    if (isPlainObject(v)) return schemaLike(v) ? walkObject(v, undefined) : walkObject(v, undefined, kind)
    return v
  }

  /** A key redacted (keys repeat: the last few thousand are remembered). */
  const keyCache = new Map<string, string>()
  const key = (k: string): string => {
    let r = keyCache.get(k)
    if (r === undefined) {
      r = text(k)
      if (keyCache.size >= 4096) keyCache.clear()
      keyCache.set(k, r)
    }
    return r
  }

  /**
   * An object with each key redacted and each value walked, except the
   * entries whose keys are in `keep` (kept whole). Order is kept; a key that
   * redacts to one already there gets ` #2`, ` #3`, ….
   */
  const walkObject = (o: Record<string, unknown>, keep: ReadonlySet<string> | undefined, under?: SecretKeyKind): Record<string, unknown> => {
    let out: Record<string, unknown> | undefined
    let renamed = false
    const keys = Object.keys(o)
    const values: Array<unknown> = new Array(keys.length)
    const names: Array<string> = new Array(keys.length)
    // session 10: the value of a name/value object (`{"name": "X-Api-Key", "value": "…"}`)
    const pair = pairNamesOf(o)
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]
      if (keep?.has(k) === true) {
        names[i] = k
        values[i] = o[k]
        continue
      }
      const kind = secretKeyKind(k)
      const ov = o[k]
      let v: unknown
      if (under !== undefined) v = walkUnder(under, ov)
      else if (kind !== "none" && secretValue(kind, ov)) v = kind === "pin" ? PIN_MARK : FIELD_MARK
      // session 21: an opaque value under a signature's name
      else if (kind === "none" && signatureKey(k) && opaqueSignature(ov)) v = FIELD_MARK
      // session 11: an object (not a schema) or an array under a secret's name; a header map's value
      else if (kind !== "none" && typeof ov === "object" && ov !== null && (Array.isArray(ov) || (isPlainObject(ov) && !schemaLike(ov)))) v = walkUnder(underKind(kind, k), ov)
      else {
        v = walk(ov)
        if (kind === "header" && typeof v === "string") v = headerValue(k, v)
        else if (pair !== undefined && isPairValueKey(k) && pair.some((n) => pairSecret(n, v, false))) v = PAIR_MARK
      }
      const rk = key(k)
      names[i] = rk
      values[i] = v
      if (rk !== k) renamed = true
      else if (v !== o[k]) {
        out ??= { ...o }
        setOwn(out, k, v)
      }
    }
    if (!renamed) return out ?? o
    const result: Record<string, unknown> = {}
    const taken = new Set<string>()
    // Keys that did not change keep their names; a redacted key takes the next free ` #n`.
    for (let i = 0; i < keys.length; i++) if (names[i] === keys[i]) taken.add(keys[i])
    for (let i = 0; i < keys.length; i++) {
      let name = names[i]
      if (name !== keys[i]) {
        if (taken.has(name)) {
          let n = 2
          while (taken.has(`${name} #${n}`)) n++
          name = `${name} #${n}`
        }
        taken.add(name)
      }
      setOwn(result, name, values[i])
    }
    return result
  }

  const eventKeep = new Set([...EVENT_STRUCTURAL_FIELDS, "rawReference"])
  const rawKeep = new Set(["locatorClass"])
  // session 21 (tester21b F6): the names in `extensions` are the record's, except under a field holding the source's JSON
  const extensions = (x: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {}
    let changed = false
    for (const k of Object.keys(x)) {
      const v = x[k]
      const r = isPlainObject(v) && !SOURCE_JSON_FIELDS.has(k) && secretKeyKind(k) === "none" ? extensions(v) : Object.values(walkObject({ [k]: v }, undefined))[0]
      if (r !== v) changed = true
      setOwn(out, k, r)
    }
    return changed ? out : x
  }
  /** A compaction's id and trigger through the text rules (tester38 F1), its time kept. */
  const compactionOf = <C extends { readonly id: string; readonly trigger: string | null }>(c: C): C => ({ ...c, id: typeof c.id === "string" ? text(c.id) : c.id, trigger: typeof c.trigger === "string" ? text(c.trigger) : c.trigger })
  const event = (e: SessionEvent): SessionEvent => {
    let out = walkObject(e as unknown as Record<string, unknown>, new Set([...eventKeep, "extensions"]))
    // tester25a F18: a tool call's id goes through the text rules (built-in ones alone when it is id-shaped: the rules
    // this reference is run with are the built-in ones, so both are `text`)
    if (typeof e.toolCallId === "string" && text(e.toolCallId) !== e.toolCallId) out = { ...out, toolCallId: text(e.toolCallId) }
    // tester38 F2: the session id alike; F1: a compaction's id alike and its trigger through the text rules
    if (typeof e.sessionId === "string" && text(e.sessionId) !== e.sessionId) out = { ...out, sessionId: text(e.sessionId) }
    const c = e.compaction as { readonly id: string; readonly trigger: string | null } | null | undefined
    if (c != null && (text(c.id) !== c.id || (c.trigger !== null && text(c.trigger) !== c.trigger))) out = { ...out, compaction: compactionOf(c) }
    if (isPlainObject(e.extensions)) {
      const ext = extensions(e.extensions)
      if (ext !== e.extensions) out = { ...out, extensions: ext }
    }
    const raw = e.rawReference as unknown
    const rawOut = isPlainObject(raw) ? walkObject(raw, rawKeep) : raw
    if (rawOut === raw) return out as unknown as SessionEvent
    return { ...(out as unknown as SessionEvent), rawReference: rawOut as SessionEvent["rawReference"] }
  }

  const transcriptKeep = new Set(["sessionId", "turns", "compactions", "startedAt", "endedAt", "parseWarnings", "diagnostics"])
  const turnKeep = new Set(["role", "timestamp", "blocks"])
  const blockKeep = new Set(["type", "id"])
  const compactionKeep = new Set(["id", "timestamp", "trigger"])
  const transcript = (t: Transcript): Transcript => {
    const top = walkObject(t as unknown as Record<string, unknown>, transcriptKeep)
    return {
      ...(top as unknown as Transcript),
      turns: t.turns.map((turn) => {
        const rest = walkObject(turn as unknown as Record<string, unknown>, turnKeep)
        return { ...(rest as unknown as typeof turn), blocks: turn.blocks.map((b) => walkObject(b as unknown as Record<string, unknown>, blockKeep) as unknown as typeof b) }
      }),
      sessionId: text(t.sessionId),
      compactions: t.compactions.map((c) => compactionOf(walkObject(c as unknown as Record<string, unknown>, compactionKeep) as unknown as typeof c))
    }
  }

  // (the live redactor's eventIn adds a session's known secrets: not the subject of the differential tests)
  // (the live redactor's title also cuts a title cut short at a word, session 17: not the subject either)
  return { text, id: text, value: <A>(v: A): A => walk(v) as A, event, eventIn: (e) => event(e), eventNoting: (e) => event(e), restated: (e) => e, transcript, title: (s) => text(s) }
}
