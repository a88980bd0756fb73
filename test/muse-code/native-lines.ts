/**
 * Line builders of the three native shapes (seed 001, "Native log root"):
 * record envelopes, omission markers, retained frames. No test-runner imports,
 * so scripts can use them too.
 */
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

