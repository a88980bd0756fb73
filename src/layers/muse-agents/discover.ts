/**
 * Discovery of Muse agents sessions (seed `000_…`; issue 4): every
 * `<agentsRoot>/<agentId>/sessions/<agentId>.jsonl` with a `session_header`
 * and prompts or tool calls, one summary each. A transcript the seed leaves
 * out (no `session_header`, or neither prompts nor tool calls) is not listed
 * but said: a `SESSION_OMITTED` diagnostic with its reason, and counted in
 * the report's `omitted` (issue 11; coverage stays complete: nothing was
 * missed). A missing root lists nothing, with a diagnostic; it is not an
 * error. Symlinks are reported, never followed.
 *
 * @module
 */
import type { KnownSource } from "../../services/SessionSource.js"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type { Diagnostic, DiscoveredSource, DiscoveryReport } from "../../domain/model.js"
import { SESSIONS_DIR, transcriptFileName } from "../../domain/muse-agents/root.js"
import { isNotAFolder, notAFolderOf } from "../../domain/not-a-folder.js"
import { garbledDiagnostic, isGarbled } from "../../domain/garbled.js"
import { remedyOfSkips } from "../../domain/skip-remedy.js"
import { type SkippedSources, skipFingerprintOf, skippedAgain } from "../../domain/skipped-unchanged.js"
import { skipDiagnosticOf } from "../../domain/text-encoding.js"
import { type AgentsDeps, agentsRootOf, indexDiagnostic, LOCATOR_CLASS, readIndexBeside, scanTranscript } from "./source.js"

/** Receipts of a discovery run: content-free counts. */
export interface AgentsDiscoveryReceipts {
  readonly agentsRoot: string
  readonly rootOrigin: "option" | "env" | "default"
  /** Folders directly under the root (symlinks excluded). */
  readonly agentFolders: number
  /** Transcripts `<agentId>.jsonl` found and read. */
  readonly transcriptsRead: number
  readonly listed: number
  /** Transcripts without a `session_header`: not sessions (seed 000). */
  readonly withoutHeader: number
  /** Sessions with neither prompts nor tool calls: not listed (seed 000). */
  readonly withoutPromptsOrToolCalls: number
  /** Candidates that could not be read (symlinks, access errors). */
  readonly skipped: number
  /**
   * Agent folders whose `sessions/` holds `.jsonl` files but not `<agentId>.jsonl` (none read; an
   * `AGENT_TRANSCRIPT_NOT_FOUND` diagnostic each).
   */
  readonly withoutNamedTranscript: number
}

/** Why seed 000 leaves a transcript out of discovery. */
export type OmittedReason = "no-session-header" | "no-prompts-or-tool-calls"

const omittedDiagnostic = (agentId: string, reason: OmittedReason): Diagnostic => ({
  code: "SESSION_OMITTED",
  message: `${agentId}/sessions/${transcriptFileName(agentId)} is not listed: ${
    reason === "no-session-header"
      ? "it has no session_header record with a session_id (a non-empty string), so it is not a session"
      : "it has neither prompts nor tool calls"
  } (seed 000).`,
  details: { agentId, reason }
})

type Found =
  | { readonly _tag: "listed"; readonly source: DiscoveredSource; readonly diagnostics: ReadonlyArray<Diagnostic> }
  | { readonly _tag: "no-header"; readonly agentId: string }
  | { readonly _tag: "empty"; readonly agentId: string }
  /** A transcript the index holds, garbled since: neither listed nor said here (the importer keeps it, SOURCE_GARBLED). */
  | { readonly _tag: "held-garbled" }
  | { readonly _tag: "skipped"; readonly diagnostic: Diagnostic }
  | { readonly _tag: "none" }
  /**
   * A `sessions/` folder that holds `.jsonl` files, none of them `<agentId>.jsonl`, or an agent folder without
   * `sessions/` that holds `.jsonl` files itself: how many, and the folder (none is read).
   */
  | { readonly _tag: "misnamed"; readonly agentId: string; readonly others: number; readonly folder: string }

const skipped = (code: string, agentId: string, message: string): Found => ({
  _tag: "skipped",
  diagnostic: { code, message, details: { agentId } }
})

/**
 * The first of `names` (folders of `root`) one of whose own folders `<id>` holds `sessions/<id>.jsonl`: an agents
 * root one level below `root`; null when none does (at most 100 folders of each is looked at; a folder that
 * cannot be listed is passed over).
 */
