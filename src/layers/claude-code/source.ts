/**
 * Reading one Claude Code session (`claude-code-session-log`): its file
 * `<encoded-cwd>/<session-uuid>.jsonl` under the projects root, and its nested
 * subagent files `<session-uuid>/subagents/agent-<agentId>.jsonl` (with
 * `agent-<agentId>.meta.json`). Authorize, scan a step at a time (never the
 * whole file), and answer inspect / stream / transcript. Tolerant: bad lines
 * are skipped and counted; only access errors and a bad cursor fail.
 *
 * Line reading, the cursor resume and head checks, shrink detection and
 * cursor encoding are the shared JSONL kit's (`src/layers/jsonl`).
 *
 * @module
 */
import * as nodePath from "node:path"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { cursorIsFor, type CursorState, cursorSourceChanged, peekCursor } from "../../domain/cursor.js"
import {
  type IngestError,
  InvalidCursor,
  MalformedSource,
  ResourceLimitExceeded,
  type SourceAccessError,
  UnsupportedOperation
} from "../../domain/errors.js"
import { unreadableOf } from "../../domain/unreadable.js"
import { transcriptFromEvents } from "../../domain/conversation.js"
import { InexactTally } from "../../domain/inexact-tally.js"
import { inexactNumbers, isRecord, parseJson } from "../../domain/json.js"
import { fingerprintOfStat, partEntry } from "../../domain/fingerprint.js"
import type {
  Diagnostic,
  DiscoveredSource,
  Inspection,
  Locator,
  SessionEvent,
  SourceSummary,
  Transcript,
  TranscriptDiagnostic
} from "../../domain/model.js"
import {
  ChainState,
  eventCountOf,
  eventsOf,
  LOCATOR_CLASS,
  type ParentRef,
  PROVIDER,
  sidechainSessionId,
  subagentSessionId
} from "../../domain/claude-code/events.js"
import { type Classified, classifyLine } from "../../domain/claude-code/records.js"
import { agentIdOfFile, type ClaudeRoot, resolveClaudeRoot, sessionIdOfFile, subagentsDirOf } from "../../domain/claude-code/root.js"
import { lineWarningKinds, MAIN, type Part, SessionScan } from "../../domain/claude-code/summary.js"
import { repeatDiagnostics, type RepeatCounts } from "../../domain/claude-code/record-ids.js"
import { repeatLine, RepeatScreen } from "./repeats.js"
import { makeSourceId, redactLocator } from "../../domain/source-id.js"
import { skipDiagnosticOf } from "../../domain/text-encoding.js"
import type { AccessPolicyShape } from "../../services/AccessPolicy.js"
import type { ImportLimitsShape } from "../../services/ImportLimits.js"
import type { KnownSource, SourceRead, StreamOptions } from "../../services/SessionSource.js"
import type { AuthorizedFile, DirEntry, SourceAccessShape } from "../../services/SourceAccess.js"
import { failIfShrank, isValidUtf8, type Line, type LineBinding, openJsonl, readLines } from "../jsonl/index.js"
import { raiseLimitRemedy } from "../../domain/limit-remedy.js"
import { PARSE_WARNING, parseWarningMessage, SUBAGENT_FILE_EMPTY, SUBAGENT_ID_MISMATCH, ZEROED_BYTES, ZeroedLines } from "../../domain/warning-kinds.js"

/** The services and process facts a session is read with. */
export interface ClaudeDeps {
  readonly access: SourceAccessShape
  readonly limits: ImportLimitsShape
  readonly policy: AccessPolicyShape
  /** The environment (`CLAUDE_CONFIG_DIR`). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The user's home folder (`~/.claude/projects`). */
  readonly home: string
}

/** The root in force: `--claude-root`, else `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export const claudeRootOf = (deps: ClaudeDeps): ClaudeRoot =>
  resolveClaudeRoot((deps.policy as { readonly claudeRoot?: string | undefined }).claudeRoot, deps.env, deps.home)

/** The source id of a file's real path (a session log or a subagent file). */
export const sourceIdOf = (realPath: string): string => makeSourceId(PROVIDER, LOCATOR_CLASS, realPath)

/**
 * How session-file cursors bind their line (the JSONL kit's rule): the check
 * covers the line's bytes without its `\n`; a complete last line without one
 * may carry a cursor (tolerant: such a line is streamed, and an append may
 * complete it); every token carries a head binding.
 */
const SESSION_BINDING: LineBinding = { checkNewline: false, unterminated: true, headRequired: true }

/** A line's text (empty for an oversized line, whose bytes were not read). */
const textOf = (line: Line): string => (line.oversized ? "" : line.bytes.toString("utf8"))

const classify = (deps: ClaudeDeps, line: Line, lineNumber: number, text: string = textOf(line)): Classified =>
  classifyLine({ text, lineNumber, terminated: line.terminated, oversized: line.oversized }, deps.limits.maxDepth)

/** How a session's files are named in their `NUMBER_NOT_EXACT` diagnostics. */
const sessionFileLabel = (file: AuthorizedFile): string => `the session file ${file.path}`
const subagentFileLabel = (s: Subagent): string => `the subagent file ${s.file.path}`

/**
 * Authorize a session log under the root. Fails with the access errors
 * (`SourceOutsideAllowedRoot`, `SourceSymlink`, …), `UnsupportedOperation`
 * for another locator class, and `MalformedSource` for a file whose name is
 * no session log's (`<session-id>.jsonl`: its stem is the session id, so
 * `/etc/passwd` was read as a session with the id "", tester21b F5).
 */
export const authorizeSession = (
  deps: ClaudeDeps,
  locator: Locator
): Effect.Effect<AuthorizedFile, SourceAccessError | UnsupportedOperation | MalformedSource> =>
  locator.locatorClass !== LOCATOR_CLASS
    ? Effect.fail(
      new UnsupportedOperation({
        message: `Claude Code does not read locator class "${locator.locatorClass}".`,
        remediation: "Use --locator-class claude-code-session-log (the default) for <claude-root>/<encoded-cwd>/<session-uuid>.jsonl."
      })
    )
    : Effect.flatMap(deps.access.authorizeFile(locator.path, [claudeRootOf(deps).path], "--claude-root DIR"), (file) =>
      isSessionLogName(nodePath.basename(file.path)) ? Effect.succeed(file) : Effect.fail(notASessionLog(file.path)))

/** Whether a file's name is a session log's, `<session-id>.jsonl` (a non-empty stem: the session id). */
const isSessionLogName = (name: string): boolean => name.endsWith(".jsonl") && name.length > ".jsonl".length

/** A file under the root whose name is no session log's. */
const notASessionLog = (path: string) =>
  new MalformedSource({
    message: `${nodePath.basename(path)} is not a Claude Code session log: its name is not <session-uuid>.jsonl (the session id is the file's name).`,
    remediation: "Pass a session log <claude-root>/<encoded-cwd>/<session-uuid>.jsonl (`discover claude-code` lists them).",
    details: { reason: "not-a-session-log-name" }
  })

/** A nested subagent file of a session, authorized, with its `meta.json` facts. */
export interface Subagent {
  readonly agentId: string
  readonly file: AuthorizedFile
  readonly sourceId: string
  readonly agentType: string | undefined
  readonly description: string | undefined
  /** `toolUseId` of `meta.json`: the parent's spawning call. */
  readonly toolUseId: string | undefined
  /** What is wrong with its `meta.json` (not JSON, not an object, unreadable), when it is there and not valid. */
  readonly metaProblem?: string | undefined
}

