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

/** One physical line as `readLines` hands it on (see {@link EvidenceScanner.scan} for whether the budget cut it). */
export interface ScanLine {
  readonly start: number
  readonly end: number
  readonly bytes: Buffer
  readonly terminated: boolean
  readonly oversized: boolean
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

  /**
   * Check one record envelope (an outer line's or a decoded child's): its session id, `session.end`, and its workspace
   * evidence, appended to `out` (a new array when `out` is the shared empty one). Answers the evidence so far, or
   * undefined when `value` is no record envelope (malformed).
   */
  private record(value: unknown, inChild: boolean, out: ReadonlyArray<EvidenceHit>): ReadonlyArray<EvidenceHit> | undefined {
    if (!isRecordEnvelope(value)) return undefined
    if (this.sessionId === null) {
      const id = at(value, "stream", "id")
      if (typeof id === "string") this.sessionId = id
    }
    if (isSessionEnd(value)) this.sessionEnd = true
    const ev = workspaceEvidenceOf(value)
    if (ev === undefined) return out
    this.evidenceSeen = true
    const hit: EvidenceHit = { path: ev.path, field: ev.field, inChild, counts: this.counts() }
    if (out === NO_EVIDENCE) return [hit]
    ;(out as Array<EvidenceHit>).push(hit)
    return out
  }

  /**
   * Scan one line (see the class doc for the order of checks). `cutByBudget`: this unterminated line ends where the
   * budget's byte cap cut the read (the file goes on).
   */
  scan(line: ScanLine, cutByBudget: boolean): LineScan {
    const b = this.budget
    if (this.records >= b.maxOuterRecords) return stopped("BUDGET_OUTER_RECORDS", NO_EVIDENCE)
    if (line.oversized || line.bytes.length > b.maxRecordBytes) return stopped("BUDGET_RECORD_BYTES", NO_EVIDENCE)
    if (cutByBudget || line.end > b.maxSourceBytes) return stopped("BUDGET_SOURCE_BYTES", NO_EVIDENCE)
    if (!line.terminated) return stopped(this.sessionEnd ? "MALFORMED" : "TRUNCATED", NO_EVIDENCE)
    if (!isUtf8(line.bytes)) return stopped("MALFORMED", NO_EVIDENCE)
    const parsed = parseJson(line.bytes.toString("utf8"), b.maxDepth)
    if (parsed._tag === "error") return stopped(parsed.problem._tag === "depth" ? "BUDGET_NESTING_DEPTH" : "MALFORMED", NO_EVIDENCE)
    const shape = classifyNativeLine(parsed.value)
    if (Either.isLeft(shape)) return stopped("MALFORMED", NO_EVIDENCE)
    this.records++
    this.bytes = line.end
    switch (shape.right._tag) {
      case "omission":
        return GO_ON
      case "record": {
        const evidence = this.record(shape.right.value, false, NO_EVIDENCE)
        return evidence === undefined ? stopped("MALFORMED", NO_EVIDENCE) : evidence === NO_EVIDENCE ? GO_ON : { evidence, stop: null }
      }
      case "frame": {
        let evidence: ReadonlyArray<EvidenceHit> = NO_EVIDENCE
        for (const child of shape.right.frame.children) {
          if (this.children >= b.maxRetainedChildren) return stopped("BUDGET_RETAINED_CHILDREN", evidence)
          if (Buffer.byteLength(child.record_json, "utf8") > b.maxRecordBytes) return stopped("BUDGET_RECORD_BYTES", evidence)
          const c = parseJson(child.record_json, b.maxDepth)
          if (c._tag === "error") return stopped(c.problem._tag === "depth" ? "BUDGET_NESTING_DEPTH" : "MALFORMED", evidence)
          if (!isRecord(c.value)) return stopped("MALFORMED", evidence)
          this.children++
          const next = this.record(c.value, true, evidence)
          if (next === undefined) return stopped("MALFORMED", evidence)
          evidence = next
        }
        return evidence === NO_EVIDENCE ? GO_ON : { evidence, stop: null }
      }
    }
  }
}

/** The evidence of a line without any (shared: never written to). */
const NO_EVIDENCE: ReadonlyArray<EvidenceHit> = Object.freeze([])

/** A line that neither settles nor stops the scan (shared). */
const GO_ON: LineScan = Object.freeze({ evidence: NO_EVIDENCE, stop: null })

/** A stop, with the evidence seen on its line before it. */
const stopped = (reason: StopReason, evidence: ReadonlyArray<EvidenceHit>): LineScan => ({ evidence, stop: reason })
