/**
 * Budgeted evidence scanning of a native Muse Code log, one physical line at
 * a time: the pure half of native discovery (seed `001_…`, "Native
 * discovery"). The scanner counts what it inspected against the discovery
 * budget, decodes retained-frame children, and hands back the workspace
 * evidence it saw, in order, each with the counts at the moment it was seen;
 * the caller resolves evidence paths (real paths need I/O) and stops at the
 * first match. No I/O here.
 *
 * @module
 */
import { isUtf8 } from "node:buffer"
import * as Either from "effect/Either"
import { at, isRecord, parseJson } from "../json.js"
import { classifyNativeLine, type EvidenceField, isRecordEnvelope, isSessionEnd, workspaceEvidenceOf } from "./native.js"

/**
 * Reason codes of a `museSourceInspections` receipt. Outcome `matched` has
 * `WORKSPACE_MATCHED`, `mismatch` has `WORKSPACE_MISMATCH`; every other code
 * is `inconclusive`: no evidence, a budget that ran out (which one), malformed
 * or truncated input, an unreadable source, a log in UTF-16 or UTF-32
 * (`NOT_UTF8`: told from its first bytes, `../text-encoding.ts`).
 */
export type InspectionReason =
  | "WORKSPACE_MATCHED"
  | "WORKSPACE_MISMATCH"
  | "NO_WORKSPACE_EVIDENCE"
  | "BUDGET_OUTER_RECORDS"
  | "BUDGET_RETAINED_CHILDREN"
  | "BUDGET_RECORD_BYTES"
  | "BUDGET_SOURCE_BYTES"
  | "BUDGET_NESTING_DEPTH"
  | "MALFORMED"
  | "TRUNCATED"
  | "UNREADABLE"
  | "NOT_UTF8"

/** Why a scan stopped before the end of the source without a match. */
export type StopReason = Exclude<InspectionReason, "WORKSPACE_MATCHED" | "WORKSPACE_MISMATCH" | "NO_WORKSPACE_EVIDENCE" | "UNREADABLE" | "NOT_UTF8">

/** What was inspected so far: outer lines, decoded children, source bytes (offset past the last line inspected). */
export interface ScanCounts {
  readonly records: number
  readonly children: number
  readonly bytes: number
}

/** The budget the scanner enforces (the fields of `DiscoveryBudget`). */
export interface ScanBudget {
  readonly maxOuterRecords: number
  readonly maxRetainedChildren: number
  readonly maxRecordBytes: number
  readonly maxSourceBytes: number
  readonly maxDepth: number
}

/** One physical line as `readLines` hands it on, plus whether the read was cut by the source-bytes budget. */
export interface ScanLine {
  readonly start: number
  readonly end: number
  readonly bytes: Buffer
  readonly terminated: boolean
  readonly oversized: boolean
  /** True when this unterminated line ends where the budget's byte cap cut the read (the file goes on). */
  readonly cutByBudget: boolean
}

/** A piece of workspace evidence, with where it was found and the counts at that moment. */
export interface EvidenceHit {
  readonly path: string
  readonly field: EvidenceField
  readonly inChild: boolean
  readonly counts: ScanCounts
}

/** The result of scanning one line: the evidence seen in it, and a stop reason if the scan must end. */
export interface LineScan {
  readonly evidence: ReadonlyArray<EvidenceHit>
  readonly stop: StopReason | null
}

/**
 * A stateful scanner over one source's lines. Order of checks per line: the
 * outer-record budget (before counting the line), the per-record byte budget,
 * the source-byte budget, a torn (unterminated) last line (`TRUNCATED`, or
 * `MALFORMED` after a `session.end`), UTF-8, JSON with the depth budget, the
 * line shape; then, for a frame, per child: the children budget, the
 * per-child byte budget, JSON with the depth budget, the envelope shape.
 */
export class EvidenceScanner {
  private records = 0
  private children = 0
  private bytes = 0
  /** True once any workspace evidence was seen. */
  evidenceSeen = false
  /** True once a `session.end` record was seen. */
  sessionEnd = false
  /** The first envelope `stream.id` seen, if any. */
  sessionId: string | null = null

  constructor(private readonly budget: ScanBudget) {}

  /** The counts so far. */
  counts(): ScanCounts {
    return { records: this.records, children: this.children, bytes: this.bytes }
  }

  private record(value: unknown, inChild: boolean, out: Array<EvidenceHit>): boolean {
    if (!isRecordEnvelope(value)) return false
    if (this.sessionId === null) {
      const id = at(value, "stream", "id")
      if (typeof id === "string") this.sessionId = id
    }
    if (isSessionEnd(value)) this.sessionEnd = true
    const ev = workspaceEvidenceOf(value)
    if (ev !== undefined) {
      this.evidenceSeen = true
      out.push({ path: ev.path, field: ev.field, inChild, counts: this.counts() })
    }
    return true
  }

  /** Scan one line (see the class doc for the order of checks). */
  scan(line: ScanLine): LineScan {
    const b = this.budget
    const evidence: Array<EvidenceHit> = []
    const stop = (reason: StopReason): LineScan => ({ evidence, stop: reason })
    if (this.records >= b.maxOuterRecords) return stop("BUDGET_OUTER_RECORDS")
    if (line.oversized || line.bytes.length > b.maxRecordBytes) return stop("BUDGET_RECORD_BYTES")
    if (line.cutByBudget || line.end > b.maxSourceBytes) return stop("BUDGET_SOURCE_BYTES")
    if (!line.terminated) return stop(this.sessionEnd ? "MALFORMED" : "TRUNCATED")
    if (!isUtf8(line.bytes)) return stop("MALFORMED")
    const parsed = parseJson(line.bytes.toString("utf8"), b.maxDepth)
    if (parsed._tag === "error") return stop(parsed.problem._tag === "depth" ? "BUDGET_NESTING_DEPTH" : "MALFORMED")
    const shape = classifyNativeLine(parsed.value)
    if (Either.isLeft(shape)) return stop("MALFORMED")
    this.records++
    this.bytes = line.end
    switch (shape.right._tag) {
      case "omission":
        return { evidence, stop: null }
      case "record":
        return this.record(shape.right.value, false, evidence) ? { evidence, stop: null } : stop("MALFORMED")
      case "frame": {
        for (const child of shape.right.frame.children) {
          if (this.children >= b.maxRetainedChildren) return stop("BUDGET_RETAINED_CHILDREN")
          if (Buffer.byteLength(child.record_json, "utf8") > b.maxRecordBytes) return stop("BUDGET_RECORD_BYTES")
          const c = parseJson(child.record_json, b.maxDepth)
          if (c._tag === "error") return stop(c.problem._tag === "depth" ? "BUDGET_NESTING_DEPTH" : "MALFORMED")
          if (!isRecord(c.value)) return stop("MALFORMED")
          this.children++
          if (!this.record(c.value, true, evidence)) return stop("MALFORMED")
        }
        return { evidence, stop: null }
      }
    }
  }
}
