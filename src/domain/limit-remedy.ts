/**
 * The remedy of a `RESOURCE_LIMIT_EXCEEDED`: which import limit to raise,
 * and where a user raises it (the config file's `limits`, read by
 * `import`; the `ImportLimits` layer in the library). Pure.
 *
 * @module
 */

/** The import limits a user can raise (`ImportLimitsShape` of `../services/ImportLimits.ts`). */
export type LimitName = "maxDocumentBytes" | "maxRecordBytes" | "maxDepth"

/**
 * `Raise limits.<limit> in the config file (…) <then>`: the sentence every
 * limit's error gives as its remediation. `then`: what follows (e.g. "only
 * if you trust the source.").
 */
export const raiseLimitRemedy = (limit: LimitName, then: string): string =>
  `Raise limits.${limit} in the config file (\`{"limits": {"${limit}": N}}\`, read by import; the ImportLimits layer in the library) ${then}`
