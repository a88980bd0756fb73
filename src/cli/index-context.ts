/**
 * CLI plumbing for the index commands: the index (a SQLite file or a
 * `postgres://` URL), the library + index layers, and the run plan from
 * options and the config file. The one place that picks the engine: the
 * commands, the importer and the queries see only the `Index` service.
 *
 * @module
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as App from "../layers/app.js"
import { defaultConfigFile } from "../layers/data-dir.js"
import * as ImporterLayer from "../layers/index/importer.js"
import * as Watch from "../layers/index/watch.js"
import { isPostgresUrl } from "../layers/index/pg-target.js"
import * as IndexSqlite from "../layers/index/sqlite.js"
import { describeHolder, type ImportLockHolder } from "../layers/index/import-lock.js"
import * as Registry from "../layers/registry.js"
import { type AccessPolicyShape, withDefaults } from "../services/AccessPolicy.js"
import { causeLine, ImportFaults, type ImportPlan, ImportProgress, type ImportReport, type PartialCause } from "../services/Importer.js"
import type { Index } from "../services/Index.js"
import { InvalidArgument, type StoreUnavailable } from "../domain/errors.js"
import { isNotAFolder, notAFolderDetails } from "../domain/not-a-folder.js"
import { loadConfig, loadImportLimits } from "./config.js"
import type { ImportLimitsShape } from "../services/ImportLimits.js"
import { givenValue, type RootOptions } from "./context.js"
import * as Progress from "./progress.js"
import { indexOf, postgres, withNodeNavigator } from "./index-read.js"

export { checkedIndex, chosenIndex, existingIndex, indexTarget, readIndexLayer } from "./index-read.js"

/**
 * Options of `import`, as parsed: `--config`, `--index`, `--workspace`, and
 * each registered provider setting's value by its key (a list, or an
 * optional value).
 */
export interface ImportOptions extends RootOptions {
  readonly config: Option.Option<string>
  readonly index: Option.Option<string>
  readonly machine?: Option.Option<string> | undefined
  readonly workspace: ReadonlyArray<string>
}

/**
 * The index an import writes to: the PostgreSQL index at a `postgres://`
 * URL (its sources keyed by `machine`), else the SQLite file (created when
 * missing, migrated).
 */
export const writeIndexLayer = (index: string, machine: string, watch = false): Layer.Layer<Index, StoreUnavailable> =>
  isPostgresUrl(index)
    ? Layer.unwrapEffect(Effect.map(postgres, (pg) => pg.layer({ url: index, machine })))
    : IndexSqlite.layer(index, { lock: { wait: importWait(), onWait: waitingForImport, watch } })

/**
 * How long an import waits for another process's import lock on a SQLite
 * index: `SESSION_INGEST_IMPORT_WAIT_SECONDS` (seconds, 0: not at all), else
 * 10 minutes. A value that is not a number `>= 0` is ignored (the default).
 */
export const importWait = (): Duration.Duration | undefined => {
  const v = process.env.SESSION_INGEST_IMPORT_WAIT_SECONDS
  if (v === undefined || v.trim() === "") return undefined
  const n = Number(v)
  return Number.isFinite(n) && n >= 0 ? Duration.millis(Math.round(n * 1000)) : undefined
}

/** What a run waiting for another process's import lock says on stderr (always, terminal or not: a user must know why nothing moves), one line. */
const waitingForImport = (holder: ImportLockHolder, wait: Duration.Duration) =>
  Effect.sync(() => {
    process.stderr.write(
      `session-ingest: ${describeHolder(holder)} is writing to this index; waiting for it to finish ` +
        `(up to ${Duration.format(wait)}, SESSION_INGEST_IMPORT_WAIT_SECONDS), then what it imported counts as unchanged.\n`
    )
  })

/**
 * `session-ingest index migrate`: bring the index's schema to this build's.
 * PostgreSQL through its migrator (the only command that changes its
 * schema; the database must exist, it is never created); a SQLite file is
 * opened for writing, which creates it when missing and migrates it. Answers
 * the index (shown without a password), whether it was created, the
 * migrations applied and the schema version reached.
 */
export const migrateIndex = (index: string) =>
  isPostgresUrl(index)
    ? Effect.map(Effect.flatMap(postgres, (pg) => pg.migrate(index)), (r) => ({ ...r, created: false }))
    : Effect.map(IndexSqlite.migrateFile(index), (r) => ({ index, ...r }))

/** `push` (`../layers/index/push.ts`), loaded when it runs (it loads the PostgreSQL client). */
export const pushIndex = (from: string, to: string, machine: string) =>
  Effect.flatMap(Effect.promise(() => withNodeNavigator(() => import("../layers/index/push.js"))), (p) => p.push(from, to, machine))

