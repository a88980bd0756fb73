/**
 * Discovery of Claude Code sessions: every `<encoded-cwd>/<session-uuid>.jsonl`
 * under the projects root (`--claude-root`, else `$CLAUDE_CONFIG_DIR/projects`,
 * else `~/.claude/projects`), one summary each, latest activity first. Flat-
 * layout subagent files (`agent-*.jsonl`) and nested subagent files are not
 * sessions of their own: each is read with the session it belongs to
 * (`subagentsOf` in `./source.ts`). A file with neither prompts, tool calls nor responses (a file of
 * summaries only) is left out, said in a `SESSION_OMITTED` diagnostic and
 * counted in `omitted`. A missing root lists nothing, with a diagnostic.
 * Symlinks are reported, never followed.
 *
 * @module
 */
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { LOCATOR_CLASS, PROVIDER } from "../../domain/claude-code/events.js"
import { agentIdOfFile, isEncodedCwdName, isSessionFileName, sessionIdOfFile } from "../../domain/claude-code/root.js"
import type { Diagnostic, DiscoveredSource, DiscoveryReport } from "../../domain/model.js"
import { isNotAFolder, notAFolderOf } from "../../domain/not-a-folder.js"
import { remedyOfSkips } from "../../domain/skip-remedy.js"
import { skipDiagnosticOf } from "../../domain/text-encoding.js"
import { sortKey as timestampSortKey } from "../../domain/timestamps.js"
import { garbledDiagnostic, isGarbled } from "../../domain/garbled.js"
import { type SkippedSources, skipFingerprintOf, skippedAgain } from "../../domain/skipped-unchanged.js"
import { unreadableOf } from "../../domain/unreadable.js"
import type { KnownSource } from "../../services/SessionSource.js"
import { type ClaudeDeps, claudeRootOf, flatOwnerOf, folderListingOf, keptSourceProbed, overviewOf, scanSession, summaryOf } from "./source.js"

const REMEDY = "Pass --claude-root DIR or set CLAUDE_CONFIG_DIR (its projects/ folder is read; default ~/.claude/projects)."

/** The remedy of a root that is a file (or a fifo): the folder to pass instead. */
const NOT_A_FOLDER_REMEDY =
  "Pass the projects folder itself as --claude-root (e.g. ~/.claude/projects: one folder per project, each holding its <session-uuid>.jsonl logs), not a session log in it; or set CLAUDE_CONFIG_DIR to the folder whose projects/ folder holds them."

/**
 * Discover the sessions under the root. Never fails: a missing root is
 * `unavailable`, with coverage `complete` when it is the default root (it
 * holds nothing yet) and `partial` when it was named (`--claude-root`, the
 * config's `claudeRoot` or `CLAUDE_CONFIG_DIR`); a root that
 * cannot be read, a symlink, an unreadable candidate, a listed session's
 * subagent file that could not be read (through a symlinked folder, say),
 * or flat subagent files that name no session of their folder
 * (`CLAUDE_SUBAGENT_UNLINKED`, counted per folder), or a root that holds a
 * `projects/` folder and no session (Claude Code's config folder named instead
 * of it: `CLAUDE_ROOT_IS_CONFIG_DIR`), a named root that is one project's
 * folder (its own entries are session logs: `CLAUDE_ROOT_IS_PROJECT_FOLDER`,
 * naming its parent), or one named with folders but no session log in any,
 * one of them not an encoded cwd (`CLAUDE_ROOT_EMPTY`), or session logs lying
 * in the projects root itself beside its project folders (or in the default
 * root), which are not read (`CLAUDE_LOG_IN_PROJECTS_ROOT`, counted as
 * skipped), make coverage `partial`
 * with a diagnostic naming it, and a remedy made of the causes present
 * ({@link remedyOfSkips}). A session file the importer already holds
 * (`known`: by real path, its fingerprint and summary) and that is unchanged
 * since is listed again from that summary, without reading it
 * ({@link keptSourceProbed}): one `lstat` of its log, its subagents looked for in
 * the project folder's listing, and `parts` none (the importer lists them
 * not again): what makes an unchanged re-import a stat per session. A log
 * skipped whole before (`skippedBefore`: every line over `maxRecordBytes`, or
 * none that reads as JSON) and unchanged since (one `lstat`) is skipped again
 * with the same diagnostic, not read again, said in it
 * (`src/domain/skipped-unchanged.ts`); one this run skips is added to it.
 */
