/**
 * The `Redaction` service (issue 15; DESIGN.md, "Services"): the one place
 * where shareable outputs (Markdown, ATIF, NDJSON export, the HTML replay,
 * MCP answers) lose secrets, emails and home paths. Outputs call it at their
 * boundary, on what they are about to write. Layers: {@link Redaction.layer}
 * (the built-in rules of `src/domain/redaction/rules.ts`),
 * {@link Redaction.off} (`--no-redact`: the identity), and
 * {@link Redaction.layerWith} (custom patterns from the config file's
 * `redaction.patterns`, then the built-in rules).
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type { InvalidArgument } from "../domain/errors.js"
import type { SessionEvent, Transcript } from "../domain/model.js"
import { compileCustomPatterns, type CustomPattern } from "../domain/redaction/custom.js"
import { makeRedactor } from "../domain/redaction/redact.js"
import { builtinRules, type RedactionRule } from "../domain/redaction/rules.js"
import { realIds, runIds, type ShownIds } from "../domain/shown-ids.js"

/** What the service does (every method is pure and total). */
export interface RedactionShape {
  /** false when redaction is off (--no-redact / server flag); every method is then the identity. */
  readonly enabled: boolean
  /** The rules: custom patterns (matched on the original text, merged with the others': `src/domain/redaction/union.ts`) then the built-in ones; empty when off. */
  readonly rules: ReadonlyArray<RedactionRule>
  /** One string, redacted: each match replaced by `[REDACTED:<rule-id>]` (home paths become `~`). */
  readonly text: (s: string) => string
  /**
   * An id copied from the source (a session id, a tool call's, a link's, a compaction's) as redacted outputs show it:
   * as it is when id-shaped and free of a vendor token (a UUID, `toolu_…`, `sidechain-<uuid>`), else through the text
   * rules (tester38 F2); the same id alike everywhere, so links still resolve. The identity when off.
   */
  readonly id: (s: string) => string
  /** Any JSON-like value, deep: every string leaf and every object key redacted (two keys that redact alike told apart by ` #2`, …), structure unchanged. */
  readonly value: <A>(v: A) => A
  /**
   * A normalized event (src/domain/model.ts SessionEvent), every field redacted except the structural ones
   * that must stay usable: contractVersion, provider, sourceId, sessionId, eventId, sequence, kind, role,
   * cursor, rawReference.locatorClass, ids such as toolCallId and responseId, occurredAt, and the typed
   * isError, compaction, parent, child, usage and costUsd (`EVENT_STRUCTURAL_FIELDS`); of these, an id copied from
   * the source that is not id-shaped goes through the text rules (toolCallId, responseId, parent, child, the
   * compaction's id) and a compaction's trigger, free text, always does (tester38 F1).
   */
  readonly event: (e: SessionEvent) => SessionEvent
  /**
   * An event as `event` redacts it, and each secret of `known` (a value an earlier event's structure decided on,
   * with its marker) where the event restates it as a word: see `sessionRedactor` in `src/domain/redaction/redact.ts`.
   */
  readonly eventIn: (e: SessionEvent, known: ReadonlyMap<string, string>) => SessionEvent
  /**
   * An event as `event` redacts it, each secret it decided on (a value under a secret-named key, or one a text rule
   * caught after its name: `DB_PASSWORD=…`) that has a secret's shape added to `into` with its marker (tester21b F4,
   * F1): see `sessionRedactor` in `src/domain/redaction/redact.ts`.
   */
  readonly eventNoting: (e: SessionEvent, into: Map<string, string>) => SessionEvent
  /**
   * Whether a stored event's JSON text may hold what makes `eventNoting` note a secret (false: no string of an
   * event that text holds can): the prefilter of a session's secrets (session 30); absent with custom rules. See
   * `Redactor.mayNote` in `src/domain/redaction/redact.ts`.
   */
  readonly mayNote?: (json: string) => boolean
  /**
   * An event `event` or `eventNoting` returned, with each secret of `known` replaced where it restates it as a token;
   * with `original` (the event as read), each such secret hidden whole, with a rule's marker that took all of it
   * but a part (tester22c F2: `[REDACTED:credential-prose]!` for a known `…!`): `restateFrom` in
   * `src/domain/redaction/redact.ts`.
   */
  readonly restated: (e: SessionEvent, known: ReadonlyMap<string, string>, original?: SessionEvent) => SessionEvent
  /**
   * A transcript (model.ts Transcript), every block and title redacted (session and block ids, roles and times
   * kept; a compaction's trigger redacted as text and its id as a link id, as `event` redacts them); each secret a turn decided on, and each of `known` (a session's, as `eventIn` takes them), is
   * looked for in every turn, earlier ones too, and in the title (tester25a F12).
   */
  readonly transcript: (t: Transcript, known?: ReadonlyMap<string, string>) => Transcript
  /**
   * A session's title (tester17 F1, F1b): redacted as `text`, then each secret of `known` (a session's, as
   * `eventIn` takes them) restated. A title cut short (80 characters, the last `\u2026`: `titleOf`) is redacted
   * without its ellipsis and loses its last word, where the cut may have left part of a secret no rule can see
   * (`src/domain/redaction/clipped.ts`), unless it ends with a marker. With `source`, the text the title was cut
   * from (its first prompt, whole: `isTitleSource`), that text is redacted whole and then cut (`titleOfRedacted`),
   * so no title depends on a hidden value's length or where it lay (tester22c F1); a `source` the title was not
   * cut from is ignored.
   */
  readonly title: (s: string, known?: ReadonlyMap<string, string>, source?: string) => string
  /**
   * How the output names sources and sessions (`src/domain/shown-ids.ts`): on, keyed digests of the real ids
   * (`hmac:…` source ids, `hses_…` session uids, keyed shown-cursor tags) under the index's secret, so no id is a
   * digest of a path anyone can compute; off, the real ids.
   */
  readonly ids: ShownIds
}