/** The machine an import's sources are keyed by in a PostgreSQL index: `--machine`, else the host name. */
export const machineOf = (given: Option.Option<string> | undefined): string =>
  (given !== undefined ? Option.getOrUndefined(given) : undefined) ?? os.hostname()

/** The config file an import read, and the paths it took from it (absolute), by key. */
export interface ConfigPaths {
  readonly file: string
  readonly paths: ReadonlyArray<{ readonly key: string; readonly path: string }>
}

/**
 * The remedy of a cause that concerns a path from the config file: say which
 * key names it, and that relative paths there are read from the config
 * file's folder (not the working directory). Other causes are left alone.
 */
export const withConfigRemedies = (report: ImportReport, config: ConfigPaths | undefined): ImportReport => {
  if (config === undefined) return report
  const causes = report.causes.map((c) => {
    const hit = config.paths.find((p) => c.path === p.path || c.problem.includes(p.path))
    if (hit === undefined) return c
    return {
      ...c,
      remedy: `Check "${hit.key}" in the config file ${config.file}: it names ${hit.path}, as relative paths in a config file are read from the config file's folder (${
        nodePath.dirname(config.file)
      }).`
    }
  })
  return { ...report, causes, remediations: causes.map(causeLine) }
}

/**
 * A report whose run named workspaces (`--workspace`, the config file's
 * `workspaces`) that are not folders: each one is a cause of partial
 * coverage (`WORKSPACE_NOT_FOUND`, its path, a remedy), so a typo in a daily
 * job never reads as "complete". A workspace authorizes Muse Code's export
 * files under it and selects native Muse Code sessions by their workspace
 * evidence (seed 001): nothing there can be read or matched, as with a
 * missing root (DESIGN.md: an authorized root that is missing is reported,
 * never taken as "nothing to import"). The working directory, the default
 * workspace, always exists. A workspace that a discovered source names
 * (`ImportReport.workspacesFound`: a native log naming it, even one rejected)
 * is no such cause. Other reports are returned as they are (without
 * `workspacesFound`, which is not printed).
 */
export const withMissingWorkspaces = (given: ImportReport, workspaces: ReadonlyArray<string>): ImportReport => {
  const { workspacesFound, ...report } = given
  // A workspace some discovered source names (itself or a folder in it), rejected or not, matched: the path is right
  // though it is not on this machine (the agent ran in a container), and a remedy to change it would mislead.
  const found = (w: string) => (workspacesFound ?? []).some((f) => f === w || f.startsWith(w.endsWith(nodePath.sep) ? w : w + nodePath.sep))
  const missing: Array<{ readonly path: string; readonly what: string }> = []
  for (const w of new Set(workspaces)) {
    if (found(w)) continue
    let what: string | undefined = "does not exist"
    try {
      const st = fs.statSync(w)
      what = st.isDirectory() ? undefined : isNotAFolder(notAFolderDetails(w, st.isFile() ? "file" : "other"))
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      what = code === "ENOENT" || code === "ENOTDIR" ? "does not exist" : `cannot be read (${code ?? "error"})`
    }
    if (what !== undefined) missing.push({ path: w, what })
  }
  if (missing.length === 0) return report
  const causes: Array<PartialCause> = [
    ...report.causes,
    ...missing.map((m) => ({
      provider: "muse-code" as const,
      code: "WORKSPACE_NOT_FOUND",
      path: m.path,
      problem: `The workspace ${m.path} ${m.what}: no Muse Code export under it can be read, and no native session matched to it.`,
      remedy: "Check the path given to --workspace (or the config file's \"workspaces\"): it should be the folder the agent worked in, not a file in it."
    }))
  ]
  return { ...report, coverage: "partial", causes, remediations: causes.map(causeLine) }
}

/**
 * `InvalidArgument` when an `import` argument (a positional setting's value, e.g. Muse Code's export files) is a
 * registered provider's name and no such file exists (tester33c F4: `import --claude-root X claude-code`, the habit of
 * every other command's `<provider>` argument, read `claude-code` as an export file: SOURCE_NOT_FOUND, coverage
 * partial, exit 8, for a run that imported every Claude Code source). The hint names the provider's own options, from
 * the registry.
 */