/**
 * A subagent's `agent-<agentId>.meta.json`: its object, and what is wrong
 * with it when it is there but cannot be read or is not a JSON object (its
 * subagent is read all the same, without the facts it would give). None of
 * either when there is no such file (the flat layout has none).
 */
const readMeta = (deps: ClaudeDeps, dir: string, agentId: string, root: string) =>
  Effect.gen(function*() {
    const file = yield* deps.access.authorizeFile(nodePath.join(dir, `agent-${agentId}.meta.json`), [root])
    const bytes = yield* deps.access.readWhole(file, deps.limits.maxRecordBytes)
    const parsed = parseJson(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8"), deps.limits.maxDepth)
    return parsed._tag === "ok" && isRecord(parsed.value)
      ? { meta: parsed.value, problem: undefined }
      : { meta: {} as Record<string, unknown>, problem: parsed._tag === "ok" ? "is not a JSON object" : "is not valid JSON" }
  }).pipe(Effect.catchAll((e): Effect.Effect<{ readonly meta: Record<string, unknown>; readonly problem: string | undefined }> =>
    Effect.succeed({ meta: {}, problem: e._tag === "SourceNotFound" ? undefined : `could not be read (${e.code})` })
  ))

/**
 * The parse warning (a subagent file's, `subagentParseWarnings`) of a
 * subagent whose `agent-<agentId>.meta.json` is there but not valid (not
 * JSON, not an object, unreadable): its events are kept, without the agent
 * type, description and spawning call the file would give.
 */
export const SUBAGENT_META_NOT_VALID = "subagent-meta-not-valid"

const str = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined)

/** Bytes of a flat agent file read to find the session its entries name. */
const FLAT_HEAD_BYTES = 64 * 1024

/** What the head of an agent file says, by path, size and mtime (a project folder's files are read once per change). */
const agentHeads = new Map<string, AgentHead>()

/**
 * What the first 64 KiB of an agent file say: the `sessionId` and the
 * `agentId` its first records name (null when none does), and whether they
 * hold nothing but NUL bytes and white space (`blank`: a 0-byte file, or one
 * zeroed by a crash).
 */
interface AgentHead {
  readonly sessionId: string | null
  readonly agentId: string | null
  readonly blank: boolean
}

const UNREAD_HEAD: AgentHead = { sessionId: null, agentId: null, blank: false }

/** The {@link AgentHead} of an agent file; nothing known when it cannot be read (the scan then says why). */
const agentHeadOf = (access: SourceAccessShape, file: AuthorizedFile): Effect.Effect<AgentHead> => {
  const key = `${file.path}\u0000${file.stat.size}\u0000${file.stat.mtimeMs}`
  const known = agentHeads.get(key)
  if (known !== undefined) return Effect.succeed(known)
  return access.readHead(file, FLAT_HEAD_BYTES).pipe(
    Effect.map(({ bytes }): AgentHead => {
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8")
      let sessionId: string | null = null
      let agentId: string | null = null
      for (const line of text.split("\n")) {
        if (sessionId !== null && agentId !== null) break
        const parsed = parseJson(line, 64)
        if (parsed._tag !== "ok" || !isRecord(parsed.value)) continue
        const v = parsed.value
        if (sessionId === null && typeof v.sessionId === "string" && v.sessionId.length > 0) sessionId = v.sessionId
        if (agentId === null && typeof v.agentId === "string" && v.agentId.length > 0) agentId = v.agentId
      }
      return { sessionId, agentId, blank: file.stat.size <= FLAT_HEAD_BYTES && /^[\s\u0000]*$/.test(text) }
    }),
    Effect.orElseSucceed(() => UNREAD_HEAD),
    Effect.tap((head) =>
      Effect.sync(() => {
        if (agentHeads.size >= 10_000) agentHeads.clear()
        agentHeads.set(key, head)
      })
    )
  )
}

/**
 * The session a flat-layout agent file belongs to: the `sessionId` of its
 * first record that names one, within its first 64 KiB (older Claude Code
 * wrote a subagent's transcript as `<project>/agent-<agentId>.jsonl`, every
 * entry with `isSidechain`, `agentId` and the parent's `sessionId`:
 * jeremedia/claude-code-log-format `source-docs/JSONL_LOGGING.md`, Claude
 * Code 2.0.55). Null when none is found or the file cannot be read.
 */
export const flatOwnerOf = (access: SourceAccessShape, file: AuthorizedFile): Effect.Effect<string | null> =>
  Effect.map(agentHeadOf(access, file), (h) => h.sessionId)

export { SUBAGENT_FILE_EMPTY, SUBAGENT_ID_MISMATCH } from "../../domain/warning-kinds.js"

/** A subagent file left out: its file name, the agent id its name gives, why ({@link SUBAGENT_ID_MISMATCH}, {@link SUBAGENT_FILE_EMPTY}) and what to tell. */
export interface SubagentLeftOut {
  readonly name: string
  readonly agentId: string
  readonly kind: typeof SUBAGENT_ID_MISMATCH | typeof SUBAGENT_FILE_EMPTY
  readonly message: string
}

/** Why an agent file is not its agent's transcript, from its head; undefined when it is (or its head says nothing). */
const leftOutOf = (name: string, agentId: string, head: AgentHead): SubagentLeftOut | undefined =>
  head.blank
    ? { name, agentId, kind: SUBAGENT_FILE_EMPTY, message: `The subagent file ${name} holds nothing (0 bytes, or only NUL bytes and white space): nothing was read from it.` }
    : head.agentId !== null && head.agentId !== agentId
    ? {
      name,
      agentId,
      kind: SUBAGENT_ID_MISMATCH,
      message: `The subagent file ${name} holds the records of agent ${head.agentId}, not ${agentId} (a copy or a renamed file): it was not read, so it takes neither the events nor the usage of agent ${head.agentId}.`
    }
    : undefined

/** The PARSE_WARNING diagnostic of a subagent file left out (`inspect`, and `stream`'s `onWarning` for the import's report). */
const leftOutWarningOf = (l: SubagentLeftOut): Diagnostic => ({
  code: PARSE_WARNING,
  message: l.message,
  details: { kind: l.kind, count: 1, firstLine: null, agentId: l.agentId }
})

/**
 * The entries of a session's nested subagents folder: none, without a
 * listing, when nothing is at its path (one `lstat` that raises no error:
 * most sessions have no subagents, and a failed listing costs a typed error
 * each); else its listing, or the listing's access error.
 */
const nestedEntries = (access: SourceAccessShape, dir: string): Effect.Effect<ReadonlyArray<DirEntry>, SourceAccessError> =>
  Effect.flatMap(
    Effect.orElseSucceed(access.probe(dir), () => Option.some(undefined)),
    (there) => (Option.isNone(there) ? Effect.succeed([]) : access.listDirectory(dir))
  )

/** The flat agent file names of project folders, by folder, with the folder's stat they were listed at. */
const flatListings = new Map<string, { readonly stat: string; readonly names: ReadonlyArray<string> }>()

/**
 * How long after a folder's last change (mtime / ctime, ms) its listing is
 * kept: a file system's clock ticks coarsely (a few ms), so a folder changed
 * within the tick of its listing could keep the same mtime with one more entry.
 */
const SETTLED_MS = 2_000

/**
 * The names of the regular `agent-<agentId>.jsonl` files of a project
 * folder, sorted. Every session of a folder asks (discovery, and the
 * importer's `parts` for each session), so a folder of N sessions would be
 * listed N times, N entries each: the listing is kept by folder and used
 * again while the folder's stat (one `lstat`: mtime, ctime, inode, which an
 * added, removed or renamed entry changes) is the same and older than
 * {@link SETTLED_MS}. None when the folder cannot be listed.
 */