/**
 * A redaction by `rules` (in order; custom ones merged: `makeRedactor`); no rules: off. `ids`: the shown ids of an
 * index (`keyedIds` of its secret); none given, with rules, a key of this run only (`runIds`).
 */
export const makeRedaction = (rules: ReadonlyArray<RedactionRule>, ids?: ShownIds): RedactionShape => ({
  enabled: rules.length > 0,
  rules,
  ...makeRedactor(rules),
  ids: rules.length === 0 ? realIds : ids ?? runIds()
})

/** `r` naming sources and sessions by `ids` (an index's: `keyedIds` of its secret); off stays off (the real ids). */
export const withShownIds = (r: RedactionShape, ids: ShownIds): RedactionShape => (r.enabled ? { ...r, ids } : r)

/** Redaction by the built-in rules. */
export const defaultRedaction: RedactionShape = makeRedaction(builtinRules)

/** No redaction: every method is the identity. */
export const noRedaction: RedactionShape = makeRedaction([])

/**
 * Redaction by `patterns` (custom rules) and the built-in rules, merged: a
 * custom pattern only ever redacts more (`src/domain/redaction/union.ts`); `InvalidArgument` for a bad pattern (see `compileCustomPatterns`).
 */
export const redactionWith = (patterns: ReadonlyArray<CustomPattern>): Either.Either<RedactionShape, InvalidArgument> =>
  Either.map(compileCustomPatterns(patterns), (custom) => makeRedaction([...custom, ...builtinRules]))

/** The redaction shareable outputs go through. */
export class Redaction extends Context.Tag("session-ingest/Redaction")<Redaction, RedactionShape>() {
  /** The built-in rules. */
  static layer: Layer.Layer<Redaction> = Layer.succeed(Redaction, defaultRedaction)
  /** Off: every method is the identity (`--no-redact`). */
  static off: Layer.Layer<Redaction> = Layer.succeed(Redaction, noRedaction)
  /** Custom patterns (the config file's `redaction.patterns`) merged with the built-in rules; fails with `InvalidArgument` for a bad pattern. */
  static layerWith = (patterns: ReadonlyArray<CustomPattern>): Layer.Layer<Redaction, InvalidArgument> =>
    Layer.effect(Redaction, redactionWith(patterns))
}
