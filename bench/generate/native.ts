/**
 * Muse Code native `session.jsonl` logs for the benchmarks (seed 001, "Native
 * log root"): record envelopes, omission markers and retained transaction
 * frames whose children are JSON-encoded records, laid out as real sessions
 * are (a permission frame, metadata with `workspace_root`, route facts,
 * workspace branch, `session.opened`, then turns of prompts, tool intents and
 * outputs, approvals, model responses, and `session.end`).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { prng, textPool, uuidOf, Writer } from "./common.js"

const T0 = 1_790_349_213_894_901 // epoch µs, 2026-09-25

/** Builds the lines of one session, sequence by sequence. */
class SessionLines {
  seq = 0
  private us = T0
  private tx = 0
  constructor(readonly sessionId: string, private readonly r: ReturnType<typeof prng>, private readonly texts: ReadonlyArray<string>) {}

  private text(): string {
    return this.texts[Math.floor(this.r.next() * this.texts.length)]
  }

  envelope(payloadType: string, payload: Record<string, unknown>, causation: string | null = null): Record<string, unknown> {
    this.seq++
    this.us += this.r.int(50, 900_000)
    return {
      schema_version: 1,
      id: uuidOf(this.seq, 0xe0000 + (this.seq & 0xffff)),
      stream: { kind: "session", id: this.sessionId },
      sequence: this.seq,
      recorded_at: this.us,
      record_type: "event",
      durability: "durable",
      causation_id: causation,
      payload_type: payloadType,
      payload_schema_version: 1,
      payload
    }
  }

  record(payloadType: string, payload: Record<string, unknown>, causation: string | null = null): string {
    return JSON.stringify(this.envelope(payloadType, payload, causation))
  }

  omission(): string {
    this.seq++
    return JSON.stringify({ omitted_record: true, retained_marker: "omitted_live_only", sequence: this.seq })
  }

  frame(children: ReadonlyArray<Record<string, unknown>>): string {
    this.tx++
    return JSON.stringify({
      retained_frame: "session_permission_transaction",
      frame_schema_version: 1,
      outer_log_ordinal: this.tx,
      transaction_id: uuidOf(this.tx, 0x7a),
      children: children.map((c, i) => ({ child_index: i, record_json: JSON.stringify(c) })),
      content_sha256: "sha256:" + "c77d2b9886b8e6a54ae3bd07df5dc105".repeat(2)
    })
  }

  /** The opening lines: permission frame, then the workspace evidence (near the start), identity. */
  head(workspace: string): Array<string> {
    return [
      this.frame([
        this.envelope("runtime.session.permission_format_declared", { format: "profile_v1", schema_version: 1 }),
        this.envelope("runtime.session.permission_profile_committed", {
          actor: { id: null, kind: "runtime" },
          cause: "new_session_default",
          command: null,
          schema_version: 1
        })
      ]),
      this.record("runtime.session.metadata", {
        kind: "metadata",
        record: {
          build: { semver: "1.4.0", sha: "04f5eb2e6e" },
          model_id: "muse-spark-1.3",
          provider_id: "meta",
          tool_surface_version: "2",
          web_search_mode: "client",
          workspace_root: workspace
        }
      }),
      this.record("runtime.session.route_facts", { kind: "route_facts", record: { cwd: workspace, pid: 1438647 } }),
      this.record("session.workspace_branch.observed", {
        kind: "workspace_branch",
        record: { reference: { kind: "branch", name: "main" }, vcs: "git", workspace_root: workspace }
      }),
      this.record("session.opened.observed", {
        kind: "session_opened",
        record: { session_id: this.sessionId, workspace_kind: "git", resume: false, security_mode: "normal" }
      })
    ]
  }

  /** One turn: a prompt, 1-4 tool runs (some behind an approval), a model response, the run's end. */
  turn(): Array<string> {
    const r = this.r
    const runId = uuidOf(this.seq + 1, 0xa11)
    const out: Array<string> = []
    const prompt = this.text().slice(0, r.int(40, 400))
    out.push(this.record("runtime.command_intake.received", {
      kind: "command_intake",
      record: { command: { kind: "turn_submit", prompt }, command_id: runId }
    }, runId))
    out.push(this.record("runtime.session", { event: { kind: "started", prompt }, kind: "run", run_id: runId }))
    const tools = r.int(1, 4)
    for (let t = 0; t < tools; t++) {
      const action = `action-${this.seq}`
      if (r.next() < 0.2) {
        out.push(this.record("approval.review", {
          event: { action: "bash: rm -rf build_output.txt", choices: ["Allow once", "Always allow in this workspace", "Reject"], kind: "approval.review" },
          pending_action_id: action
        }, runId))
        out.push(this.record("decision_applied", {
          decision: "approved",
          decision_source: { context_digest: "sha256:" + "0123456789abcdef".repeat(4), kind: "llm_judge", params_version: 2, prompt_version: 1 },
          event: { kind: "decision_applied" },
          pending_action_id: action,
          policy_result: "allow"
        }, runId))
        out.push(this.record("approval_wait.effect.terminal", { outcome: "approved", pending_action_id: action }, runId))
      }
      out.push(this.record("side_effect_intent", {
        event: { kind: "side_effect_intent" },
        operation: r.pick(["tool:bash", "tool:read", "tool:edit", "tool:grep"]),
        pending_action_id: action,
        policy_decision: r.pick(["allow:policy", "allow:llm_judge"])
      }, runId))
      out.push(this.record("tool_batch.effect.started", { pending_action_id: action }, runId))
      out.push(this.record("tool_batch.effect.output", {
        kind: "tool_output",
        pending_action_id: action,
        record: { stream: "stdout", text: this.text(), truncated: false }
      }, runId))
      out.push(this.record("tool_batch.effect.terminal", { pending_action_id: action, record: { exit_code: 0 } }, runId))
      if (r.next() < 0.3) out.push(this.omission())
    }
    out.push(this.record("model.response.completed", {
      kind: "model_response",
      record: { model_id: "muse-spark-1.3", text: this.text(), usage: { input_tokens: r.int(100, 90000), output_tokens: r.int(10, 4000) } }
    }, runId))
    if (r.next() < 0.1) {
      out.push(this.frame([
        this.envelope("runtime.session.permission_profile_committed", {
          actor: { id: null, kind: "user" },
          cause: "approval_always_allow",
          command: "bash",
          schema_version: 1
        }),
        this.envelope("runtime.retained_fact", {
          kind: "retained_runtime_fact",
          record: { payload: {}, payload_schema_version: 1, payload_type: "top_level_turn.run_origin" },
          run_id: runId
        })
      ]))
    }
    out.push(this.record("runtime.session", {
      event: { kind: "terminal", terminal: "completed", turn_duration_ms: r.int(500, 90000) },
      kind: "run",
      run_id: runId
    }))
    return out
  }