const findNestedRoot = (deps: AgentsDeps, root: string, names: ReadonlyArray<string>): Effect.Effect<string | null> =>
  Effect.gen(function*() {
    const list = (dir: string) => Effect.orElseSucceed(deps.access.listDirectory(dir), () => [])
    for (const name of names) {
      const inner = (yield* list(nodePath.join(root, name))).filter((e) => e.kind === "directory").slice(0, 100)
      for (const a of inner) {
        const sessions = yield* list(nodePath.join(root, name, a.name, SESSIONS_DIR))
        if (sessions.some((e) => e.name === transcriptFileName(a.name) && e.kind === "file")) return name
      }
    }
    return null
  })

/** Look at one agent folder: find, read and summarize its transcript. */
const discoverAgent = (
  deps: AgentsDeps,
  root: string,
  agentId: string,
  known: ReadonlyMap<string, KnownSource> | undefined,
  skippedBefore: SkippedSources | undefined
): Effect.Effect<Found> =>
  Effect.gen(function*() {
    const agentDir = nodePath.join(root, agentId)
    const entries = yield* deps.access.listDirectory(agentDir)
    const sessions = entries.find((e) => e.name === SESSIONS_DIR)
    if (sessions === undefined || sessions.kind === "file" || sessions.kind === "other") {
      // a folder named `sessions` with `.jsonl` files right in it: a root one level too deep (`~/agents/<id>`, its
      // `sessions` read as an agent); other folders without `sessions/` hold no agent's transcript, whatever they hold
      const others = agentId === SESSIONS_DIR ? entries.filter((e) => e.name.endsWith(".jsonl")).length : 0
      return (others > 0 ? { _tag: "misnamed", agentId, others, folder: agentId } : { _tag: "none" }) as Found
    }
    if (sessions.kind === "symlink") {
      return skipped("SYMLINK_SKIPPED", agentId, `${agentId}/sessions is a symlink; it was not followed.`)
    }
    const sessionsDir = nodePath.join(agentDir, SESSIONS_DIR)
    const name = transcriptFileName(agentId)
    const listed = yield* deps.access.listDirectory(sessionsDir)
    const transcript = listed.find((e) => e.name === name)
    if (transcript === undefined) {
      const others = listed.filter((e) => e.name.endsWith(".jsonl")).length
      return (others > 0 ? { _tag: "misnamed", agentId, others, folder: `${agentId}/sessions` } : { _tag: "none" }) as Found
    }
    if (transcript.kind === "symlink") {
      return skipped("SYMLINK_SKIPPED", agentId, `${agentId}/sessions/${name} is a symlink; it was not followed.`)
    }
    if (transcript.kind !== "file") {
      return skipped("NOT_A_FILE", agentId, `${agentId}/sessions/${name} is not a regular file.`)
    }
    const path = nodePath.join(sessionsDir, name)
    // Skipped whole before and unchanged since (its stat, one `lstat`): skipped again, said, not read again.
    const remembered = skippedBefore?.get(path)
    if (remembered !== undefined) {
      const now = yield* Effect.either(deps.access.probe(path))
      if (
        Either.isRight(now) && Option.isSome(now.right) && now.right.value.kind === "file" &&
        skipFingerprintOf(now.right.value.stat, deps.limits.maxRecordBytes) === remembered.fingerprint
      ) {
        // One the index holds is the importer's to say, as when it was read.
        if (remembered.diagnostic === null && known?.has(path) === true) return { _tag: "held-garbled" } as Found
        if (remembered.diagnostic !== null) return { _tag: "skipped", diagnostic: skippedAgain(remembered.diagnostic) } as Found
      }
      skippedBefore!.delete(path)
    }
    const file = yield* deps.access.authorizeFile(path, [root])
    const { scan, sourceId } = yield* scanTranscript(deps, file)
    const header = scan.header
    if (isGarbled(scan.readLines, scan.notJsonLines, scan.oversizedLines)) {
      // Lines, none of which could be read (torn, not JSON, zeroed): damage, not a transcript without a header;
      // skipped and said, so coverage is partial (tester37 F2). One the index holds is the importer's to say: it keeps
      // it as it was (`garbledSource`, SOURCE_GARBLED), the same rule, said once.
      // Remembered by its stat before the read (`authorizeFile`'s): a write during the read makes it read again.
      const fingerprint = skipFingerprintOf(file.stat, deps.limits.maxRecordBytes)
      if (known?.has(file.path) === true) {
        skippedBefore?.set(path, { fingerprint, diagnostic: null })
        return { _tag: "held-garbled" } as Found
      }
      const diagnostic = garbledDiagnostic(`${agentId}/sessions/${name}`, scan.lineWarnings.toArray(), { agentId, path: file.path }, deps.limits.maxRecordBytes)
      skippedBefore?.set(path, { fingerprint, diagnostic })
      return { _tag: "skipped", diagnostic } as Found
    }
    if (header === null) return { _tag: "no-header", agentId } as Found
    if (!scan.listable) return { _tag: "empty", agentId } as Found
    const index = yield* readIndexBeside(deps, sessionsDir, root, header.sessionId)
    const entry = index._tag === "found" ? index.entry : null
    const updatedAt = entry?.updatedAt ?? scan.lastRecordAt ?? new Date(file.stat.mtimeMs).toISOString()
    const updatedAtFrom = entry?.updatedAt != null
      ? "sessions-index"
      : scan.lastRecordAt !== null
      ? "last-record"
      : "file-mtime"
    const diagnostics: Array<Diagnostic> = []
    const ignored = indexDiagnostic(index)
    if (ignored !== null) {
      diagnostics.push({
        code: "SESSIONS_INDEX_IGNORED",
        message: `${agentId}/sessions/sessions.json was ignored (${ignored.kind}); model and updatedAt come from the transcript.`,
        details: { agentId, kind: ignored.kind }
      })
    }
    const session: DiscoveredSource = {
      provider: "muse-agents",
      sourceId,
      locator: { locatorClass: LOCATOR_CLASS, path: file.path, agentId, sessionId: header.sessionId },
      sessionId: header.sessionId,
      overview: {
        sessionId: header.sessionId,
        title: scan.title,
        workspace: null,
        firstActivityAt: scan.firstRecordAt,
        // A file's mtime is no activity (summary.updatedAt keeps it as issue 4's last fallback, labelled).
        lastActivityAt: updatedAtFrom === "file-mtime" ? null : updatedAt,
        model: entry?.model ?? null,
        counts: { prompts: scan.promptCount, toolCalls: scan.toolCallCount, runs: null, lines: scan.lineCount },
        parseWarnings: scan.lineWarnings.toArray(),
        diagnostics: [...scan.diagnostics, ...(ignored !== null ? [ignored] : [])]
      },
      summary: {
        provider: "muse-agents",
        sessionId: header.sessionId,
        agentId: header.agentId ?? agentId,
        locator: file.path,
        title: scan.title,
        firstPrompt: scan.firstPrompt,
        firstPrompts: [...scan.firstPrompts],
        promptCount: scan.promptCount,
        toolCallCount: scan.toolCallCount,
        editCount: scan.editCount,
        compactionCount: scan.compactionCount,
        model: entry?.model ?? null,
        startedAt: scan.firstRecordAt,
        updatedAt,
        updatedAtFrom,
        sizeBytes: file.stat.size,
        lineCount: scan.lineCount,
        parseWarningCount: scan.lineWarnings.total,
        parseWarnings: scan.lineWarnings.toArray(),
        orphanOutputCount: scan.orphanOutputCount,
        // What the transcript counts apart from parse warnings (orphan outputs, an ignored sessions.json).
        diagnostics: [...scan.diagnostics, ...(ignored !== null ? [ignored] : [])],
        sessionsIndex: index._tag
      },
      // What the summary describes: the importer compares it with the file it reads (`src/layers/index/source-drift.ts`).
      stat: file.stat
    }
    return { _tag: "listed", source: session, diagnostics } as Found
  }).pipe(
    // A transcript in UTF-16 (re-saved by PowerShell): SOURCE_NOT_UTF8, with the conversion as its remedy.
    Effect.catchAll((e) => Effect.succeed<Found>({ _tag: "skipped", diagnostic: skipDiagnosticOf(e, `${agentId}: ${e.message}`, { agentId }) }))
  )

