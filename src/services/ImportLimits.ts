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
}

/**
 * Defaults: 256 MiB per document, 32 MiB per record (four times the discovery
 * budget's 8 MiB per record of seed 001), 64 levels of nesting (seed 001).
 */
export const defaultImportLimits: ImportLimitsShape = {
  maxDocumentBytes: 256 * 1024 * 1024,
  maxRecordBytes: 32 * 1024 * 1024,
  maxDepth: 64
}

/** The import limits in force. */
export class ImportLimits extends Context.Tag("session-ingest/ImportLimits")<ImportLimits, ImportLimitsShape>() {
  /** The defaults, with any field overridden. */
  static layer = (overrides: Partial<ImportLimitsShape> = {}): Layer.Layer<ImportLimits> =>
    Layer.succeed(ImportLimits, { ...defaultImportLimits, ...overrides })
}
