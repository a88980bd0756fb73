/**
 * The lean record's writer as it was before session 9's speed work
 * (`leanEvent` of `src/layers/index/rows.ts` at 1040bc6), frozen here, unchanged,
 * as the reference the faster one is compared with (`test/index/lean-event-speed.test.ts`):
 * the index's content and the lean stream's lines must not change. One rule
 * changed since, in both: a typed field's reference into `extensions` is the
 * first place that restates it (session 15; before, the place found for the
 * last event of its kind was tried first, so a shape depended on history).
 */
import type { SessionEvent } from "../../src/domain/model.js"
import type { LeanEvent, Shape, ShapeKey } from "../../src/layers/index/rows.js"

const STREAM_KEYS = new Set(["provider", "sourceId", "sessionId"])
const COLUMN_KEYS = new Set(["sequence", "kind", "occurredAt"])
/** Top-level objects of fixed keys, kept as value arrays (not `toolInput`: a tool's own arguments). */
const OBJECT_KEYS = new Set(["rawReference", "compaction", "parent", "child", "usage"])
/** Typed fields that may restate the provider's record in `extensions`. */
const REF_KEYS = ["text", "toolInput"] as const
/** A string shorter than this is kept as it is: a reference would not be smaller. */
const REF_MIN_CHARS = 24
const ONE_LINE_MAX = 1000
/** Top-level fields whose word-like value goes into the shape (never the text or a tool's input: those are content). */
const SHAPE_VALUE_KEYS = new Set(["role", "toolName", "isError"])
const WORD = /^[A-Za-z_.:-]{0,32}$/

/** Whether a value is one many events share, kept in the shape: null, a boolean, or a short word without digits or slashes. */
const isWord = (v: unknown): boolean => v === null || typeof v === "boolean" || (typeof v === "string" && v.length <= 32 && WORD.test(v))

/** An object's keys as the shape keeps them (word values inside), and the values left for the body. */
const split = (o: Record<string, unknown>, keys: ReadonlyArray<string>): [Array<ShapeKey>, Array<unknown>] => {
  const shapeKeys: Array<ShapeKey> = []
  const values: Array<unknown> = []
  for (const k of keys) {
    const v = o[k]
    if (isWord(v)) shapeKeys.push([k, v])
    else {
      shapeKeys.push(k)
      values.push(v)
    }
  }
  return [shapeKeys, values]
}

const isPlain = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype

/** The keys of `o` with a value (JSON leaves out undefined), or null when one cannot be rebuilt by assignment. */
const keysOf = (o: Record<string, unknown>): Array<string> | null => {
  const ks: Array<string> = []
  for (const k in o) {
    if (!Object.hasOwn(o, k) || o[k] === undefined) continue
    if (k === "__proto__") return null
    ks.push(k)
  }
  return ks
}

/** Muse Code's one-line text: whitespace runs made one space, trimmed, cut to 1000 characters with an ellipsis. */
const oneLine = (s: string): string => {
  if (s.length > ONE_LINE_MAX * 4) {
    const head = s.slice(0, ONE_LINE_MAX * 4).replace(/\s+/g, " ").trimStart()
    if (head.length > ONE_LINE_MAX + 1) return head.slice(0, ONE_LINE_MAX - 1) + "…"
  }
  const flat = s.replace(/\s+/g, " ").trim()
  return flat.length > ONE_LINE_MAX ? flat.slice(0, ONE_LINE_MAX - 1) + "…" : flat
}

/** Whether `s`, made one line, may be `text` (its first word matches): a cheap test before the real one. */
const mayFlattenTo = (s: string, text: string): boolean => {
  let i = 0
  while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 10 || s.charCodeAt(i) === 9 || s.charCodeAt(i) === 13)) i++
  const n = Math.min(8, text.length)
  for (let j = 0; j < n; j++) {
    const a = s.charCodeAt(i + j)
    const b = text.charCodeAt(j)
    if (a !== b && !(b === 32 && (a === 10 || a === 9 || a === 13 || a === 32))) return false
  }
  return true
}

/** Where in `ext` a value sits that `target` restates: the path and how (see {@link Shape.r}); null when none. */
const findRef = (ext: Record<string, unknown>, target: unknown): Array<string | number> | null => {
  const path: Array<string | number> = []
  let jsonOfTarget: string | undefined
  const targetKeys = isPlain(target) ? Object.keys(target).length : -1
  const visit = (v: unknown, depth: number): string | null => {
    if (typeof v === "string") {
      if (typeof target !== "string" || v.length < REF_MIN_CHARS) return null
      if (v === target) return "="
      return v.length + 1 >= Math.min(target.length, ONE_LINE_MAX) && mayFlattenTo(v, target) && oneLine(v) === target ? "~" : null
    }
    if (typeof v !== "object" || v === null) return null
    if (typeof target === "object" && target !== null) {
      if (v === target) return "="
      if (isPlain(v) && Object.keys(v).length === targetKeys && JSON.stringify(v) === (jsonOfTarget ??= JSON.stringify(target))) return "="
    }
    if (depth >= 6) return null
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i)
        const m = visit(v[i], depth + 1)
        if (m !== null) return m
        path.pop()
      }
    } else if (isPlain(v)) {
      for (const k in v) {
        if (k === "__proto__") continue
        path.push(k)
        const m = visit(v[k], depth + 1)
        if (m !== null) return m
        path.pop()
      }
    }
    return null
  }
  for (const k in ext) {
    if (k === "__proto__") continue
    path.push(k)
    const m = visit(ext[k], 1)
    if (m !== null) return [m, ...path]
    path.pop()
  }
  return null
}

