/**
 * The SessionSource contract: what every provider adapter offers (discover,
 * inspect, stream with an optional cursor, and transcript for conversation
 * providers), and the registry that holds the adapters.
 *
 * Source: issue "Muse Code export trajectories end to end" and
 * `../shared/DESIGN.md` ("Providers", "Normalized model").
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { SkippedSources } from "../domain/skipped-unchanged.js"
import { InvalidArgument, type IngestError, type SourceAccessError } from "../domain/errors.js"
import type {
  Diagnostic,
  DiscoveryReport,
  Inspection,
  Locator,
  LocatorClass,
  ProviderDescriptor,
  ProviderId,
  SessionEvent,
  SourceSummary,
  Transcript
} from "../domain/model.js"

/** Selectors of a discovery run (roots come from the {@link AccessPolicy}). */
export interface DiscoverRequest {
  /** AgentMux: the agent UID whose own zones are read (seed 002). */
  readonly agentId?: string | undefined
  /**
   * Sources selected by an earlier discovery, by path: their fingerprint then
   * (see `src/domain/fingerprint.ts`) and the summary discovery gave. A
   * provider may select an unchanged one again without re-reading it (Muse
   * Code native discovery does, when its recorded evidence still names a
   * workspace). The importer passes what its index holds.
   */
  readonly known?: ReadonlyMap<string, KnownSource> | undefined
  /**
   * Line logs an earlier discovery skipped whole (`RESOURCE_LIMIT_EXCEEDED`,
   * `SOURCE_GARBLED`), by real path, with the fingerprint of their stat and
   * the diagnostic they were skipped with (`src/domain/skipped-unchanged.ts`).
   * A provider that scans whole logs (Claude Code, Muse agents) says such a
   * log, unchanged since, skipped again from it without reading it (one
   * `lstat`), adds what it skips, and drops what changed. The importer passes
   * one per provider for its lifetime (every round of a watch).
   */
  readonly skipped?: SkippedSources | undefined
}

/** A source an earlier discovery selected. */
export interface KnownSource {
  readonly fingerprint: string
  readonly summary: Record<string, unknown>
  /**
   * The typed summary (overview) discovery gave of the source when it was
   * imported, when the index keeps it and read it with the checkpoint;
   * undefined otherwise. Read lazily: a discovery that needs only this need
   * not read `summary`.
   */
  readonly overview?: SourceSummary | undefined
}

