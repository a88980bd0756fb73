/**
 * The message between a scan and its workers (issue 13, `parallel-scan.ts`,
 * `scan-worker.ts`): scan one byte range of a zone's file in a private read
 * copy of a store, answered with the range's {@link RangeScan}.
 *
 * @module
 */
import * as Schema from "effect/Schema"
import { RangeScan } from "./range-scan.js"

/**
 * Scan `[start, end)` of the file `zoneId`/`name` (`size` bytes as listed)
 * of the SQLite database `filename` (session-ingest's own read copy of a
 * store, opened read-only), lines longer than `maxLineBytes` counted as
 * oversized. Fails with the reason as text when the copy cannot be read.
 */
export class ScanRangeRequest extends Schema.TaggedRequest<ScanRangeRequest>()("ScanRange", {
  failure: Schema.String,
  success: RangeScan,
  payload: {
    filename: Schema.String,
    zoneId: Schema.String,
    name: Schema.String,
    size: Schema.Number,
    start: Schema.Number,
    end: Schema.Number,
    maxLineBytes: Schema.Number
  }
}) {}