/**
 * The lean form of an event (see {@link Shape}), or null when it must be
 * kept whole (a key the contract does not have, a value of a type the
 * columns cannot hold): {@link eventOfRow} then reads the full JSON.
 */
export const referenceLeanEvent = (e: SessionEvent): LeanEvent | null => {
  const ev = e as unknown as Record<string, unknown>
  const keys = keysOf(ev)
  if (keys === null) return null
  if (
    typeof e.contractVersion !== "string" || typeof e.provider !== "string" || typeof e.sourceId !== "string" ||
    typeof e.sessionId !== "string" || !Number.isSafeInteger(e.sequence) || typeof e.kind !== "string" ||
    (e.occurredAt !== null && typeof e.occurredAt !== "string")
  ) return null
  // The shape is found by a signature made as the body is (cheaper than its JSON), and made once per signature.
  let sig = e.contractVersion
  const body: Array<unknown> = []
  const nulls: Array<string> = []
  let objects: Record<string, ReadonlyArray<ShapeKey>> | undefined
  let ext: Array<readonly [string, ReadonlyArray<ShapeKey> | null]> | undefined
  let words: Record<string, unknown> | undefined
  let refs: Record<string, ReadonlyArray<string | number>> | undefined
  if (isPlain(e.extensions)) {
    for (const k of REF_KEYS) {
      const v = ev[k]
      if (v === null || v === undefined || (typeof v === "string" ? v.length < REF_MIN_CHARS : typeof v !== "object")) continue
      // Session 15: the first place that restates it, the event alone deciding (it was the last kind's place when
      // that still held, which made an event's shape depend on the events leaned before it).
      const ref = findRef(e.extensions, v)
      if (ref !== null) {
        ;(refs ??= {})[k] = ref
        sig += `\u0004${k}\u0002${JSON.stringify(ref)}`
      }
    }
  }
  for (const k of keys) {
    sig += `\u0001${k.length}:${k}`
    if (k === "contractVersion" || STREAM_KEYS.has(k) || COLUMN_KEYS.has(k)) continue
    const v = ev[k]
    if (v === null) {
      nulls.push(k)
      sig += "\u0003n"
      continue
    }
    if (refs !== undefined && refs[k] !== undefined) continue
    if (k === "extensions" && isPlain(v)) {
      const spaces = keysOf(v)
      if (spaces === null) return null
      ext = []
      const values: Array<unknown> = []
      for (const ns of spaces) {
        const inner = v[ns]
        const innerKeys = isPlain(inner) ? keysOf(inner) : null
        sig += `\u0005${ns.length}:${ns}`
        if (innerKeys === null) {
          ext.push([ns, null])
          values.push(inner)
          sig += "\u0003r"
        } else {
          const [shapeKeys, innerValues] = split(inner as Record<string, unknown>, innerKeys)
          ext.push([ns, shapeKeys])
          values.push(innerValues)
          sig += signature(shapeKeys)
        }
      }
      body.push(values)
      continue
    }
    if (OBJECT_KEYS.has(k) && isPlain(v)) {
      const ks = keysOf(v)
      if (ks !== null) {
        const [shapeKeys, values] = split(v, ks)
        ;(objects ??= {})[k] = shapeKeys
        body.push(values)
        sig += `\u0003o${signature(shapeKeys)}`
        continue
      }
    }
    if (SHAPE_VALUE_KEYS.has(k) && isWord(v)) {
      ;(words ??= {})[k] = v
      sig += `\u0002${wordSig(v)}`
      continue
    }
    body.push(v)
  }
  let shape = shapeCache.get(sig)
  if (shape === undefined) {
    const def: Shape = {
      c: e.contractVersion,
      k: keys,
      ...(nulls.length > 0 ? { n: nulls } : {}),
      ...(objects !== undefined ? { o: objects } : {}),
      ...(ext !== undefined ? { x: ext } : {}),
      ...(refs !== undefined ? { r: refs } : {}),
      ...(words !== undefined ? { v: words } : {})
    }
    shape = JSON.stringify(def)
    if (shapeCache.size >= SHAPE_CACHE_MAX) shapeCache.clear()
    shapeCache.set(sig, shape)
  }
  return { shape, body: JSON.stringify(body) }
}


/** Shapes by signature (see {@link leanEvent}: keys are length-prefixed, words hold no control characters, so no two shapes share one); cleared when full. */
const shapeCache = new Map<string, string>()
const SHAPE_CACHE_MAX = 4096

/** A word's part of a signature (words hold no control characters). */
const wordSig = (v: unknown): string => (v === null ? "\u0003n" : v === true ? "\u0003t" : v === false ? "\u0003f" : `\u0006${v as string}`)

/** An object's keys' part of a signature, word values included. */
const signature = (keys: ReadonlyArray<ShapeKey>): string => {
  let s = "\u0007"
  for (const k of keys) s += typeof k === "string" ? `\u0001${k.length}:${k}` : `\u0002${k[0].length}:${k[0]}${wordSig(k[1])}`
  return s
}