  end(): string {
    return this.record("session.end", { kind: "session_end", record: { exit_reason: "clean", session_id: this.sessionId } })
  }
}

/**
 * Write one native log of at least `bytes` bytes (it ends on a whole turn and
 * `session.end`). Tool outputs and model texts are 200-6000 characters.
 * Answers { bytes, lines }.
 */
export const writeNativeLog = (
  path: string,
  bytes: number,
  workspace: string,
  seed = 1
): { bytes: number; lines: number; lastSequence: number } => {
  fs.mkdirSync(nodePath.dirname(path), { recursive: true })
  const r = prng(seed)
  const s = new SessionLines(uuidOf(seed, 0xb16), r, textPool(seed + 1, 512, 200, 6000))
  const w = new Writer(path)
  let lines = 0
  for (const l of s.head(workspace)) (w.line(l), lines++)
  while (w.bytes < bytes) for (const l of s.turn()) (w.line(l), lines++)
  w.line(s.end())
  w.close()
  return { bytes: w.bytes, lines: lines + 1, lastSequence: s.seq }
}

/**
 * Append whole turns of the same session, at least `bytes` bytes, to a log
 * written by {@link writeNativeLog} (sequences go on after `afterSequence`,
 * as a session that resumes). Answers the last sequence written.
 */
export const appendNativeTurns = (path: string, bytes: number, afterSequence: number, seed = 1): number => {
  const r = prng(seed * 7919 + afterSequence)
  const s = new SessionLines(uuidOf(seed, 0xb16), r, textPool(seed + 1, 512, 200, 6000))
  s.seq = afterSequence
  let text = ""
  while (Buffer.byteLength(text) < bytes) text += s.turn().join("\n") + "\n"
  fs.appendFileSync(path, text)
  return s.seq
}

/** `<root>/YYYY/MM/DD/<session-id>/session.jsonl` of session `i` (dates spread over 2026). */
export const nativeSessionPath = (root: string, i: number): string => {
  const day = i % 300
  const d = new Date(Date.UTC(2026, 0, 1) + day * 86_400_000)
  const p2 = (n: number) => String(n).padStart(2, "0")
  return nodePath.join(root, String(d.getUTCFullYear()), p2(d.getUTCMonth() + 1), p2(d.getUTCDate()), uuidOf(i, 0x5e5), "session.jsonl")
}

/**
 * A native sessions root of `count` small sessions (1-3 turns each, evidence
 * naming `workspace` on line 2), each with the usual sibling files a Muse
 * session folder holds. Answers { bytes, files }.
 */
export const writeNativeRoot = (root: string, count: number, workspace: string, seed = 7): { bytes: number; files: number } => {
  const r = prng(seed)
  const texts = textPool(seed + 1, 256, 60, 600)
  let bytes = 0
  for (let i = 0; i < count; i++) {
    const path = nativeSessionPath(root, i)
    fs.mkdirSync(nodePath.dirname(path), { recursive: true })
    const s = new SessionLines(uuidOf(i, 0x5e5), r, texts)
    const lines = s.head(workspace)
    const turns = r.int(1, 3)
    for (let t = 0; t < turns; t++) lines.push(...s.turn())
    lines.push(s.end())
    const text = lines.join("\n") + "\n"
    fs.writeFileSync(path, text)
    fs.writeFileSync(nodePath.join(nodePath.dirname(path), `cli-${uuidOf(i, 0xc1)}.log`), "hooks: loaded 0\nmcp: none\n")
    bytes += Buffer.byteLength(text)
  }
  return { bytes, files: count }
}

/**
 * Append one turn to session `i` of a root written by {@link writeNativeRoot}
 * (its own session id, sequences after the file's last): a session that
 * changed since it was imported. Answers the bytes appended.
 */
export const appendRootTurn = (root: string, i: number, seed = 11): number => {
  const path = nativeSessionPath(root, i)
  const lines = fs.readFileSync(path, "utf8").trimEnd().split("\n")
  const last = JSON.parse(lines[lines.length - 1]) as { sequence?: number }
  const s = new SessionLines(uuidOf(i, 0x5e5), prng(seed * 7919 + i), textPool(seed + 1, 64, 60, 600))
  s.seq = last.sequence ?? lines.length
  const text = s.turn().join("\n") + "\n"
  fs.appendFileSync(path, text)
  return Buffer.byteLength(text)
}
