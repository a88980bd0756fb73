/**
 * The import engine: discover the authorized sources, and for each one
 * resume from its checkpoint.
 *
 * - An unchanged source (same size, mtime and file identity as when its
 *   current generation was read to the end) costs a stat.
 * - A changed one is streamed from its checkpoint cursor; the adapter refuses
 *   a cursor whose source was rewritten or replaced (`INVALID_CURSOR`), and
 *   then the source is imported as a new generation and the old one is marked
 *   superseded, never mixed.
 * - Events go in batches, each committed in one transaction with the cursor of
 *   its last event, so a killed process resumes where the last commit left.
 * - A source that fails is counted as rejected with its error code; the run goes on.
 *
 * Source: issue "The index".
 *
 * @module
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import type { Mutable } from "effect/Types"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { type IngestError, isIngestError, StoreUnavailable } from "../../domain/errors.js"
import { fingerprintOfStat } from "../../domain/fingerprint.js"
import { sourceKey } from "../../domain/index/ids.js"
import { HEAD_BYTES, headBinding, headBindingLength } from "../../domain/cursor.js"
import type { Locator, ProviderId } from "../../domain/model.js"
import type { AccessPolicyShape } from "../../services/AccessPolicy.js"
import { type CheckpointedSource, type CommittedBatch, Index, type SourceInfo } from "../../services/Index.js"
import {
  causeLine,
  ImportFaults,
  Importer,
  type ImportPlan,
  ImportProgress,
  type ImportReport,
  type PartialCause,
  type ProviderCoverage,
  type RejectedSource
} from "../../services/Importer.js"
import { type KnownSource, SessionSources } from "../../services/SessionSource.js"

/** The first `n` bytes of `path` (fewer when it is shorter), read without following a symlink; null when unreadable. */
const headOf = (path: string, n: number): Uint8Array | null => {
  let fd: number | undefined
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
    const buf = Buffer.alloc(n)
    return buf.subarray(0, n === 0 ? 0 : fs.readSync(fd, buf, 0, n, 0))
  } catch {
    return null
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/**
 * A part's entry in its source's fingerprint: `<folder>=<stat>#<head binding>`
 * (the cursors' {@link headBinding} of its first 4 KiB). A part stands for a
 * nested log streamed again from its start on each change, so its start is
 * what tells an append from a rewrite (see {@link rewrittenPart}).
 */
const partEntry = (p: string): string => {
  const name = nodePath.basename(nodePath.dirname(p))
  const st = fs.statSync(p, { throwIfNoEntry: false })
  if (st === undefined) return `${name}=gone`
  const head = headOf(p, HEAD_BYTES)
  return `${name}=${fingerprintOfStat(st)}#${head === null ? "unreadable" : headBinding(head, head.length)}`
}

/**
 * A source's fingerprint: size, mtime and identity of its file (and of a
 * SQLite `-wal` beside it, where appends land first, and of the other files
 * the adapter says the source is read from: `parts`, each with the digest of
 * its start). Null when the source is not a plain path (the adapter keeps its
 * own incremental state) or cannot be stat-ed (the stream will then report
 * the real error).
 */
export const fingerprintOf = (locator: Locator, parts: ReadonlyArray<string> = []): string | null => {
  if (locator.path === "") return null
  const part = (p: string) => {
    const st = fs.statSync(p, { throwIfNoEntry: false })
    return st === undefined ? null : fingerprintOfStat(st)
  }
  try {
    const main = part(locator.path)
    if (main === null) return null
    const wal = part(`${locator.path}-wal`)
    let fingerprint = wal === null ? main : `${main}+wal:${wal}`
    for (const p of parts) fingerprint += `+part:${partEntry(p)}`
    return fingerprint
  } catch {
    return null
  }
}

/**
 * The first part of a source whose imported start changed since `previous`
 * (its fingerprint when last read to the end): a nested log whose first
 * bytes, as many as were bound then, now differ or are gone. Such a part
 * was rewritten, not appended to, and the index would otherwise keep its old
 * events (they have the same ids). Undefined when every part only grew.
 */
export const rewrittenPart = (previous: string | null, parts: ReadonlyArray<string>): string | undefined => {
  if (previous === null) return undefined
  const byName = new Map(parts.map((p) => [nodePath.basename(nodePath.dirname(p)), p]))
  for (const entry of previous.split("+part:").slice(1)) {
    const m = /^(.+)=.*#(\d+:[0-9a-f]+)$/.exec(entry)
    if (m === null) continue
    const [, name, binding] = m
    const path = byName.get(name)
    const head = path === undefined ? null : headOf(path, headBindingLength(binding))
    if (head === null || headBinding(head, headBindingLength(binding)) !== binding) return name
  }
  return undefined
}

const resolveLocator = (locator: Locator): Locator =>
  locator.path === "" ? locator : { ...locator, path: nodePath.resolve(locator.path) }

/**
 * The plan an access policy implies: Muse Code native discovery when a
 * `--muse-root` is authorized, Muse agents always (their root has a default),
 * AgentMux for each `agents` UID, plus explicit export files.
 */
export const planFromPolicy = (
  policy: AccessPolicyShape,
  options: { readonly agents?: ReadonlyArray<string>; readonly exports?: ReadonlyArray<string>; readonly batchSize?: number }
): ImportPlan => ({
  discover: [
    ...(policy.museRoots.length > 0 ? [{ provider: "muse-code" as const, request: {}, configured: true }] : []),
    {
      provider: "muse-agents" as const,
      request: {},
      configured: policy.agentsRoot !== undefined || (process.env.MUSE_AGENTS_DIR ?? "") !== ""
    },
    ...[...new Set(options.agents ?? [])].map((agentId) => ({
      provider: "agentmux" as const,
      request: { agentId },
      configured: true,
      expectSources: true
    }))
  ],
  explicit: [...new Set((options.exports ?? []).map((p) => nodePath.resolve(p)))].map((p) => ({
    provider: "muse-code" as const,
    locator: { locatorClass: "manual-export" as const, path: p }
  })),
  skipped: [
    ...(policy.museRoots.length === 0
      ? [{ provider: "muse-code" as const, remediation: "Pass --muse-root DIR to include native Muse Code session logs." }]
      : []),
    ...((options.agents ?? []).length === 0
      ? [{ provider: "agentmux" as const, remediation: "Pass --agent UID (and --store FILE) to include an AgentMux agent's record." }]
      : [])
  ],
  batchSize: options.batchSize
})

type SourceOutcome =
  | { readonly _tag: "unchanged" }
  | { readonly _tag: "accepted"; readonly events: number; readonly newGeneration: boolean; readonly bytes: number }
  | { readonly _tag: "rejected"; readonly error: IngestError }

const make = Effect.gen(function*() {
  const registry = yield* SessionSources
  const index = yield* Index
  const faults = yield* ImportFaults
  const progress = yield* ImportProgress

  const importSource = (
    provider: ProviderId,
    rawLocator: Locator,
    summary: Record<string, unknown>,
    batchSize: number,
    checkpoints: ReadonlyMap<string, CheckpointedSource>,
    onBatch: (committed: CommittedBatch) => Effect.Effect<void>
  ): Effect.Effect<SourceOutcome, StoreUnavailable> =>
    Effect.gen(function*() {
      const adapter = yield* registry.get(provider)
      const locator = resolveLocator(rawLocator)
      const source: SourceInfo = { sourceKey: sourceKey(provider, locator), provider, locator, summary }
      const fingerprint = fingerprintOf(locator, adapter.parts?.(locator) ?? [])
      const checkpoint = Option.fromNullable(checkpoints.get(source.sourceKey))
      if (
        Option.isSome(checkpoint) && checkpoint.value.status === "complete" && fingerprint !== null &&
        checkpoint.value.fingerprint === fingerprint
      ) {
        return { _tag: "unchanged" } as const
      }
      let generation = Option.isSome(checkpoint) ? checkpoint.value.generation : 0
      let cursor = Option.isSome(checkpoint) ? checkpoint.value.cursor ?? undefined : undefined
      let newGeneration = false
      if (generation === 0) {
        generation = 1
        yield* index.beginGeneration(source, generation, "first import")
      } else if (Option.isSome(checkpoint)) {
        // A nested part rewritten (not appended to): its events would keep their ids, so start over.
        const rewritten = rewrittenPart(checkpoint.value.fingerprint, adapter.parts?.(locator) ?? [])
        if (rewritten !== undefined) {
          generation += 1
          newGeneration = true
          cursor = undefined
          yield* index.beginGeneration(source, generation, `the nested log ${rewritten} was rewritten`)
        }
      }
      // The source's own events are those of its first event's source id; a
      // Muse Code native log's nested logs follow with their own. The source
      // resumes after its own last event, and its nested logs are streamed
      // again from their start (the index ignores the events it has), so an
      // append to the log or to any nested log is never skipped.
      let ownSourceId = Option.isSome(checkpoint) ? checkpoint.value.sourceId : null
      const run = (from: string | undefined) =>
        adapter.stream(locator, { cursor: from, includeSubagents: true }).pipe(
          Stream.grouped(batchSize),
          Stream.runFoldEffect(0, (n, chunk) => {
            const events = [...chunk]
            ownSourceId ??= events[0].sourceId
            let resumeCursor: string | null = null
            for (const e of events) if (e.sourceId === ownSourceId) resumeCursor = e.cursor
            return index.commitBatch({ source, generation, events, resumeCursor }, faults.at).pipe(
              Effect.tap(onBatch),
              Effect.map((committed) => n + committed.events)
            )
          })
        )
      const inserted = yield* run(cursor).pipe(
        Effect.catchIf(
          (e): e is IngestError => isIngestError(e) && e.code === "INVALID_CURSOR" && cursor !== undefined,
          (e) =>
            Effect.gen(function*() {
              generation += 1
              newGeneration = true
              cursor = undefined
              yield* index.beginGeneration(source, generation, `the imported prefix changed: ${e.message}`)
              return yield* run(undefined)
            })
        ),
        Effect.either
      )
      if (inserted._tag === "Left") {
        const error = inserted.left
        if (error._tag === "StoreUnavailable") return yield* error
        yield* index.rejectSource(source, error.code, error.message)
        return { _tag: "rejected", error } as const
      }
      yield* index.completeSource(source, fingerprint)
      const bytes = fingerprint !== null ? Number(fingerprint.split(":")[0]) : 0
      return { _tag: "accepted", events: inserted.right, newGeneration, bytes } as const
    }).pipe(
      Effect.catchIf(
        (e): e is Exclude<typeof e, StoreUnavailable> => !(e instanceof StoreUnavailable),
        (error) => Effect.succeed({ _tag: "rejected", error } as const)
      )
    )

  const run = (plan: ImportPlan): Effect.Effect<ImportReport, StoreUnavailable> =>
    Effect.gen(function*() {
      const batchSize = plan.batchSize ?? 500
      const providers = new Map<ProviderId, Mutable<ProviderCoverage>>()
      const work: Array<{ provider: ProviderId; locator: Locator; summary: Record<string, unknown> }> = []
      const omittedByReason: Record<string, number> = {}
      const causes: Array<PartialCause> = []
      const partialProvider = (
        p: Mutable<ProviderCoverage>,
        code: string,
        problem: string,
        remedy: string | null,
        path: string | null = null
      ) => {
        p.coverage = "partial"
        p.reasonCode ??= code
        causes.push({ provider: p.provider, code, path, problem, remedy })
      }
      /** What a discovery's diagnostics say of `code` (the problem behind a reason code), else `fallback`. */
      const problemOf = (diagnostics: ReadonlyArray<{ readonly code: string; readonly message: string }>, code: string | null, fallback: string) =>
        diagnostics.find((d) => d.code === code)?.message ?? fallback

      const checkpoints = yield* index.checkpoints
      for (const entry of plan.discover) {
        const { provider, request } = entry
        const adapter = yield* Effect.either(registry.get(provider))
        if (adapter._tag === "Left") continue
        const known = new Map<string, KnownSource>()
        for (const c of checkpoints.values()) {
          if (c.provider === provider && c.status === "complete" && c.fingerprint !== null) {
            known.set(c.locator.path, { fingerprint: c.fingerprint, summary: c.summary })
          }
        }
        const report = yield* Effect.either(adapter.right.discover({ ...request, known }))
        if (report._tag === "Left") {
          const e = report.left
          const p = providers.get(provider) ?? { provider, status: "unavailable", coverage: "complete", sourceCount: 0, reasonCode: null, remediation: null, diagnostics: [] }
          p.status = "unavailable"
          p.remediation = e.remediation ?? null
          providers.set(provider, p)
          partialProvider(p, e.code, e.message, e.remediation ?? null)
          continue
        }
        const r = report.right
        const prior = providers.get(provider)
        const p: Mutable<ProviderCoverage> = prior ?? {
          provider,
          status: r.status,
          coverage: r.coverage,
          sourceCount: 0,
          reasonCode: r.reasonCode,
          remediation: r.remediation,
          diagnostics: []
        }
        providers.set(provider, p)
        if (prior !== undefined && r.status !== "checked") p.status = r.status
        p.sourceCount += r.sourceCount
        for (const [reason, n] of Object.entries(r.omitted ?? {})) {
          if (n <= 0) continue
          const omitted: Record<string, number> = { ...p.omitted }
          omitted[reason] = (omitted[reason] ?? 0) + n
          p.omitted = omitted
          omittedByReason[reason] = (omittedByReason[reason] ?? 0) + n
        }
        const kept = r.coverage === "partial" || r.status !== "checked" ? r.diagnostics : []
        p.diagnostics = [...p.diagnostics, ...kept]
        if (r.coverage === "partial") {
          partialProvider(p, r.reasonCode ?? "PARTIAL", problemOf(r.diagnostics, r.reasonCode, "Discovery covered only part of the sources."), r.remediation)
        } else if (entry.configured === true && r.status === "unavailable") {
          // A root or store the operator named explicitly is missing: a typo must not read as "complete".
          partialProvider(p, r.reasonCode ?? "UNAVAILABLE", problemOf(r.diagnostics, r.reasonCode, "What was named is unavailable."), r.remediation)
        } else if (entry.expectSources === true && r.sourceCount === 0) {
          partialProvider(
            p,
            "NO_SOURCES",
            `Nothing found for ${request.agentId !== undefined ? `agent ${request.agentId}` : "the request"}.`,
            "Check the id (and --store)."
          )
        }
        for (const s of r.sources) work.push({ provider, locator: s.locator, summary: s.summary })
      }
      for (const e of plan.explicit) {
        work.push({ provider: e.provider, locator: e.locator, summary: {} })
        const p = providers.get(e.provider) ?? {
          provider: e.provider,
          status: "checked",
          coverage: "complete",
          sourceCount: 0,
          reasonCode: null,
          remediation: null,
          diagnostics: []
        }
        p.sourceCount++
        providers.set(e.provider, p)
      }
      const notIncluded = plan.skipped

      yield* progress.start(work.length)
      let accepted = 0, unchanged = 0, eventsAdded = 0, sessionsAdded = 0, newGenerations = 0, bytes = 0, done = 0
      const rejected: Array<RejectedSource> = []
      const onBatch = (inserted: number) =>
        Effect.suspend(() => progress.update({ sourcesDone: done, totalSources: work.length, events: eventsAdded + inserted, bytes }))
      for (const w of work) {
        let inSource = 0
        const outcome = yield* importSource(w.provider, w.locator, w.summary, batchSize, checkpoints, (committed) => {
          inSource += committed.events
          // Counted as committed: a source rejected later keeps what it added, as the index does.
          sessionsAdded += committed.sessions
          return onBatch(inSource)
        })
        switch (outcome._tag) {
          case "unchanged":
            unchanged++
            break
          case "accepted":
            accepted++
            eventsAdded += outcome.events
            bytes += outcome.bytes
            if (outcome.newGeneration) newGenerations++
            break
          case "rejected": {
            const r: RejectedSource = {
              provider: w.provider,
              path: w.locator.path,
              code: outcome.error.code,
              message: outcome.error.message,
              remediation: outcome.error.remediation ?? null
            }
            rejected.push(r)
            const p = providers.get(w.provider)
            if (p !== undefined) {
              p.reasonCode ??= "SOURCES_REJECTED"
              partialProvider(p, r.code, r.message, r.remediation, r.path)
            }
          }
        }
        done++
        yield* progress.update({ sourcesDone: done, totalSources: work.length, events: eventsAdded, bytes })
      }
      yield* progress.end
      const rejectedByCode: Record<string, number> = {}
      for (const r of rejected) rejectedByCode[r.code] = (rejectedByCode[r.code] ?? 0) + 1
      const list = [...providers.values()]
      const partial = rejected.length > 0 || list.some((p) => p.coverage === "partial")
      return {
        coverage: partial ? "partial" : "complete",
        providers: list,
        notIncluded,
        sources: {
          discovered: work.length,
          accepted,
          unchanged,
          rejected: rejected.length,
          rejectedByCode,
          newGenerations,
          omitted: Object.values(omittedByReason).reduce((a, b) => a + b, 0),
          omittedByReason
        },
        sessionsAdded,
        eventsAdded,
        rejected,
        remediations: causes.map(causeLine),
        causes
      }
    })

  return { run }
})

/** Layer: the importer over the registry and the index in context. */
export const layer: Layer.Layer<Importer, never, SessionSources | Index | ImportFaults | ImportProgress> = Layer.effect(
  Importer,
  make
)

