/**
 * Test helpers for native Muse Code logs: line builders of the three shapes
 * (seed 001, "Native log root"), a generator of sessions roots in a temp dir,
 * and the adapter under test layers.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterAll } from "vitest"
import { SourceNotAuthorized } from "../../src/domain/errors.js"
import { sha256Hex } from "../../src/domain/source-id.js"
import * as MuseCode from "../../src/layers/muse-code/adapter.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import { AccessPolicy, type AccessPolicyShape } from "../../src/services/AccessPolicy.js"
import { DiscoveryBudget, type DiscoveryBudgetShape } from "../../src/services/DiscoveryBudget.js"
import { ImportLimits, type ImportLimitsShape } from "../../src/services/ImportLimits.js"
import type { SessionSourceAdapter } from "../../src/services/SessionSource.js"
import { SourceAccess, type SourceAccessShape } from "../../src/services/SourceAccess.js"

export const SID = "11111111-1111-4111-8111-111111111111"
const T0 = 1790349213894901 // epoch µs, 2026-09-25

/** A record envelope line (JSON text, no newline). */
export const record = (
  sequence: number,
  payloadType: string,
  payload: Record<string, unknown> = {},
  streamId: string = SID
): Record<string, unknown> => ({
  schema_version: 1,
  id: `rec-${streamId.slice(0, 4)}-${sequence}`,
  stream: { kind: "session", id: streamId },
  sequence,
  recorded_at: T0 + sequence * 1000,
  record_type: "event",
  durability: "durable",
  causation_id: null,
  payload_type: payloadType,
  payload_schema_version: 1,
  payload
})

export const metadata = (seq: number, workspaceRoot: string, streamId?: string) =>
  record(seq, "runtime.session.metadata", { kind: "metadata", record: { workspace_root: workspaceRoot, model_id: "m" } }, streamId)
export const routeFacts = (seq: number, cwd: string, streamId?: string) =>
  record(seq, "runtime.session.route_facts", { kind: "route_facts", record: { cwd, pid: 1 } }, streamId)
export const branch = (seq: number, workspaceRoot: string, streamId?: string) =>
  record(seq, "session.workspace_branch.observed", {
    kind: "workspace_branch",
    record: { vcs: "git", workspace_root: workspaceRoot }
  }, streamId)
export const opened = (seq: number, streamId?: string) =>
  record(seq, "session.opened.observed", {
    kind: "session_opened",
    record: { session_id: streamId ?? SID, workspace_kind: "git", resume: false }
  }, streamId)
export const filler = (seq: number, streamId?: string) =>
  record(seq, "runtime.session", { event: { kind: "started", prompt: `step ${seq}` }, kind: "run" }, streamId)
export const end = (seq: number, streamId?: string) =>
  record(seq, "session.end", { kind: "session_end", record: { exit_reason: "clean" } }, streamId)
export const bound = (seq: number, childSessionId: string, subagentId: string, streamId?: string) =>
  record(seq, "subagent.control.child_session_bound", {
    kind: "subagent_control",
    record: { child_session_id: childSessionId, subagent_id: subagentId }
  }, streamId)

/** An omission marker line. */
export const omission = (sequence: number) => ({ omitted_record: true, retained_marker: "omitted_live_only", sequence })

/** A retained frame whose children are the given records (JSON-encoded). */
export const frame = (children: ReadonlyArray<Record<string, unknown> | string>, transactionId = "tx-1") => ({
  retained_frame: "session_permission_transaction",
  frame_schema_version: 1,
  outer_log_ordinal: 1,
  transaction_id: transactionId,
  children: children.map((c, i) => ({ child_index: i, record_json: typeof c === "string" ? c : JSON.stringify(c) })),
  content_sha256: "sha256:" + "0".repeat(64)
})

/** JSONL text of values (each line terminated), plus an optional raw tail (e.g. a torn line). */
export const jsonl = (values: ReadonlyArray<unknown>, tail = ""): string =>
  values.map((v) => (typeof v === "string" ? v : JSON.stringify(v)) + "\n").join("") + tail

/** A fresh temp folder, removed after the file's tests. */
export const tempDir = (prefix = "native-"): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix)))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Write `<root>/<rel>` (folders created). Answers the path. */
export const writeFile = (root: string, rel: string, text: string | Buffer): string => {
  const p = nodePath.join(root, rel)
  fs.mkdirSync(nodePath.dirname(p), { recursive: true })
  fs.writeFileSync(p, text)
  return p
}

/** Write a session log at `<root>/<date>/<id>/session.jsonl`. */
export const writeLog = (root: string, date: string, id: string, text: string): string =>
  writeFile(root, `${date}/${id}/session.jsonl`, text)

/** sha256 of a file's bytes. */
export const fileHash = (p: string): string => sha256Hex(fs.readFileSync(p))

/** Reads done through a recording access layer: [path, offset, length]. */
export type ReadLog = Array<readonly [string, number, number]>

/**
 * A SourceAccess test layer over the Node one: records every read, and fails
 * `open` (as unreadable) for paths that contain `unreadableMarker`.
 */
export const recordingAccess = (reads: ReadLog, unreadableMarker?: string): SourceAccessShape => ({
  ...sourceAccessNode,
  open: (file) =>
    unreadableMarker !== undefined && file.path.includes(unreadableMarker)
      ? Effect.fail(new SourceNotAuthorized({ message: `${file.path} is not readable (test layer).` }))
      : Effect.map(sourceAccessNode.open(file), (o) => ({
        ...o,
        read: (offset: number, length: number) => {
          reads.push([file.path, offset, length])
          return o.read(offset, length)
        }
      }))
})

/** The services of the adapter under test. */
export const testLayer = (opts: {
  readonly policy: Partial<AccessPolicyShape>
  readonly budget?: Partial<DiscoveryBudgetShape> | undefined
  readonly limits?: Partial<ImportLimitsShape> | undefined
  readonly access?: SourceAccessShape | undefined
}) =>
  Layer.mergeAll(
    AccessPolicy.layer(opts.policy),
    ImportLimits.layer(opts.limits ?? {}),
    Layer.succeed(SourceAccess, opts.access ?? sourceAccessNode),
    ...(opts.budget !== undefined ? [DiscoveryBudget.layer(opts.budget)] : [])
  )

/** The muse-code adapter built under {@link testLayer}. */
export const adapterWith = (opts: Parameters<typeof testLayer>[0]): Effect.Effect<SessionSourceAdapter> =>
  MuseCode.make.pipe(Effect.provide(testLayer(opts)))