/** Options of a stream. */
export interface StreamOptions {
  /** Resume right after the event that carried this cursor. */
  readonly cursor?: string | undefined
  /** Muse Code native: also stream nested `subagent/<child>/session.jsonl` logs. */
  readonly includeSubagents?: boolean | undefined
  /**
   * Where a stream reports what it left out without failing. Given, a Muse
   * Code native log's bound nested log that is missing is skipped and
   * reported here (`NESTED_LOG_MISSING`); absent, the stream fails
   * `SOURCE_NOT_FOUND` naming it as the nested log it is.
   */
  readonly onDiagnostic?: ((diagnostic: Diagnostic) => void) | undefined
  /**
   * Where a stream reports, once per source file after its events, what it
   * handed on changed without leaving it out: `NUMBER_NOT_EXACT` (numbers
   * JSON does not carry exactly, counted, the first named; the exact text
   * stays at each event's raw reference). Absent, nothing is reported and
   * nothing changes. Muse Code native logs, Muse agents transcripts and
   * Claude Code sessions (each subagent file its own) report it.
   */
  readonly onWarning?: ((diagnostic: Diagnostic) => void) | undefined
  /**
   * Where a stream reports each line of its source's own file that it reads
   * and that counts a parse warning, as discovery's scan counts it in the
   * source's overview (`SourceSummary.parseWarnings`): the warning's kind and
   * the line's 1-based number in the file (a read resumed after a cursor
   * numbers its lines as the file does), once per kind the line counts, in
   * file order, as the lines are read. The importer adds those of the lines
   * an earlier discovery did not see to that discovery's overview (a watch's
   * targeted round: its report counts a bad line appended since). Muse agents
   * transcripts and Claude Code session files (not their subagent files,
   * which the overview does not count) report them; Muse Code fails closed on
   * a bad line and counts none, and AgentMux reports its session's warnings
   * whole through `onWarning`. Absent, nothing is counted.
   */
  readonly onLineWarning?: ((kind: string, lineNumber: number) => void) | undefined
  /**
   * Where a stream reports the title of its source's session when discovery could not know it (the overview's
   * `title` is null: AgentMux's discovery reads no session's lines, tester31a F4; Muse Code's reads no more of a
   * native log than its budget, and an export is given explicitly): once, before the events of the batch that holds
   * it, also when it resumes after a cursor (the title is the whole session's, its first prompt's: a Muse Code log
   * resumed is read from its start to the cursor for it), with the session it titles when the stream says it (Muse
   * Code: the log's or the document's own session; AgentMux: the overview's). The importer writes it where
   * discovery's title goes (the session's row and its search words, the kept overview a push copies; a parse
   * worker's answer carries it). Absent, nothing is reported. Providers whose discovery gives the title do not call it.
   */
  readonly onTitle?: ((title: string, sessionId?: string) => void) | undefined
  /**
   * Called with the bytes of each read of a line-oriented source's files (the
   * file itself, and a Muse Code native log's nested logs), in file order,
   * before the events read from them are emitted: the importer digests what
   * it imports from these (`src/layers/index/prefix.ts`) without reading the
   * file again. Sources read whole (exports, AgentMux) do not call it.
   */
  readonly onRead?: ((read: SourceRead) => void) | undefined
  /**
   * For a writer that copies the source's own JSON text of an event's `text`
   * (the full NDJSON stream, `CANONICAL_TEXT` in `src/domain/json.ts`): a
   * Muse agents transcript's events carry the line's bytes of their `text`
   * when they are `JSON.stringify` of it. Absent, no event carries them (the
   * search costs time that a reader of the events alone would not get back).
   */
  readonly textBytes?: boolean | undefined
}

/** One read of a stream ({@link StreamOptions.onRead}): `bytes` of `path` (source `sourceId`) at byte `offset`. */
export interface SourceRead {
  readonly sourceId: string
  readonly path: string
  readonly offset: number
  readonly bytes: Uint8Array
}

/**
 * One provider's adapter. Every operation fails only with the typed error
 * family; an operation the provider does not support fails with
 * `UnsupportedOperation` and a remediation.
 */