const providerNameGiven = (o: ImportOptions): Effect.Effect<void, InvalidArgument> =>
  Effect.gen(function*() {
    // A provider's name however it is cased or separated (`Claude-Code`, `claude_code`, `claudecode`, `claude-code/`:
    // tester34c F8), as no export file is named.
    const key = (v: string) => v.toLowerCase().replace(/[-_\s/\\.]/g, "")
    const providerOf = (v: string) => Registry.providerIds.find((p) => key(p) === key(v))
    for (const s of Registry.settings.filter((s) => s.positional === true)) {
      const given = givenValue(o[s.key])
      for (const v of typeof given === "string" ? [given] : given ?? []) {
        const p = providerOf(v)
        if (p === undefined || fs.existsSync(nodePath.resolve(v))) continue
        const own = Registry.settings.filter((x) => x.provider === p && x.positional !== true).map((x) => `--${x.flag} ${x.pseudo}`)
        const positional = Registry.settings.filter((x) => x.positional === true)
        const args = positional.map((x) => `${x.provider} ${x.pseudo}`)
        const files = positional.filter((x) => x.provider === p).map((x) => x.pseudo)
        const named = v === p ? p : `${v} (the provider ${p})`
        return yield* new InvalidArgument({
          message: `${named} is a provider name, and there is no file ${v} here: import takes no provider argument; its arguments are files (${
            args.join(", ")
          }), and it imports every provider whose sources it is given.`,
          remediation: `Leave out "${v}"${
            files.length > 0 ? `: give the ${p} files themselves as the arguments (import ${files.join(" ")}...)` : ""
          }${own.length > 0 ? `${files.length > 0 ? ", or its roots by" : `: ${p}'s sources are given by`} ${own.join(", ")} (or the config file)` : ""}; \`import --help\` lists them.`
        })
      }
    }
  })

/**
 * The policy, plan and index file of an import: options first, then the
 * config file, then defaults; and the config file's paths, for remedies.
 */
export const importSetup = (o: ImportOptions) =>
  Effect.gen(function*() {
    const c = yield* loadConfig(Option.getOrUndefined(o.config))
    const limits = yield* loadImportLimits(Option.getOrUndefined(o.config))
    const abs = (p: string) => nodePath.resolve(p)
    yield* providerNameGiven(o)
    const workspaces = [...o.workspace.map(abs), ...(c.workspaces ?? [])]
    // Each provider setting: the option's values then the config file's (lists), or the option over the config file's.
    const values: Record<string, ReadonlyArray<string> | string | undefined> = {}
    for (const s of Registry.settings) {
      const given = givenValue(o[s.key])
      const configured = c[s.configKey]
      values[s.key] = s.many
        ? [...((given ?? []) as ReadonlyArray<string>).map((p) => (s.path ? abs(p) : p)), ...((configured ?? []) as ReadonlyArray<string>)]
        : (given !== undefined ? (s.path ? abs(given as string) : given) : configured) ?? undefined
    }
    const pick = (target: "access" | "plan") =>
      Object.fromEntries(Registry.settings.filter((s) => s.target === target).map((s) => [s.key, values[s.key]]))
    const policy: AccessPolicyShape = withDefaults({ ...pick("access"), workspaceRoots: workspaces.length > 0 ? workspaces : [process.cwd()] })
    const plan: ImportPlan = ImporterLayer.planFromPolicy(policy, pick("plan"))
    const index = yield* indexOf(o.index, c)
    const file = Option.isSome(o.config) ? abs(o.config.value) : fs.existsSync(defaultConfigFile()) ? defaultConfigFile() : undefined
    // The paths this run took from the config file (a command-line option overrides a single one).
    const listed = (key: string) => ((c[key] ?? []) as ReadonlyArray<string>).map((p) => ({ key, path: p }))
    const taken = (key: string, p: ReadonlyArray<string> | string | null | undefined, used: unknown) =>
      typeof p === "string" && p === used ? [{ key, path: p }] : []
    const pathSettings = Registry.settings.filter((s) => s.path)
    const config: ConfigPaths | undefined = file === undefined ? undefined : {
      file,
      paths: [
        ...listed("workspaces"),
        ...pathSettings.filter((s) => s.many).flatMap((s) => listed(s.configKey)),
        ...pathSettings.filter((s) => !s.many).flatMap((s) => taken(s.configKey, c[s.configKey], values[s.key])),
        ...taken("index", c.index, index)
      ]
    }
    return { policy, plan, index, config, workspaces, limits }
  })

/** The layer of an import run: the library, the index (file or URL; `machine` keys a PostgreSQL index's sources), the importer, the progress display. */
export const importLayer = (policy: AccessPolicyShape, index: string, machine: string = os.hostname(), limits: Partial<ImportLimitsShape> = {}) =>
  ImporterLayer.layer.pipe(
    Layer.provideMerge(Layer.mergeAll(App.layer(policy, limits), writeIndexLayer(index, machine), ImportFaults.none, Progress.layer))
  )

/**
 * The layer of `import --watch` (`../layers/index/watch.ts`): as
 * {@link importLayer}, with the watch's memory as the importer's hooks, and
 * no progress bar (a round is a line).
 */
export const watchLayer = (policy: AccessPolicyShape, index: string, machine: string = os.hostname(), limits: Partial<ImportLimitsShape> = {}) => {
  const base = Layer.mergeAll(App.layer(policy, limits), writeIndexLayer(index, machine, true), ImportFaults.none, ImportProgress.silent)
  return ImporterLayer.layer.pipe(Layer.provideMerge(Watch.memoryLayer().pipe(Layer.provideMerge(base))))
}
