/**
 * The discovery inspection budget of Muse Code native discovery: how much of
 * each candidate `session.jsonl` discovery may read while looking for
 * workspace evidence. A swappable layer, so tests and embedding applications
 * can tighten or loosen it. It bounds discovery only; import validates the
 * full history under {@link ImportLimits} instead (seed `001_…`, "Native
 * discovery").
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/** The budget, per candidate source, in records, bytes and nesting levels. */
export interface DiscoveryBudgetShape {
  /** Outer lines (record envelopes, retained frames, omission markers) inspected per source. Seed: 10,000. */
  readonly maxOuterRecords: number
  /** Retained-frame children decoded per source. Seed: 10,000. */
  readonly maxRetainedChildren: number
  /** Bytes of one outer line, or of one decoded child's `record_json`. Seed: 8 MiB. */
  readonly maxRecordBytes: number
  /** Bytes of source read per source. Seed: 32 MiB. */
  readonly maxSourceBytes: number
  /** Levels of JSON nesting (objects and arrays) of one outer line or decoded child. Seed: 64. */
  readonly maxDepth: number
}

/**
 * The seed's defaults: 10,000 outer records, 10,000 retained children, 8 MiB
 * per outer record or decoded child, 32 MiB of source bytes, 64 levels of
 * nesting (seed `001_…`, "Native discovery").
 */
export const defaultDiscoveryBudget: DiscoveryBudgetShape = {
  maxOuterRecords: 10_000,
  maxRetainedChildren: 10_000,
  maxRecordBytes: 8 * 1024 * 1024,
  maxSourceBytes: 32 * 1024 * 1024,
  maxDepth: 64
}

/**
 * The discovery budget in force. The Muse Code adapter reads it when present
 * and falls back to {@link defaultDiscoveryBudget} otherwise, so the library
 * layer needs no change to use the defaults.
 */
export class DiscoveryBudget extends Context.Tag("session-ingest/DiscoveryBudget")<DiscoveryBudget, DiscoveryBudgetShape>() {
  /** The defaults, with any field overridden. */
  static layer = (overrides: Partial<DiscoveryBudgetShape> = {}): Layer.Layer<DiscoveryBudget> =>
    Layer.succeed(DiscoveryBudget, { ...defaultDiscoveryBudget, ...overrides })
}