export interface SessionSourceAdapter {
  readonly descriptor: ProviderDescriptor
  /** List the sources this provider finds under the authorized roots. */
  readonly discover: (request: DiscoverRequest) => Effect.Effect<DiscoveryReport, IngestError>
  /** Validate one source in full and describe it. */
  readonly inspect: (locator: Locator) => Effect.Effect<Inspection, IngestError>
  /** The source's events, in source order, from the start or right after `cursor`. */
  readonly stream: (locator: Locator, options?: StreamOptions) => Stream.Stream<SessionEvent, IngestError>
  /**
   * Optional fast path of {@link SessionSourceAdapter.stream} for a source
   * small enough to be read at once: the same events (and the same
   * `onRead` / `onDiagnostic` calls), all in one effect, or `undefined` when
   * the adapter does not read this one at once (then `stream` it). `then`:
   * a stream of what follows the events (Muse Code: nested logs read a step
   * at a time), or undefined. Where `stream` fails after some events, this
   * fails with the same error. For callers that take a source's events in
   * batches (the importer): a small source then costs no stream.
   */
  readonly streamAtOnce?:
    | ((
      locator: Locator,
      options?: StreamOptions
    ) => Effect.Effect<
      { readonly events: ReadonlyArray<SessionEvent>; readonly then: Stream.Stream<SessionEvent, IngestError> | undefined } | undefined,
      IngestError
    >)
    | undefined
  /** The source as a conversation (conversation providers only). */
  readonly transcript: (locator: Locator) => Effect.Effect<Transcript, IngestError>
  /**
   * Other files a source's stream reads besides `locator.path` (Muse Code
   * native: the nested `subagent/<child>/session.jsonl` logs), so that the
   * importer's fingerprint changes when any of them does. Listed through
   * `SourceAccess`. Best effort: a folder that is not there gives none; one
   * that is there but cannot be listed (permission denied, an I/O error)
   * fails with the access error (its `details` are `UnreadableDetails`,
   * `../domain/unreadable.ts`), so that the importer never takes the nested
   * logs it could not see as gone.
   */
  readonly parts?: ((locator: Locator) => Effect.Effect<ReadonlyArray<string>, SourceAccessError>) | undefined
  /**
   * The locator class a file is read as when the caller names none (Muse
   * Code: a `session.jsonl` is a native log, anything else an export); when
   * absent or undefined, the descriptor's first class.
   */
  readonly locatorClassOf?: ((path: string) => LocatorClass | undefined) | undefined
  /**
   * True when each file is one source, whatever else its locator carries
   * (Muse agents: the agent and session ids read from it): a checkpoint of
   * the same provider, class and path under another key is an earlier
   * reading of the same file, which the importer supersedes. False or absent:
   * a file may hold many sources (a store: AgentMux), each kept on its own.
   */
  readonly sourcePerFile?: boolean | undefined
  /**
   * Whether a source whose file has no imported prefix to hash (Muse Code: an export, one JSON document) is still
   * what `cursor` (the resume cursor its import stored) was taken from, told by a digest of the whole document the
   * cursor binds: the importer asks it of a complete source whose file changed in its times only (a `touch`; the
   * same size, inode and birth time), and counts it unchanged when true (docs/import.md "Re-import of unchanged
   * sources"). False when it cannot tell (a cursor of no such digest); fails with the access errors. Absent: such a
   * source is read again.
   */
  readonly unchangedSince?: ((locator: Locator, cursor: string) => Effect.Effect<boolean, IngestError>) | undefined
  /**
   * True when the provider's source files are never SQLite databases (JSON
   * and JSONL logs): the importer's fingerprint then skips the stat of a
   * `-wal` file beside them (one `lstat` per source on every import). False
   * or absent: a `-wal` beside the file is part of its fingerprint.
   */
  readonly noWal?: boolean | undefined
}

/** The registry's operations. */
export interface SessionSourcesShape {
  /** Every registered provider's descriptor, in registration order. */
  readonly descriptors: ReadonlyArray<ProviderDescriptor>
  /** The adapter of a provider; `InvalidArgument` for an unknown id. */
  readonly get: (provider: string) => Effect.Effect<SessionSourceAdapter, InvalidArgument>
}

/** The provider registry. Live layer: `src/layers/registry.ts`. */
export class SessionSources extends Context.Tag("session-ingest/SessionSources")<SessionSources, SessionSourcesShape>() {
  /** A registry over the given adapters. */
  static make = (adapters: ReadonlyArray<SessionSourceAdapter>): SessionSourcesShape =>
    SessionSources.lazy(
      adapters.map((a) => a.descriptor),
      new Map(adapters.map((a) => [a.descriptor.provider, Effect.succeed(a)]))
    )

  /**
   * A registry whose adapters are made on demand: `descriptors` in order, and
   * for each provider id the effect that answers its adapter (the caller
   * memoizes it, e.g. with `Effect.cached`).
   */
  static lazy = (
    descriptors: ReadonlyArray<ProviderDescriptor>,
    adapters: ReadonlyMap<string, Effect.Effect<SessionSourceAdapter>>
  ): SessionSourcesShape => ({
    descriptors,
    get: (provider) => {
      const adapter = adapters.get(provider)
      return adapter !== undefined
        ? adapter
        : Effect.fail(
          new InvalidArgument({
            message: `Unknown provider "${provider}".`,
            remediation: `Use one of: ${[...adapters.keys()].join(", ")} (see \`session-ingest providers\`).`
          })
        )
    }
  })
}

/** Re-exported for adapters' signatures. */
export type { ProviderId }