/**
 * Discover the sessions under the agents root (`--agents-root`, else
 * `$MUSE_AGENTS_DIR`, else `~/agents`), in agent-folder name order. Never
 * fails: a missing or unreadable root gives `status: "unavailable"` with an
 * `AGENTS_ROOT_*` diagnostic and no sources (coverage `complete` for a
 * missing default root, which holds nothing; `partial` for a missing root
 * the user named, and for one that exists but cannot be read, e.g. a file,
 * which may hold sessions that were not read); a named root without any
 * agent folder is `partial` too (`AGENTS_ROOT_EMPTY`); a
 * candidate that cannot be read is skipped with a diagnostic and makes
 * coverage `partial`. Transcripts seed 000 leaves out are counted in
 * `omitted` by reason and named in `SESSION_OMITTED` diagnostics (details
 * `{agentId, reason}`; content-free). A transcript skipped whole before
 * (`skippedBefore`: every line over `maxRecordBytes`, or none that reads as
 * JSON) and unchanged since (one `lstat`) is skipped again with the same
 * diagnostic, not read again, said in it (`src/domain/skipped-unchanged.ts`);
 * one this run skips is added to it.
 */
export const discoverAgents = (
  deps: AgentsDeps,
  known?: ReadonlyMap<string, KnownSource> | undefined,
  skippedBefore?: SkippedSources | undefined
): Effect.Effect<DiscoveryReport> =>
  Effect.gen(function*() {
    const root = agentsRootOf(deps)
    const real = yield* Effect.either(deps.access.authorizeRoot(root.path))
    const base = { agentsRoot: root.path, rootOrigin: root.origin }
    if (real._tag === "Left") {
      const missing = real.left._tag === "SourceNotFound"
      // A root that is a file (one transcript named as the root, most often): said so, with the folder to pass.
      const notAFolder = notAFolderOf(real.left)
      return {
        provider: "muse-agents",
        status: "unavailable",
        // A missing default root holds no sessions (complete); a missing root the user named (option,
        // config or $MUSE_AGENTS_DIR) is a typo until shown otherwise, and a root that exists but cannot
        // be read (a file, unreadable, a broken link) may hold sessions that were not read (partial).
        coverage: missing && root.origin === "default" ? "complete" : "partial",
        sourceCount: 0,
        reasonCode: missing ? "AGENTS_ROOT_NOT_FOUND" : "AGENTS_ROOT_UNREADABLE",
        remediation: notAFolder !== undefined
          ? "Pass the Muse agents folder itself as --agents-root (e.g. ~/agents: one folder per agent, each holding sessions/<agent-id>.jsonl), not a transcript in it; or set MUSE_AGENTS_DIR to it."
          : "Pass --agents-root DIR or set MUSE_AGENTS_DIR to the Muse agents folder (default ~/agents).",
        sources: [],
        diagnostics: [{
          code: missing ? "AGENTS_ROOT_NOT_FOUND" : "AGENTS_ROOT_UNREADABLE",
          message: missing
            ? `The agents root ${root.path} does not exist; no sessions listed.`
            : notAFolder !== undefined
            ? `The agents root ${root.path} ${isNotAFolder(notAFolder)}; no sessions listed.`
            : `The agents root ${root.path} cannot be read (${real.left.code}); no sessions listed.`,
          details: { ...base, code: real.left.code, ...(notAFolder !== undefined ? { kind: notAFolder.kind } : {}) }
        }],
        receipts: base
      } satisfies DiscoveryReport
    }
    const rootPath = real.right
    const entries = yield* Effect.either(deps.access.listDirectory(rootPath))
    const diagnostics: Array<Diagnostic> = []
    const sources: Array<DiscoveredSource> = []
    let agentFolders = 0, transcriptsRead = 0, withoutHeader = 0, empty = 0, skippedCount = 0, misnamed = 0
    let nestedRoot: string | null = null
    /** The codes of what was skipped, in the order met: the remedy is made of them. */
    const skipCodes: Array<string> = []
    if (entries._tag === "Left") {
      diagnostics.push({
        code: "AGENTS_ROOT_UNREADABLE",
        message: `The agents root ${rootPath} cannot be listed (${entries.left.code}).`,
        details: { ...base, code: entries.left.code }
      })
      skipCodes.push("AGENTS_ROOT_UNREADABLE")
      skippedCount++
    } else {
      for (const e of entries.right) {
        if (e.kind === "symlink") {
          diagnostics.push({
            code: "SYMLINK_SKIPPED",
            message: `${e.name} under the agents root is a symlink; it was not followed.`,
            details: { agentId: e.name }
          })
          skipCodes.push("SYMLINK_SKIPPED")
          skippedCount++
        }
      }
      const folders = entries.right.filter((e) => e.kind === "directory")
      agentFolders = folders.length
      const found = yield* Effect.forEach(folders, (f) => discoverAgent(deps, rootPath, f.name, known, skippedBefore), { concurrency: 4 })
      for (const f of found) {
        switch (f._tag) {
          case "listed":
            transcriptsRead++
            sources.push(f.source)
            diagnostics.push(...f.diagnostics)
            break
          case "no-header":
            transcriptsRead++
            withoutHeader++
            diagnostics.push(omittedDiagnostic(f.agentId, "no-session-header"))
            break
          case "held-garbled":
            transcriptsRead++
            break
          case "empty":
            transcriptsRead++
            empty++
            diagnostics.push(omittedDiagnostic(f.agentId, "no-prompts-or-tool-calls"))
            break
          case "skipped":
            skipCodes.push(f.diagnostic.code)
            skippedCount++
            diagnostics.push(f.diagnostic)
            break
          case "misnamed":
            misnamed++
            diagnostics.push({
              code: "AGENT_TRANSCRIPT_NOT_FOUND",
              message: `${f.folder} holds ${f.others} .jsonl file${f.others === 1 ? "" : "s"} but not ${f.agentId}/sessions/${
                transcriptFileName(f.agentId)
              }, the transcript seed 000 names (<agent-id>/sessions/<agent-id>.jsonl); none of them was read.`,
              details: { agentId: f.agentId, otherJsonlFiles: f.others }
            })
            break
          case "none":
            break
        }
      }
      // A named root with agent folders but not one transcript: is one of them the agents root (`--agents-root ~`
      // for `~/agents`: its folders' own folders hold `sessions/<id>.jsonl`)? Looked for only then, over at most
      // 100 folders of 100 each (session 28, tester28b F2: "complete, 0 sources" with no hint).
      if (transcriptsRead === 0 && skippedCount === 0 && misnamed === 0 && root.origin !== "default") {
        nestedRoot = yield* findNestedRoot(deps, rootPath, folders.slice(0, 100).map((f) => f.name))
      }
    }
    // A root the user named that holds no agent folder at all is not Muse's agents folder (a typo, a
    // mount not there yet): partial, so a daily job does not read as "complete". The default root may be empty.
    // Not when something under it was skipped (a symlinked agent folder): that is said instead.
    // So is a named root whose agent folders hold no transcript but other `.jsonl` files (session 28, tester28a F13:
    // transcripts under another name, or a root one level too deep, `~/agents/<id>`, whose `sessions` read as an
    // agent). Agent folders that hold nothing (an agent that never ran) are no sign of a wrong root.
    const emptyNamed = entries._tag === "Right" && transcriptsRead === 0 && skippedCount === 0 && root.origin !== "default" &&
      (agentFolders === 0 || misnamed > 0 || nestedRoot !== null)
    if (emptyNamed) {
      diagnostics.push({
        code: "AGENTS_ROOT_EMPTY",
        message: nestedRoot !== null
          ? `The agents root ${rootPath} holds no transcript <agent-id>/sessions/<agent-id>.jsonl, but ${
            nodePath.join(rootPath, nestedRoot)
          } looks like the agents root (its folders hold sessions/<agent-id>.jsonl); no sessions listed.`
          : agentFolders === 0
          ? `The agents root ${rootPath} holds no agent folder (<agent-id>/sessions/<agent-id>.jsonl); no sessions listed.`
          : `The agents root ${rootPath} holds ${agentFolders} folder${agentFolders === 1 ? "" : "s"} but no transcript <agent-id>/sessions/<agent-id>.jsonl${
            misnamed > 0 ? ` (${misnamed} hold${misnamed === 1 ? "s" : ""} other .jsonl files)` : ""
          }; no sessions listed.`,
        details: { ...base, code: "AGENTS_ROOT_EMPTY", agentFolders }
      })
    }
    const partial = skippedCount > 0 || emptyNamed
    const receipts: AgentsDiscoveryReceipts = {
      ...base,
      agentsRoot: rootPath,
      agentFolders,
      transcriptsRead,
      listed: sources.length,
      withoutHeader,
      withoutPromptsOrToolCalls: empty,
      skipped: skippedCount,
      withoutNamedTranscript: misnamed
    }
    return {
      provider: "muse-agents",
      status: "checked",
      coverage: partial ? "partial" : "complete",
      sourceCount: sources.length,
      reasonCode: skippedCount > 0 ? "SOURCES_SKIPPED" : emptyNamed ? "AGENTS_ROOT_EMPTY" : null,
      remediation: skippedCount > 0
        ? remedyOfSkips(skipCodes)
        : nestedRoot !== null
        ? `Pass --agents-root ${nodePath.join(rootPath, nestedRoot)} (the folder that holds one folder per agent).`
        : emptyNamed
        ? "Check --agents-root (or agentsRoot in the config, or MUSE_AGENTS_DIR): it should be the Muse agents folder that holds one folder per agent (default ~/agents)."
        : null,
      sources,
      diagnostics,
      receipts: { ...receipts },
      roots: [rootPath],
      omitted: {
        ...(withoutHeader > 0 ? { "no-session-header": withoutHeader } : {}),
        ...(empty > 0 ? { "no-prompts-or-tool-calls": empty } : {})
      }
    } satisfies DiscoveryReport
  })