const flatAgentNames = (access: SourceAccessShape, dir: string): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function*() {
    const probed = yield* Effect.orElseSucceed(access.probe(dir), () => Option.none())
    const st = Option.isSome(probed) && probed.value.kind === "directory" ? probed.value.stat : undefined
    const key = st === undefined ? undefined : `${st.mtimeMs}:${st.ctimeMs}:${st.ino}:${st.dev}`
    const kept = flatListings.get(dir)
    if (key !== undefined && kept !== undefined && kept.stat === key) return kept.names
    const entries = yield* Effect.orElseSucceed(access.listDirectory(dir), () => [])
    const names = entries.filter((e) => e.kind === "file" && agentIdOfFile(e.name) !== null).map((e) => e.name).sort()
    if (key !== undefined && Date.now() - Math.max(st!.mtimeMs, st!.ctimeMs) > SETTLED_MS) {
      if (flatListings.size >= 1_000) flatListings.clear()
      flatListings.set(dir, { stat: key, names })
    } else flatListings.delete(dir)
    return names
  })

/**
 * The flat-layout agent files of a session: `agent-<agentId>.jsonl` files in
 * the session's own project folder whose records name the session
 * ({@link flatOwnerOf}), by file name; those whose agent id is in `except`
 * (read from the nested layout) are left out. A symlink or a file that cannot
 * be authorized is left out (with a diagnostic when it names the session).
 */
const flatAgentFiles = (
  access: SourceAccessShape,
  sessionPath: string,
  root: string,
  except: ReadonlySet<string>
): Effect.Effect<ReadonlyArray<{ readonly agentId: string; readonly file: AuthorizedFile; readonly leftOut: SubagentLeftOut | undefined }>> =>
  Effect.gen(function*() {
    const dir = nodePath.dirname(sessionPath)
    const sessionId = sessionIdOfFile(nodePath.basename(sessionPath))
    const names = yield* flatAgentNames(access, dir)
    const out: Array<{ readonly agentId: string; readonly file: AuthorizedFile; readonly leftOut: SubagentLeftOut | undefined }> = []
    for (const name of names) {
      const agentId = agentIdOfFile(name)!
      if (except.has(agentId)) continue
      const file = yield* Effect.either(access.authorizeFile(nodePath.join(dir, name), [root]))
      if (Either.isLeft(file)) continue
      const head = yield* agentHeadOf(access, file.right)
      // A flat file is linked by the session its records name: a blank one names none, so it is no session's.
      if (head.sessionId === sessionId) out.push({ agentId, file: file.right, leftOut: leftOutOf(name, agentId, head) })
    }
    return out
  })

/**
 * A subagent file of `session` as its diagnostics name it: its path under the session's authorized root
 * (`-home-me-app/<session-uuid>/subagents/agent-<id>.jsonl`), so that among many sessions the one meant is known
 * (tester37 F4: only `agent-<id>.jsonl` was named); the path itself when it is not under the root.
 */
const subagentNameOf = (session: AuthorizedFile, path: string): string => {
  const rel = nodePath.relative(session.root, path)
  return rel === "" || rel.startsWith("..") || nodePath.isAbsolute(rel) ? path : rel
}

/**
 * The subagent files of a session, by file name: the nested layout
 * (`<session-uuid>/subagents/agent-*.jsonl`, with `agent-<id>.meta.json`),
 * then the flat layout of older versions (`agent-<agentId>.jsonl` in the
 * project folder, linked by the `sessionId` of its records; an agent id read
 * from the nested layout is not read again). Never fails: a missing folder
 * gives none; a symlink or a file that cannot be authorized is left out with
 * a diagnostic.
 */
export const subagentsOf = (
  deps: ClaudeDeps,
  session: AuthorizedFile
): Effect.Effect<{ readonly subagents: ReadonlyArray<Subagent>; readonly diagnostics: ReadonlyArray<Diagnostic>; readonly leftOut: ReadonlyArray<SubagentLeftOut> }> =>
  Effect.gen(function*() {
    const dir = subagentsDirOf(session.path)
    const entries = yield* Effect.orElseSucceed(nestedEntries(deps.access, dir), () => [])
    const subagents: Array<Subagent> = []
    const diagnostics: Array<Diagnostic> = []
    const leftOut: Array<SubagentLeftOut> = []
    for (const e of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const agentId = agentIdOfFile(e.name)
      if (agentId === null) continue
      const named = subagentNameOf(session, nodePath.join(dir, e.name))
      if (e.kind !== "file") {
        diagnostics.push({
          code: e.kind === "symlink" ? "SYMLINK_SKIPPED" : "NOT_A_FILE",
          message: `The subagent file ${named} is ${e.kind === "symlink" ? "a symlink; it was not followed" : "not a regular file"}.`,
          details: { agentId }
        })
        continue
      }
      const file = yield* Effect.either(deps.access.authorizeFile(nodePath.join(dir, e.name), [session.root]))
      if (Either.isLeft(file)) {
        diagnostics.push({ code: file.left.code, message: `The subagent file ${named}: ${file.left.message}`, details: { agentId } })
        continue
      }
      const out = leftOutOf(e.name, agentId, yield* agentHeadOf(deps.access, file.right))
      if (out !== undefined) {
        leftOut.push(out)
        continue
      }
      const { meta, problem } = yield* readMeta(deps, dir, agentId, session.root)
      subagents.push({
        agentId,
        file: file.right,
        sourceId: sourceIdOf(file.right.path),
        agentType: str(meta.agentType),
        description: str(meta.description),
        toolUseId: str(meta.toolUseId),
        ...(problem !== undefined ? { metaProblem: problem } : {})
      })
    }
    const flat = yield* flatAgentFiles(deps.access, session.path, session.root, new Set(subagents.map((s) => s.agentId)))
    for (const f of flat) {
      if (f.leftOut !== undefined) leftOut.push(f.leftOut)
      else subagents.push({ agentId: f.agentId, file: f.file, sourceId: sourceIdOf(f.file.path), agentType: undefined, description: undefined, toolUseId: undefined })
    }
    return { subagents, diagnostics, leftOut }
  })

/**
 * The subagent files of a session log path, nested and flat (the importer's
 * `parts`, so an append to either makes the session changed; best effort:
 * none when the subagents folder is not there; fails with the access error
 * when it is there but cannot be listed).
 */
export const subagentPaths = (access: SourceAccessShape, sessionPath: string): Effect.Effect<ReadonlyArray<string>, SourceAccessError> =>
  Effect.gen(function*() {
    const dir = subagentsDirOf(sessionPath)
    const nested = yield* nestedEntries(access, dir).pipe(
      Effect.map((entries) => entries.filter((e) => e.kind === "file" && agentIdOfFile(e.name) !== null).map((e) => e.name)),
      // A folder that cannot be listed (permission, I/O error) is not an empty one: the importer must not take its files as gone.
      Effect.catchAll((e) => (unreadableOf(e) !== undefined ? Effect.fail(e) : Effect.succeed<Array<string>>([])))
    )
    const except = new Set(nested.map((n) => agentIdOfFile(n)!))
    const flat = yield* flatAgentFiles(access, sessionPath, nodePath.dirname(sessionPath), except)
    return [...nested.map((n) => nodePath.join(dir, n)).sort(), ...flat.map((f) => f.file.path)]
  })

