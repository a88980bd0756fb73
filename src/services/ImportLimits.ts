/**
 * Import limits: how much of a source the importer accepts before it fails
 * with `RESOURCE_LIMIT_EXCEEDED`. A swappable layer, so tests and embedding
 * applications can tighten or loosen them.
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/** The limits, in bytes and nesting levels. */
export interface ImportLimitsShape {
  /** Bytes of a whole-document source (an export trajectory, `sessions.json`). */
  readonly maxDocumentBytes: number
  /** Bytes of one line / record / decoded retained child of a line-oriented source, and of one event record of an export. */
  readonly maxRecordBytes: number
  /** Levels of JSON nesting (objects and arrays) of one document or record (seed 001: 64). */
  readonly maxDepth: number
  /**
   * Bytes up to which a line-oriented source read from its start is read
   * whole, in one read, and its events handed on at once (the fast path of
   * small logs); a larger one is streamed a step at a time (bounded memory).
   * 0: always stream. Default 1 MiB. Either way the events are the same.
   */
  readonly wholeReadBytes?: number | undefined
}

/**
 * Defaults: 256 MiB per document, 32 MiB per record (four times the discovery
 * budget's 8 MiB per record of seed 001), 64 levels of nesting (seed 001),
 * sources up to 1 MiB read whole.
 */
export const defaultImportLimits: ImportLimitsShape = {
  maxDocumentBytes: 256 * 1024 * 1024,
  maxRecordBytes: 32 * 1024 * 1024,
  maxDepth: 64,
  wholeReadBytes: 1024 * 1024
}

/** The import limits in force. */
export class ImportLimits extends Context.Tag("session-ingest/ImportLimits")<ImportLimits, ImportLimitsShape>() {
  /** The defaults, with any field overridden. */
  static layer = (overrides: Partial<ImportLimitsShape> = {}): Layer.Layer<ImportLimits> =>
    Layer.succeed(ImportLimits, { ...defaultImportLimits, ...overrides })
}