export const discoverSessions = (
  deps: ClaudeDeps,
  known?: ReadonlyMap<string, KnownSource> | undefined,
  skippedBefore?: SkippedSources | undefined
): Effect.Effect<DiscoveryReport> =>
  Effect.gen(function*() {
    const root = claudeRootOf(deps)
    const base = { claudeRoot: root.path, rootOrigin: root.origin }
    const real = yield* Effect.either(deps.access.authorizeRoot(root.path))
    if (Either.isLeft(real)) {
      const missing = real.left._tag === "SourceNotFound"
      const code = missing ? "CLAUDE_ROOT_NOT_FOUND" : "CLAUDE_ROOT_UNREADABLE"
      // A root that is a file (one session log named as the root, most often): said so, with the folder to pass.
      const notAFolder = notAFolderOf(real.left)
      return {
        provider: PROVIDER,
        status: "unavailable",
        // Only the default root may be missing (no session yet); one named (--claude-root, the config's claudeRoot,
        // CLAUDE_CONFIG_DIR) that is not there is partial, as import makes it (a typo must not read as complete).
        coverage: missing && root.origin === "default" ? "complete" : "partial",
        sourceCount: 0,
        reasonCode: code,
        remediation: notAFolder !== undefined ? NOT_A_FOLDER_REMEDY : REMEDY,
        sources: [],
        diagnostics: [{
          code,
          message: missing
            ? `The Claude Code projects root ${root.path} does not exist; no sessions listed.`
            : notAFolder !== undefined
            ? `The Claude Code projects root ${root.path} ${isNotAFolder(notAFolder)}; no sessions listed.`
            : `The Claude Code projects root ${root.path} cannot be read (${real.left.code}); no sessions listed.`,
          details: { ...base, code: real.left.code, ...(notAFolder !== undefined ? { kind: notAFolder.kind } : {}) }
        }],
        receipts: base
      } satisfies DiscoveryReport
    }
    const rootPath = real.right
    const diagnostics: Array<Diagnostic> = []
    const found: Array<DiscoveredSource> = []
    let projects = 0, filesRead = 0, skipped = 0, omitted = 0, unchanged = 0, skippedNotReadAgain = 0
    /** The root holds a folder named `projects` (Claude Code's config folder, `~/.claude`, named instead of its `projects/`). */
    let holdsProjects = false
    /** Session logs (`<session-uuid>.jsonl` files) right in the root: a project folder named as the root. */
    let ownLogs = 0
    /** Their names, in the listing's order (what a stray log's diagnostic names). */
    const ownLogNames: Array<string> = []
    /** Entries under a session log's name met in the project folders (read or not): none means no session log anywhere. */
    let logsSeen = 0
    /** Project folders whose name is not an encoded cwd (`-home-me-app`, `C--Users-me-app`): no sign of a projects root. */
    let notCwdNamed = 0
    /** The codes of what was skipped, in the order met: the remedy is made of them. */
    const skipCodes: Array<string> = []
    /** Report a skip: its diagnostic, counted `n` times. */
    const skip = (d: Diagnostic, n = 1) => {
      diagnostics.push(d)
      skipCodes.push(d.code)
      skipped += n
    }
    const top = yield* Effect.either(deps.access.listDirectory(rootPath))
    if (Either.isLeft(top)) {
      skip({ code: "CLAUDE_ROOT_UNREADABLE", message: `The root ${rootPath} cannot be listed (${top.left.code}).`, details: { ...base, code: top.left.code } })
    } else {
      for (const p of top.right) {
        if (p.kind === "symlink") {
          skip({ code: "SYMLINK_SKIPPED", message: `${p.name} under the root is a symlink; it was not followed.`, details: { project: p.name } })
          continue
        }
        if (p.kind !== "directory") {
          if (p.kind === "file" && isSessionFileName(p.name)) {
            ownLogs++
            ownLogNames.push(p.name)
          } else if (isSessionFileName(p.name)) {
            // A fifo, socket or device under a session log's name in the root: never opened (a fifo would block),
            // said and counted, as in a project folder (tester37 F3: it was skipped in silence).
            skip({
              code: "SOURCE_NOT_REGULAR_FILE",
              message: `${p.name} in the projects root is not a regular file (a fifo, socket or device); it was not read.`,
              details: { file: p.name }
            })
          }
          continue
        }
        if (p.name === "projects") holdsProjects = true
        projects++
        if (!isEncodedCwdName(p.name)) notCwdNamed++
        const dir = nodePath.join(rootPath, p.name)
        const entries = yield* Effect.either(deps.access.listDirectory(dir))
        if (Either.isLeft(entries)) {
          skip({ code: entries.left.code, message: `${p.name}: ${entries.left.message}`, details: { project: p.name } })
          continue
        }
        // What the sessions listed unread need of the folder, from this one listing.
        const folder = known !== undefined && known.size > 0 ? folderListingOf(entries.right) : undefined
        // The logs the index holds (each a regular file listed here), `lstat`-ed in one pass: one effect for them all.
        const heldPaths: Array<string> = []
        if (folder !== undefined) {
          for (const e of entries.right) {
            if (e.kind !== "file" || !isSessionFileName(e.name)) continue
            const path = dir + nodePath.sep + e.name
            if (known!.has(path)) heldPaths.push(path)
          }
        }
        const heldProbes = heldPaths.length === 0 ? [] : yield* deps.access.probeAll(heldPaths)
        let held = 0
        for (const e of entries.right) {
          if (!isSessionFileName(e.name)) continue
          logsSeen++
          if (e.kind === "symlink") {
            skip({ code: "SYMLINK_SKIPPED", message: `${p.name}/${e.name} is a symlink; it was not followed.`, details: { project: p.name, file: e.name } })
            continue
          }
          if (e.kind !== "file") {
            // A fifo, device or folder under a session's name: never opened (a fifo would block), reported.
            skip({
              code: "SOURCE_NOT_REGULAR_FILE",
              message: `${p.name}/${e.name} is not a regular file (${e.kind === "directory" ? "a folder" : "a fifo, socket or device"}); it was not read.`,
              details: { project: p.name, file: e.name }
            })
            continue
          }
          // (`dir` is normalized and `e.name` a plain name: no `join` per session)
          const path = dir + nodePath.sep + e.name
          // The root is a real path and neither the folder nor the file is a symlink: `path` is the file's real path,
          // as the checkpoints name it.
          const holds = folder !== undefined ? known!.get(path) : undefined
          if (holds !== undefined) {
            // In the listing's order, as the pass above took them.
            const probed = heldProbes[held++]
            const keeps = keptSourceProbed(deps, path, rootPath, holds, folder!, probed)
            const kept = Effect.isEffect(keeps) ? yield* keeps : keeps
            if (kept !== undefined) {
              unchanged++
              found.push(kept)
              continue
            }
          }
          // Skipped whole before and unchanged since (its stat, one `lstat`): skipped again, said, not read again.
          const remembered = skippedBefore?.get(path)
          if (remembered !== undefined) {
            const now = yield* Effect.either(deps.access.probe(path))
            if (
              Either.isRight(now) && Option.isSome(now.right) && now.right.value.kind === "file" &&
              skipFingerprintOf(now.right.value.stat, deps.limits.maxRecordBytes) === remembered.fingerprint
            ) {
              // One the index holds is the importer's to say (below), as when it was read.
              if (remembered.diagnostic === null && known?.has(path) === true) continue
              if (remembered.diagnostic !== null) {
                skippedNotReadAgain++
                skip(skippedAgain(remembered.diagnostic))
                continue
              }
            }
            skippedBefore!.delete(path)
          }
          const authorized = yield* Effect.either(deps.access.authorizeFile(path, [rootPath]))
          const scanned = yield* Effect.either(
            Either.isLeft(authorized) ? Effect.fail(authorized.left) : scanSession(deps, authorized.right)
          )
          if (Either.isLeft(scanned)) {
            // A file there but unreadable: marked so (the access layer's details, and the file as `source`), so an import counts it.
            const unreadable = unreadableOf(scanned.left)
            // A log in UTF-16 (re-saved by PowerShell): SOURCE_NOT_UTF8, with the conversion as its remedy.
            skip(skipDiagnosticOf(scanned.left, `${p.name}/${e.name}: ${scanned.left.message}`, {
              project: p.name,
              file: e.name,
              ...(unreadable !== undefined ? { ...unreadable, source: path } : {})
            }))
            continue
          }
          filesRead++
          const s = scanned.right
          if (isGarbled(s.scan.readLines, s.scan.notJsonLines, s.scan.oversizedLines)) {
            // Lines, none of which could be read (torn, not JSON, zeroed, or over maxRecordBytes: tester39 F4): damage,
            // not a session without a conversation; skipped and said, so coverage is partial (tester37 F2). One the
            // index holds is the importer's to say: it keeps it as it was (`garbledSource`, SOURCE_GARBLED), the same
            // rule, said once.
            // Remembered by its stat before the read (`authorizeFile`'s): a write during the read makes it read again.
            const fingerprint = skipFingerprintOf(s.file.stat, deps.limits.maxRecordBytes)
            if (known?.has(path) === true) {
              skippedBefore?.set(path, { fingerprint, diagnostic: null })
              continue
            }
            const d = garbledDiagnostic(`${p.name}/${e.name}`, s.scan.lineWarnings.toArray(), { project: p.name, file: e.name, path }, deps.limits.maxRecordBytes)
            skippedBefore?.set(path, { fingerprint, diagnostic: d })
            skip(d)
            continue
          }
          if (!s.scan.listable) {
            omitted++
            diagnostics.push({
              code: "SESSION_OMITTED",
              message: `${p.name}/${e.name} is not listed: it has neither prompts, tool calls nor responses.`,
              details: { project: p.name, file: e.name, reason: "no-conversation" }
            })
            continue
          }
          // Subagent files of the session that could not be read (a symlinked file or folder, one leading outside the
          // root, an access error): the session is listed, but what they hold is not read, so coverage is partial.
          for (const d of s.diagnostics) skip({ ...d, details: { project: p.name, file: e.name, ...d.details } })
          found.push({
            provider: PROVIDER,
            sourceId: s.sourceId,
            locator: { locatorClass: LOCATOR_CLASS, path: s.file.path, sessionId: s.sessionId },
            sessionId: s.sessionId,
            overview: overviewOf(s),
            summary: summaryOf(s),
            // What the summary describes: the importer compares it with the file it reads (`src/layers/index/source-drift.ts`).
            stat: s.file.stat
          })
        }
        // Flat-layout subagent files (older versions) that name no session of this folder: read by no session, reported
        // (and counted as skipped: what they hold is not in the index, so coverage is partial).
        const sessions = new Set(entries.right.filter((e) => isSessionFileName(e.name)).map((e) => sessionIdOfFile(e.name)))
        const unlinked: Array<string> = []
        for (const e of entries.right) {
          if (e.kind !== "file" || agentIdOfFile(e.name) === null) continue
          const file = yield* Effect.either(deps.access.authorizeFile(nodePath.join(dir, e.name), [rootPath]))
          const owner = Either.isRight(file) ? yield* flatOwnerOf(deps.access, file.right) : null
          if (owner === null || !sessions.has(owner)) unlinked.push(e.name)
        }
        if (unlinked.length > 0) {
          unlinked.sort()
          const shown = unlinked.slice(0, 20)
          skip({
            code: "CLAUDE_SUBAGENT_UNLINKED",
            message: `${p.name}: ${unlinked.length} subagent file(s) name no session of this folder (${shown.join(", ")}${
              unlinked.length > shown.length ? ", …" : ""
            }); they were not read.`,
            details: { project: p.name, count: unlinked.length, files: shown }
          }, unlinked.length)
        }
      }
    }
    // Latest activity first (by `compareTimestamps`' key, made once per source), then by path. A session with no dated
    // record (no last activity) is placed by its file's mtime, as it was listed before: its order only, not its activity.
    const keyed = found.map((d) => ({ d, key: timestampSortKey(d.overview.lastActivityAt ?? new Date(d.stat?.mtimeMs ?? 0).toISOString()) }))
    keyed.sort((a, b) => (a.key > b.key ? -1 : a.key < b.key ? 1 : a.d.locator.path < b.d.locator.path ? -1 : 1))
    for (let i = 0; i < keyed.length; i++) found[i] = keyed[i].d
    // A named root whose own entries are session logs (`<session-uuid>.jsonl`, beside their `<session-uuid>/subagents/`
    // folders) is one project's folder, not the projects root: its logs are never read from there (tester36a F9). Said,
    // naming its parent, and partial. The default root keeps its behaviour.
    const parent = nodePath.dirname(rootPath)
    const projectFolder = Either.isRight(top) && ownLogs > 0 && found.length === 0 && root.origin !== "default"
    if (projectFolder) {
      diagnostics.push({
        code: "CLAUDE_ROOT_IS_PROJECT_FOLDER",
        message: `The Claude Code projects root ${rootPath} holds ${ownLogs} session log${ownLogs === 1 ? "" : "s"} (<session-uuid>.jsonl) of its own: it looks like one project's folder, not the projects root; did you mean --claude-root ${parent}? No sessions listed.`,
        details: { ...base, code: "CLAUDE_ROOT_IS_PROJECT_FOLDER", sessionLogs: ownLogs, projectsFolder: parent }
      })
    }
    // A root that holds a `projects/` folder and no session of its own is Claude Code's config folder (`~/.claude`,
    // what CLAUDE_CONFIG_DIR names) passed for its projects folder (tester27a F5): said, naming `<root>/projects`, and
    // partial, so it does not read as a complete, empty answer. Only the root named is read, never its `projects/`.
    const configFolder = !projectFolder && holdsProjects && found.length === 0 && omitted === 0 && skipped === 0
    // Otherwise a session log lying in the projects root itself (beside the project folders, or in the default root) is
    // not where Claude Code writes one (`<encoded-cwd>/<session-uuid>.jsonl`): it is not read, so it is said and counted
    // as skipped (coverage partial), never passed over in silence (tester36b F13).
    if (!projectFolder && ownLogs > 0) {
      const shown = ownLogNames.slice().sort().slice(0, 20)
      skip({
        code: "CLAUDE_LOG_IN_PROJECTS_ROOT",
        message: `${ownLogs} session log${ownLogs === 1 ? "" : "s"} lie${ownLogs === 1 ? "s" : ""} in the projects root ${rootPath} itself, not in a project folder (${shown.join(", ")}${
          ownLogs > shown.length ? ", …" : ""
        }); ${ownLogs === 1 ? "it was" : "they were"} not read.`,
        details: { ...base, count: ownLogs, files: shown }
      }, ownLogs)
    }
    // A root the user named (--claude-root or claudeRoot in the config) that holds no project folder at all is not Claude
    // Code's projects folder (a typo, a mount not there yet): partial, so a daily job does not read as "complete". So is
    // one with folders but no session log in any of them, when one of its folders is not named as Claude Code names a
    // project folder (an encoded cwd, `-home-me-app`): `--claude-root ~/code`, a fixtures folder (tester36a F9). A
    // projects root whose project folders are all empty (folders named as Claude Code names them) stays complete. The
    // default root, and CLAUDE_CONFIG_DIR (Claude Code's own setting, before its first session), may be empty. Not when
    // something under it was skipped (a symlinked project folder): that is said instead.
    const emptyNamed = Either.isRight(top) && skipped === 0 && root.origin === "option" && !projectFolder && !configFolder &&
      (projects === 0 || (notCwdNamed > 0 && logsSeen === 0 && found.length === 0 && omitted === 0))
    if (emptyNamed) {
      diagnostics.push({
        code: "CLAUDE_ROOT_EMPTY",
        message: projects === 0
          ? `The Claude Code projects root ${rootPath} holds no project folder (<encoded-cwd>/<session-uuid>.jsonl); no sessions listed.`
          : `The Claude Code projects root ${rootPath} holds ${projects} folder${projects === 1 ? "" : "s"} but no session log (<encoded-cwd>/<session-uuid>.jsonl) in any of them; no sessions listed.`,
        details: { ...base, code: "CLAUDE_ROOT_EMPTY", folders: projects }
      })
    }
    const meant = nodePath.join(rootPath, "projects")
    if (configFolder) {
      diagnostics.push({
        code: "CLAUDE_ROOT_IS_CONFIG_DIR",
        message: `The Claude Code projects root ${rootPath} holds no session log but a projects/ folder: it looks like Claude Code's config folder; did you mean --claude-root ${meant}? No sessions listed.`,
        details: { ...base, code: "CLAUDE_ROOT_IS_CONFIG_DIR", projectsFolder: meant }
      })
    }
    const partial = skipped > 0 || emptyNamed || configFolder || projectFolder
    return {
      provider: PROVIDER,
      status: "checked",
      coverage: partial ? "partial" : "complete",
      sourceCount: found.length,
      reasonCode: skipped > 0
        ? "SOURCES_SKIPPED"
        : projectFolder
        ? "CLAUDE_ROOT_IS_PROJECT_FOLDER"
        : emptyNamed ? "CLAUDE_ROOT_EMPTY" : configFolder ? "CLAUDE_ROOT_IS_CONFIG_DIR" : null,
      remediation: skipped > 0
        ? remedyOfSkips(skipCodes)
        : projectFolder
        ? `Pass the projects folder, this folder's parent: --claude-root ${parent} (one folder per project, each holding its <session-uuid>.jsonl logs).`
        : emptyNamed
        ? "Check --claude-root (or CLAUDE_CONFIG_DIR): it should be Claude Code's projects folder, one folder per project (default ~/.claude/projects)."
        : configFolder
        ? `Pass the projects folder itself: --claude-root ${meant} (or set CLAUDE_CONFIG_DIR to ${rootPath}, whose projects/ folder is read).`
        : null,
      sources: found,
      diagnostics,
      receipts: { ...base, claudeRoot: rootPath, projectFolders: projects, ownSessionLogs: ownLogs, filesRead, unchangedNotRead: unchanged, listed: found.length, omitted, skipped, skippedNotReadAgain },
      // The root went through: a checkpointed session below it that is no longer listed is checked by the importer.
      roots: [rootPath],
      omitted: (omitted > 0 ? { "no-conversation": omitted } : {}) as Record<string, number>
    } satisfies DiscoveryReport
  })