/**
 * Run `onLine` over every line of an authorized file (classified, with its
 * text), in order. Read to its end (no `until`), the file must not end
 * before the larger of its size when authorized and when opened: a file that
 * shrank (truncated or rewritten in place) fails `MalformedSource` (`what`
 * names it), so no summary is made of two versions of it.
 */
const eachLine = (
  deps: ClaudeDeps,
  file: AuthorizedFile,
  onLine: (c: Classified, line: Line, text: string) => void,
  until?: number,
  what = "The session file",
  screen?: RepeatScreen
): Effect.Effect<void, SourceAccessError | MalformedSource> =>
  Effect.scoped(
    Effect.gen(function*() {
      const src = yield* deps.access.open(file)
      const sizeAtOpen = Math.max(file.stat.size, (yield* src.stat).size)
      let reached = 0
      let lines: Stream.Stream<Line, SourceAccessError | MalformedSource> = readLines(src, {
        maxLineBytes: deps.limits.maxRecordBytes,
        onRead: (offset, bytes) => {
          reached = Math.max(reached, offset + bytes.length)
        }
      })
      if (until !== undefined) lines = Stream.takeWhile(lines, (l) => l.start < until)
      else lines = failIfShrank(lines, sizeAtOpen, () => reached, what, Effect.map(src.stat, (s) => s.size))
      if (screen === undefined) {
        return yield* Stream.runForEachChunk(lines, (chunk) =>
          Effect.sync(() => {
            for (const line of chunk) {
              const text = textOf(line)
              onLine(classify(deps, line, line.lineNumber, text), line, text)
            }
          }))
      }
      // One record per uuid: a repeat as it is is read as a line that yields nothing.
      yield* Stream.runForEachChunk(lines, (chunk) =>
        screen.each(
          Chunk.toReadonlyArray(chunk),
          (line) => {
            const text = textOf(line)
            return { c: classify(deps, line, line.lineNumber, text), line, text }
          },
          (t) => t.c,
          (t) => t.line.lineNumber,
          (t, repeat) => onLine(repeat ? repeatLine(t.c) : t.c, t.line, t.text),
          src.read
        ))
    })
  )

/** A session's scan, with what it was read from. */
export interface ScannedSession {
  readonly file: AuthorizedFile
  readonly sourceId: string
  readonly sessionId: string
  readonly scan: SessionScan
  readonly subagents: ReadonlyArray<Subagent>
  /** The subagent files not read (a copy of another agent's, an empty one): counted among the subagent warnings. */
  readonly leftOut: ReadonlyArray<SubagentLeftOut>
  readonly diagnostics: ReadonlyArray<Diagnostic>
  /** With `countNumbers`: the `NUMBER_NOT_EXACT` diagnostic of each file that has inexact numbers (session file first); else none. */
  readonly numbers: ReadonlyArray<Diagnostic>
  /** The session file's repeated records skipped and uuids reused (one record per uuid, `RepeatScreen`). */
  readonly repeats: RepeatCounts
  /** `REPEATED_RECORDS_SKIPPED` / `RECORD_UUID_REUSED` of each file that has any (session file first). */
  readonly repeatDiagnostics: ReadonlyArray<Diagnostic>
}

/**
 * Count, in `tally`, the numbers of a line that yields events that its
 * events do not carry exactly (lines that yield none are not counted).
 */
const countInexact = (tally: InexactTally, text: string, lineNumber: number, offset: number): void =>
  tally.add(inexactNumbers(text), lineNumber, offset)

/**
 * Scan a session: its file, then its nested subagent files; with
 * `countNumbers`, also each file's numbers its events do not carry exactly
 * (`numbers`). Fails only with access errors of the session file, or
 * `MalformedSource` when it shrank while it was read (a subagent file that
 * did is one of `diagnostics`).
 */
export const scanSession = (
  deps: ClaudeDeps,
  file: AuthorizedFile,
  countNumbers = false
): Effect.Effect<ScannedSession, SourceAccessError | MalformedSource> =>
  Effect.gen(function*() {
    const scan = new SessionScan(sessionIdOfFile(nodePath.basename(file.path)))
    const numbers: Array<Diagnostic> = []
    const repeats: Array<Diagnostic> = []
    const scanFile = (f: AuthorizedFile, part: Part, label: string, screen = new RepeatScreen()) => {
      const tally = countNumbers ? new InexactTally() : undefined
      return eachLine(deps, f, (c, line, text) => {
        scan.push(c, part, line.lineNumber, line.terminated, !line.oversized && !isValidUtf8(line.bytes))
        if (tally !== undefined && eventCountOf(c) > 0) countInexact(tally, text, line.lineNumber, line.start)
      }, undefined, part === MAIN ? "The session file" : "The subagent file", screen).pipe(Effect.tap(() => {
        const d = tally?.diagnostic(label)
        if (d !== undefined) numbers.push(d)
        repeats.push(...repeatDiagnostics(screen.counts, label))
      }))
    }
    const mainScreen = new RepeatScreen()
    yield* scanFile(file, MAIN, sessionFileLabel(file), mainScreen)
    const { diagnostics, leftOut, subagents } = yield* subagentsOf(deps, file)
    const problems = [...diagnostics]
    for (const l of leftOut) scan.subagentWarnings.add(l.kind, null)
    for (const s of subagents) {
      if (s.metaProblem !== undefined) scan.subagentWarnings.add(SUBAGENT_META_NOT_VALID, null)
      const read = yield* Effect.either(scanFile(s.file, { _tag: "subagent", agentId: s.agentId }, subagentFileLabel(s)))
      if (Either.isLeft(read)) {
        problems.push(skipDiagnosticOf(read.left, `The subagent file ${subagentNameOf(file, s.file.path)}: ${read.left.message}`, { agentId: s.agentId }))
      }
    }
    return {
      file,
      sourceId: sourceIdOf(file.path),
      sessionId: sessionIdOfFile(nodePath.basename(file.path)),
      scan,
      subagents,
      leftOut,
      diagnostics: problems,
      numbers,
      repeats: mainScreen.counts,
      repeatDiagnostics: repeats
    }
  })

/** Cursor extras: the running event position (`n`) of the event the cursor follows. */
const positionOf = (state: CursorState): number | undefined =>
  isRecord(state.x) && typeof state.x.n === "number" && Number.isSafeInteger(state.x.n) && state.x.n >= 0 ? state.x.n : undefined

/** How a file's lines become events: the session and parent of each entry. */
type Placement = (c: Classified, lineNumber: number) => { readonly sessionId: string; readonly parent: ParentRef | null }

/**
 * The events of one file, from the start or right after a cursor's event.
 * The cursor is checked by the JSONL kit's one resume rule
 * (`src/layers/jsonl/resume.ts`): its line `[ls, off)` must still match its
 * check (`h`, bound to `seq` = line and `sub` = the event's index in it) and
 * the file's head its head binding (`hd`), else `InvalidCursor`. The line is
 * read again and its events up to the cursor's are left out; when the
 * cursor's line had no `\n` and bytes were appended to it since (no `\n`
 * between), those bytes are read on their own, as the rest of that line.
 * `numbers`: where the file's `NUMBER_NOT_EXACT` goes once its events ended
 * without failing (counted over the lines whose events it emits), named by
 * `label`; absent, nothing is counted.
 */
const fileEvents = (
  deps: ClaudeDeps,
  file: AuthorizedFile,
  sourceId: string,
  place: Placement,
  resume: CursorState | undefined,
  onRead: ((read: SourceRead) => void) | undefined,
  beforeResume?: ((c: Classified, lineNumber: number) => void) | undefined,
  numbers?: { readonly onWarning: (d: Diagnostic) => void; readonly label: string } | undefined,
  onLineWarning?: ((kind: string, lineNumber: number) => void) | undefined
): Stream.Stream<SessionEvent, IngestError> =>
  Stream.unwrapScoped(
    Effect.gen(function*() {
      const src = yield* openJsonl(deps.access, file, {
        sourceId,
        binding: SESSION_BINDING,
        maxRecordBytes: deps.limits.maxRecordBytes,
        what: "The session file"
      })
      let from = 0
      let lineBase = 0
      let skipThrough = -1
      let sequence = 0
      const screen = new RepeatScreen()
      if (resume !== undefined) {
        const at = yield* src.resume(resume)
        const n = positionOf(resume)
        const sub = at.sub ?? 0
        if (n === undefined || n < sub) return yield* cursorSourceChanged("the cursor names no event position")
        // Each event before the cursor's place came from bytes before its line's end: a position past that is an
        // edited token (the check binds the line, `seq` and `sub`, not `x`), never a place to number events from.
        if (n > at.off) return yield* cursorSourceChanged("the cursor's event position is past its place in the file")
        // The lines before the cursor's are read again: for the uuids the records after it are checked against, and the chain.
        yield* eachLine(deps, file, (c, line) => beforeResume?.(c, line.lineNumber), at.ls, "The session file", screen)
        if (beforeResume !== undefined) {
          if (at.continues) {
            // The cursor's line as it was when the cursor was printed (it has grown since).
            const bytes = Buffer.from(yield* src.open.read(at.ls, at.off - at.ls))
            const line: Line = { start: at.ls, end: at.off, lineNumber: at.seq, bytes, terminated: false, oversized: false }
            beforeResume(classify(deps, line, at.seq), at.seq)
          }
        }
        from = at.continues ? at.next : at.ls
        lineBase = at.seq - 1
        skipThrough = at.continues ? -1 : sub
        sequence = at.continues ? n + 1 : n - sub
      }
      const tally = numbers !== undefined ? new InexactTally() : undefined
      // Lines of zeroed bytes (a power loss's zeroed tail or block): said once, after the events.
      const zeroed = numbers !== undefined ? new ZeroedLines() : undefined
      const read = src.open.read
      const events = src.lines(from, onRead).pipe(
        Stream.mapChunksEffect((chunk) => {
          const out: Array<SessionEvent> = []
          return Effect.map(
            screen.each(
              Chunk.toReadonlyArray(chunk),
              (line) => {
                const lineNumber = lineBase + line.lineNumber
                const text = textOf(line)
                return { c: classify(deps, line, lineNumber, text), line, lineNumber, text }
              },
              (t) => t.c,
              (t) => t.lineNumber,
              (t, repeat) => {
                if (onLineWarning !== undefined) warnLine(repeat ? repeatLine(t.c) : t.c, t.line, t.lineNumber, t.text)
                // One record per uuid: a repeat as it is yields nothing (its line is not numbered again).
                if (!repeat) eventsOfLine(t.c, t.line, t.lineNumber, t.text, out)
              },
              read
            ),
            () => Chunk.unsafeFromArray(out)
          )
        })
      )
      /** The parse warnings of one line to `onLineWarning`, as the scan counts them (`SessionScan.push`, a repeat as `repeatLine`). */
      function warnLine(c: Classified, line: Line, lineNumber: number, text: string): void {
        if (c._tag === "Blank") return
        // Bytes not valid UTF-8 always decode with a U+FFFD in the text: only such a line is checked.
        const invalidUtf8 = !line.oversized && text.includes("\uFFFD") && !isValidUtf8(line.bytes)
        for (const kind of lineWarningKinds(c, invalidUtf8)) onLineWarning!(kind, lineNumber)
      }
      /** The events of one line (none for a line that is no entry), into `out`. */
      function eventsOfLine(c: Classified, line: Line, lineNumber: number, text: string, out: Array<SessionEvent>): void {
        if (c._tag !== "Entry") {
          if (zeroed !== undefined && c._tag === "LineWarning" && c.kind === ZEROED_BYTES) zeroed.add(lineNumber)
          return
        }
        const { parent, sessionId } = place(c, lineNumber)
        const events = eventsOf(c, {
          sourceId,
          sessionId,
          parent,
          lineNumber,
          offset: line.start,
          firstSequence: sequence,
          cursor: (k, s) => src.cursor(line, lineNumber, k, { n: s })
        })
        sequence += events.length
        const skip = line.lineNumber === 1 && skipThrough >= 0 ? skipThrough + 1 : 0
        for (let k = skip; k < events.length; k++) out.push(events[k])
        if (tally !== undefined && events.length > skip) countInexact(tally, text, lineNumber, line.start)
      }
      if (tally === undefined || zeroed === undefined || numbers === undefined) return events
      return Stream.concat(
        events,
        Stream.execute(Effect.sync(() => {
          const d = tally.diagnostic(numbers.label)
          if (d !== undefined) numbers.onWarning(d)
          const z = zeroed.diagnostic(numbers.label)
          if (z !== undefined) numbers.onWarning(z)
          for (const r of repeatDiagnostics(screen.counts, numbers.label)) numbers.onWarning(r)
        }))
      )
    })
  )

/** The placement of a session file's lines: main chain in the session, inline sidechains in their own sessions. */
const mainPlacement = (chain: ChainState, sessionId: string, sourceId: string): Placement => (c, lineNumber) => {
  if (c._tag !== "Entry") return { sessionId, parent: null }
  const root = chain.push(c, lineNumber)
  if (root === null) return { sessionId, parent: null }
  return {
    sessionId: sidechainSessionId(root),
    parent: { sessionId, sourceId, toolCallId: chain.callOf(root), sidechainRoot: root }
  }
}

const subagentPlacement = (chain: ChainState, sessionId: string, sourceId: string, s: Subagent): Placement => () => ({
  sessionId: subagentSessionId(s.agentId),
  parent: {
    sessionId,
    sourceId,
    toolCallId: s.toolUseId ?? chain.agentCalls.get(s.agentId) ?? null,
    agentId: s.agentId,
    ...(s.agentType !== undefined ? { agentType: s.agentType } : {}),
    ...(s.description !== undefined ? { description: s.description } : {})
  }
})

const otherSource = () =>
  new InvalidCursor({
    message: "The cursor belongs to another source.",
    remediation: "Pass a cursor printed by `stream` for this same source (with --include-subagents for a subagent's), or stream without --cursor to start over."
  })

/**
 * `stream` of a session: the session file's events in file order (main
 * chain, and inline sidechains as their own sessions), then, with
 * `includeSubagents`, each nested subagent file's (by file name; its own
 * source id; session `agent-<agentId>`; the parent's session, source and
 * spawning call under native `parent`). A cursor resumes right after its
 * event, in the session file or (with `includeSubagents`) in a subagent file;
 * the subagent files after a session-file cursor are streamed from their
 * start. Fails with the access errors or `InvalidCursor`.
 */
export const streamSession = (
  deps: ClaudeDeps,
  locator: Locator,
  options: StreamOptions = {}
): Stream.Stream<SessionEvent, IngestError> =>
  Stream.unwrap(
    Effect.gen(function*() {
      const file = yield* authorizeSession(deps, locator)
      const sourceId = sourceIdOf(file.path)
      const sessionId = sessionIdOfFile(nodePath.basename(file.path))
      const state = options.cursor !== undefined ? yield* peekCursor(options.cursor) : undefined
      const chain = new ChainState()
      const place = mainPlacement(chain, sessionId, sourceId)
      const onRead = options.onRead
      const onWarning = options.onWarning
      const numbers = (label: string) => (onWarning !== undefined ? { onWarning, label } : undefined)
      const subagentStreams = (list: ReadonlyArray<Subagent>, first: CursorState | undefined) =>
        Stream.flatMap(
          Stream.fromIterable(list.map((s, i) => [s, i] as const)),
          ([s, i]) =>
            fileEvents(
              deps,
              s.file,
              s.sourceId,
              subagentPlacement(chain, sessionId, sourceId, s),
              i === 0 ? first : undefined,
              onRead,
              undefined,
              numbers(subagentFileLabel(s))
            ),
          { concurrency: 1 }
        )
      const listed = Effect.map(subagentsOf(deps, file), (r) => {
        for (const d of r.diagnostics) options.onDiagnostic?.(d)
        // A malformed agent-<id>.meta.json: its subagent's events are kept; told as a parse warning (the import's report).
        for (const a of r.subagents) if (a.metaProblem !== undefined) onWarning?.(metaWarningOf(a))
        for (const l of r.leftOut) onWarning?.(leftOutWarningOf(l))
        return r.subagents
      })
      if (state === undefined || cursorIsFor(state, sourceId)) {
        const own = fileEvents(deps, file, sourceId, place, state, onRead, (c, n) => {
          if (c._tag === "Entry") chain.push(c, n)
        }, numbers(sessionFileLabel(file)), options.onLineWarning)
        if (options.includeSubagents !== true) return own
        return Stream.concat(own, Stream.unwrap(Effect.map(listed, (list) => subagentStreams(list, undefined))))
      }
      if (options.includeSubagents !== true) return yield* otherSource()
      const list = yield* listed
      const at = list.findIndex((s) => cursorIsFor(state, s.sourceId))
      if (at < 0) return yield* otherSource()
      // The parent's calls, for the subagents' links: the whole session file (its repeats skipped, as streamed), nothing emitted.
      yield* eachLine(deps, file, (c, line) => {
        if (c._tag === "Entry") chain.push(c, line.lineNumber)
      }, undefined, "The session file", new RepeatScreen())
      return subagentStreams(list.slice(at), state)
    })
  )

/**
 * What discovery and the index keep about a session (its summary): title,
 * cwd (as `cwd`, the index's workspace), git branch, version, model, times,
 * counts, token totals (each response once) and parse warnings.
 */
export const summaryOf = (s: ScannedSession): Record<string, unknown> => {
  const scan = s.scan
  const tokens = scan.tokens
  return {
    provider: PROVIDER,
    sessionId: s.sessionId,
    locator: s.file.path,
    title: scan.title,
    titleFrom: scan.titleFrom,
    firstPrompt: scan.firstPrompt,
    cwd: scan.cwd,
    gitBranch: scan.gitBranch,
    version: scan.version,
    slug: scan.slug,
    model: scan.model,
    subagentModels: [...scan.subagentModels],
    startedAt: scan.startedAt,
    updatedAt: scan.endedAt ?? new Date(s.file.stat.mtimeMs).toISOString(),
    updatedAtFrom: scan.endedAt !== null ? "last-record" : "file-mtime",
    promptCount: scan.promptCount,
    toolCallCount: scan.toolCallCount,
    toolCalls: { ...scan.toolCalls },
    toolErrorCount: scan.toolErrorCount,
    compactionCount: scan.compactionCount,
    subagentCount: s.subagents.length,
    subagents: s.subagents.map((a) => ({
      agentId: a.agentId,
      sessionId: subagentSessionId(a.agentId),
      agentType: a.agentType ?? null,
      description: a.description ?? null,
      toolUseId: a.toolUseId ?? null
    })),
    sidechainLines: scan.sidechainLines,
    tokens: tokens.total,
    tokensByPart: { main: tokens.main, sidechain: tokens.sidechain, subagents: tokens.subagents },
    sizeBytes: s.file.stat.size,
    lineCount: scan.lineCount,
    parseWarningCount: scan.lineWarnings.total,
    parseWarnings: scan.parseWarnings,
    diagnostics: extraDiagnostics(s)
  }
}

const text = (v: unknown): string | null | undefined => (v === null || typeof v === "string" ? v : undefined)
const count = (v: unknown): number | undefined => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : undefined)

/**
 * What discovery knows of a project folder from its one listing, for the
 * sessions in it it may list unread ({@link keptSourceProbed}).
 */
export interface FolderListing {
  /** The names of the folder's entries: a session's `<session-uuid>` folder is looked into only when it is one of them. */
  readonly names: ReadonlySet<string>
  /** Whether a regular `agent-*.jsonl` file (a flat subagent file of some session) is among them. */
  readonly flatAgents: boolean
}

/** The {@link FolderListing} of a project folder's entries. */
export const folderListingOf = (entries: ReadonlyArray<DirEntry>): FolderListing => ({
  names: new Set(entries.map((e) => e.name)),
  flatAgents: entries.some((e) => e.kind === "file" && agentIdOfFile(e.name) !== null)
})

/** The source made of a kept summary, when it is one a scan made of a session without subagents or sidechains. */
const fromSummary = (path: string, s: Record<string, unknown>, stat: AuthorizedFile["stat"]): DiscoveredSource | undefined => {
  const sessionId = sessionIdOfFile(nodePath.basename(path))
  const title = text(s.title), cwd = text(s.cwd), startedAt = text(s.startedAt), updatedAt = text(s.updatedAt), model = text(s.model)
  const prompts = count(s.promptCount), toolCalls = count(s.toolCallCount), lines = count(s.lineCount)
  if (
    s.provider !== PROVIDER || s.sessionId !== sessionId || s.locator !== path || s.subagentCount !== 0 || s.sidechainLines !== 0 ||
    title === undefined || cwd === undefined || startedAt === undefined || typeof updatedAt !== "string" || model === undefined ||
    prompts === undefined || toolCalls === undefined || lines === undefined ||
    !Array.isArray(s.parseWarnings) || !Array.isArray(s.diagnostics) || s.diagnostics.length > 0
  ) return undefined
  const overview: SourceSummary = {
    sessionId,
    title,
    workspace: cwd,
    firstActivityAt: startedAt,
    // The summary's `updatedAt` falls back to the file's mtime (labelled `updatedAtFrom`); the last activity does not.
    lastActivityAt: s.updatedAtFrom === "file-mtime" ? null : updatedAt,
    model,
    counts: { prompts, toolCalls, runs: null, lines },
    parseWarnings: s.parseWarnings as SourceSummary["parseWarnings"],
    diagnostics: []
  }
  // Its subagents looked for just now (below): none, so the importer need not list them again.
  return new KeptSession(path, sessionId, overview, s, stat, [])
}

/**
 * A session listed again from what the index kept ({@link fromSummary},
 * {@link fromKeptOverview}). A class, not a literal with getters (one per
 * unchanged session of every import): its source id is made when first read
 * (an import of unchanged sessions never reads it: a sha256 per session
 * saved), and its summary is `known`'s (or the kept one), read only when
 * asked for.
 */
class KeptSession implements DiscoveredSource {
  readonly provider = PROVIDER
  readonly locator: Locator
  #sourceId: string | undefined
  readonly #summary: Record<string, unknown> | KnownSummary
  constructor(
    path: string,
    readonly sessionId: string,
    readonly overview: SourceSummary,
    summary: Record<string, unknown> | KnownSummary,
    readonly stat: AuthorizedFile["stat"],
    readonly parts: ReadonlyArray<string>,
    /** The fingerprint of `stat` and the parts' stats that selected it (`DiscoveredSource.fingerprint`; not serialized). */
    readonly fingerprint?: string | undefined
  ) {
    this.locator = { locatorClass: LOCATOR_CLASS, path, sessionId }
    this.#summary = summary
  }
  get sourceId(): string {
    return this.#sourceId ??= sourceIdOf(this.locator.path)
  }
  get summary(): Record<string, unknown> {
    const s = this.#summary
    return s instanceof KnownSummary ? s.known.summary : s
  }
  /** As a plain source serializes (the getters' values included). */
  toJSON(): DiscoveredSource {
    const { provider, sourceId, locator, sessionId, overview, summary, stat, parts } = this
    return { provider, sourceId, locator, sessionId, overview, summary, stat, parts }
  }
}

/** A summary to read from `known` when asked for (see {@link KeptSession}). */
class KnownSummary {
  constructor(readonly known: KnownSource) {}
}

/**
 * The source made of the overview the index kept (`known.overview`: what a
 * scan of the file gave when it was imported, the titles of its inline
 * sidechain sessions included), when it is one of this session; its summary
 * is `known`'s, read only when asked for.
 */
const fromKeptOverview = (
  path: string,
  known: KnownSource,
  overview: SourceSummary,
  stat: AuthorizedFile["stat"],
  parts: ReadonlyArray<string> = [],
  fingerprint?: string
): DiscoveredSource | undefined => {
  const sessionId = sessionIdOfFile(nodePath.basename(path))
  if (
    overview.sessionId !== sessionId || (overview.lastActivityAt !== null && typeof overview.lastActivityAt !== "string") ||
    !Array.isArray(overview.parseWarnings)
  ) return undefined
  return new KeptSession(path, sessionId, overview, new KnownSummary(known), stat, parts, fingerprint)
}

/**
 * A session discovery lists again without reading it: the one the importer
 * holds (`known`, from its checkpoint: the fingerprint, summary and kept
 * overview of the file when it was imported) when the file's `lstat` now
 * makes the same fingerprint (size, mtime, inode, birth and change times: it
 * was not written since; a fingerprint with nested logs (`+part:`) never
 * is) and the session has no subagent file, nested (any entry of
 * `<session-uuid>/subagents/` named `agent-*.jsonl`, a symlink too: it is
 * reported) or flat: its summary is `known`'s, its overview the kept one
 * (what the scan gave then, the titles of inline sidechain sessions
 * included), its `parts` none. Without a kept overview (an index that keeps
 * none), the overview is made of the summary as {@link overviewOf} makes it
 * of a scan, and only a session without inline sidechains is kept (their
 * titles are not in the summary). Undefined when any of that does not hold
 * (the session is authorized and scanned).
 *
 * `path` is `<real root>/<project>/<name>` as discovery listed it (a folder
 * and a regular file, no symlink), so it is its own real path: no
 * authorization walk. The one `lstat` is the file's: a regular file with
 * the fingerprint's device and inode is the file imported (and authorized)
 * then, whatever happened on the way since; it is not read. The subagent
 * folder is looked into only when the project folder's listing (`folder`)
 * has an entry named for the session, and the flat agent files only when
 * it has one (their owners are kept by file stat, {@link flatOwnerOf}).
 *
 * `probed` is that `lstat` as `SourceAccess.probe` answered it, or its error
 * (discovery takes a project folder's held logs in one pass, `probeAll`).
 * Answers in plain code when nothing else is to be looked at (the common
 * case: no subagent file anywhere near the session); else the effect that
 * looks (its subagents folder, the flat agent files, the parts).
 */
export const keptSourceProbed = (
  deps: ClaudeDeps,
  path: string,
  root: string,
  known: KnownSource,
  folder: FolderListing,
  probed: Either.Either<Option.Option<{ readonly kind: DirEntry["kind"]; readonly stat: AuthorizedFile["stat"] }>, unknown>
): DiscoveredSource | undefined | Effect.Effect<DiscoveredSource | undefined> => {
  if (Either.isLeft(probed)) return undefined
  const found = probed.right
  if (Option.isNone(found) || found.value.kind !== "file") return undefined
  const own = fingerprintOfStat(found.value.stat)
  if (known.fingerprint !== own) {
    return known.fingerprint.startsWith(`${own}+part:`) ? keptWithParts(deps, path, root, known, own, found.value.stat) : undefined
  }
  // The fingerprint is the file's alone (no `+part:`): no subagent file was read with it when it was imported.
  const overview = known.overview
  const kept = overview !== undefined ? fromKeptOverview(path, known, overview, found.value.stat) : fromSummary(path, known.summary, found.value.stat)
  if (kept === undefined) return undefined
  const ownFolder = folder.names.has(kept.sessionId!)
  if (!ownFolder && !folder.flatAgents) return kept
  return Effect.gen(function*() {
    if (ownFolder) {
      const nested = yield* Effect.either(nestedEntries(deps.access, subagentsDirOf(path)))
      if (Either.isRight(nested) ? nested.right.some((e) => agentIdOfFile(e.name) !== null) : nested.left._tag !== "SourceNotFound") return undefined
    }
    if (folder.flatAgents && (yield* flatAgentFiles(deps.access, path, root, new Set())).length > 0) return undefined
    return kept
  })
}

/**
 * {@link keptSourceProbed} of a session imported with subagent files (its
 * fingerprint has `+part:` entries): kept when its log's own stat is the
 * fingerprint's and its subagent files are the same files, unchanged: the
 * nested ones (`<session-uuid>/subagents/agent-*.jsonl`, every one a regular
 * file: a symlink or a folder there is left to a scan, which reports it) and
 * the flat ones it owns, listed as the importer lists its parts
 * ({@link subagentPaths}), each stat-ed (one `lstat`), make the fingerprint
 * the index holds. A subagent file appended, added, removed or replaced
 * changes it. The parts are handed to the importer (not listed again).
 * Only with a kept overview (the summary alone does not describe subagents).
 */
const keptWithParts = (
  deps: ClaudeDeps,
  path: string,
  root: string,
  known: KnownSource,
  own: string,
  stat: AuthorizedFile["stat"]
): Effect.Effect<DiscoveredSource | undefined> =>
  Effect.gen(function*() {
    if (known.overview === undefined) return undefined
    const dir = subagentsDirOf(path)
    const nested = yield* Effect.either(nestedEntries(deps.access, dir))
    if (Either.isLeft(nested)) return undefined
    const agents = nested.right.filter((e) => agentIdOfFile(e.name) !== null)
    if (agents.some((e) => e.kind !== "file")) return undefined
    const names = agents.map((e) => e.name).sort()
    const flat = yield* flatAgentFiles(deps.access, path, root, new Set(names.map((n) => agentIdOfFile(n)!)))
    const parts = [...names.map((n) => nodePath.join(dir, n)), ...flat.map((f) => f.file.path)]
    let fingerprint = own
    // Every part's `lstat` in one pass (one effect for them all).
    const probes = yield* deps.access.probeAll(parts)
    for (let i = 0; i < parts.length; i++) {
      const probed = probes[i]
      if (Either.isLeft(probed) || Option.isNone(probed.right) || probed.right.value.kind !== "file") return undefined
      fingerprint += partEntry(parts[i], fingerprintOfStat(probed.right.value.stat))
    }
    // The fingerprint made of these stats goes with the source: the importer does not stat the parts again.
    return fingerprint === known.fingerprint ? fromKeptOverview(path, known, known.overview, stat, parts, fingerprint) : undefined
  })

/**
 * The typed summary of a session (contract 1.1.0): title, `cwd` as the
 * workspace, first record to last (null when no record is dated: a file's
 * mtime is no event time, and `sessions` shows none then either), model,
 * prompts, tool calls, lines and warnings.
 */
export const overviewOf = (s: ScannedSession): SourceSummary => {
  const scan = s.scan
  return {
    sessionId: s.sessionId,
    title: scan.title,
    workspace: scan.cwd,
    firstActivityAt: scan.startedAt,
    lastActivityAt: scan.endedAt,
    model: scan.model,
    counts: { prompts: scan.promptCount, toolCalls: scan.toolCallCount, runs: null, lines: scan.lineCount },
    parseWarnings: scan.parseWarnings,
    diagnostics: extraDiagnostics(s),
    ...sessionTitlesOf(s)
  }
}

/**
 * The titles of a session's subagent sessions (see `SessionScan.subagentTitle`) and inline sidechain
 * sessions (`SessionScan.sidechainTitles`), when it has any.
 */
const sessionTitlesOf = (s: ScannedSession): { readonly sessionTitles?: Record<string, string> } => {
  const titles: Record<string, string> = {}
  for (const a of s.subagents) {
    const t = s.scan.subagentTitle(a.agentId, a.toolUseId)
    if (t !== null) titles[subagentSessionId(a.agentId)] = t
  }
  for (const [root, t] of s.scan.sidechainTitles()) titles[sidechainSessionId(root)] = t
  return Object.keys(titles).length > 0 ? { sessionTitles: titles } : {}
}

/**
 * What a transcript counts besides its orphan results: lines skipped in
 * subagent files; the session file's records repeated as they are, skipped
 * (`repeated-records-skipped`), and records kept under a uuid an earlier one
 * has (`record-uuid-reused`, `firstLine` the first such line).
 */
const extraDiagnostics = (s: ScannedSession): Array<TranscriptDiagnostic> => [
  ...(s.scan.subagentWarnings.total > 0
    ? [{ kind: "subagent-parse-warnings", count: s.scan.subagentWarnings.total, firstLine: null }]
    : []),
  ...(s.repeats.repeated > 0 ? [{ kind: "repeated-records-skipped", count: s.repeats.repeated, firstLine: null }] : []),
  ...(s.repeats.reused > 0
    ? [{ kind: "record-uuid-reused", count: s.repeats.reused, firstLine: s.repeats.firstReuse?.lineNumber ?? null }]
    : [])
]

/**
 * The transcript of a session's main chain (inline sidechains and subagents
 * are sessions of their own): built from its events exactly as `show` builds
 * it from the index (`transcriptFromEvents`), titled and timed by the scan,
 * with the main file's parse warnings. Fails with the access errors or
 * `ResourceLimitExceeded` when the file passes `maxDocumentBytes`.
 */
export const transcriptOf = (deps: ClaudeDeps, locator: Locator): Effect.Effect<Transcript, IngestError> =>
  Effect.gen(function*() {
    const file = yield* authorizeSession(deps, locator)
    if (file.stat.size > deps.limits.maxDocumentBytes) {
      return yield* new ResourceLimitExceeded({
        message: `The session file is ${file.stat.size} bytes; a transcript holds the whole conversation in memory, and the limit is ${deps.limits.maxDocumentBytes} (maxDocumentBytes).`,
        remediation: `Use \`stream\` for its events (any size, a step at a time). ${raiseLimitRemedy("maxDocumentBytes", "if the memory is there.")}`,
        details: { limit: "maxDocumentBytes", max: deps.limits.maxDocumentBytes, size: file.stat.size }
      })
    }
    const scanned = yield* scanSession(deps, file)
    const events = Chunk.toArray(yield* Stream.runCollect(streamSession(deps, locator)))
    const t = transcriptFromEvents({
      sessionId: scanned.sessionId,
      title: scanned.scan.title,
      model: scanned.scan.model,
      startedAt: scanned.scan.startedAt
    }, events.filter((e) => e.sessionId === scanned.sessionId))
    return { ...t, parseWarnings: scanned.scan.parseWarnings, diagnostics: [...t.diagnostics, ...extraDiagnostics(scanned)] }
  })

/**
 * The parse warning (a `PARSE_WARNING` diagnostic, `details` `{kind:
 * "subagent-meta-not-valid", count: 1, firstLine: null, agentId}`) of a
 * subagent whose `agent-<id>.meta.json` is not valid: `inspect` gives it, and
 * `stream` hands it to `onWarning` (the import's report lists it).
 */
const metaWarningOf = (a: Subagent): Diagnostic => ({
  code: PARSE_WARNING,
  message: `The subagent's agent-${a.agentId}.meta.json ${a.metaProblem}: its events are kept, without the agent type, description and spawning call it would give.`,
  details: { kind: SUBAGENT_META_NOT_VALID, count: 1, firstLine: null, agentId: a.agentId }
})

/**
 * `inspect` of a session: identity, the session with its counts, the events
 * `stream` yields from the file (without subagents), first / last times,
 * parse warnings as diagnostics, and a `NUMBER_NOT_EXACT` per file (the
 * session file, each subagent file) whose events' lines hold numbers they do
 * not carry exactly. `provisional` when the last line has no
 * `\n`, else `complete`. Fails with the access errors.
 */
export const inspectSession = (deps: ClaudeDeps, locator: Locator): Effect.Effect<Inspection, IngestError> =>
  Effect.gen(function*() {
    const file = yield* authorizeSession(deps, locator)
    const s = yield* scanSession(deps, file, true)
    const scan = s.scan
    const warnings = scan.parseWarnings
    const summary = summaryOf(s)
    return {
      provider: PROVIDER,
      locatorClass: LOCATOR_CLASS,
      sourceId: s.sourceId,
      locator: redactLocator(s.sourceId, file.path),
      status: scan.lastLineUnterminated ? "provisional" : "complete",
      sessions: [{
        sessionId: s.sessionId,
        promptCount: scan.promptCount,
        toolCallCount: scan.toolCallCount,
        toolCalls: summary.toolCalls,
        toolErrorCount: scan.toolErrorCount,
        compactionCount: scan.compactionCount,
        subagentCount: s.subagents.length,
        tokens: summary.tokens
      }],
      eventCount: scan.eventCount,
      firstEventAt: scan.startedAt,
      lastEventAt: scan.endedAt,
      diagnostics: [
        ...warnings.map((w) => ({
          code: PARSE_WARNING,
          message: parseWarningMessage(w),
          details: { kind: w.kind, count: w.count, firstLine: w.firstLine }
        })),
        ...s.subagents.flatMap((a) => a.metaProblem === undefined ? [] : [metaWarningOf(a)]),
        ...s.leftOut.map(leftOutWarningOf),
        ...s.diagnostics,
        ...s.numbers,
        ...s.repeatDiagnostics,
        ...(scan.lastLineUnterminated ? [{ code: "UNTERMINATED_LAST_LINE", message: "The last line has no newline; the file may still be written." }] : [])
      ],
      provenance: {
        sizeBytes: file.stat.size,
        lineCount: scan.lineCount,
        subagentEventCount: scan.subagentEventCount,
        parseWarnings: warnings,
        parseWarningCount: scan.lineWarnings.total,
        subagentParseWarnings: scan.subagentWarnings.toArray()
      }
    }
  })
