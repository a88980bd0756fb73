/**
 * What the search-fold probes share (`probes/fts-fold.ts`, `probes/fold-hangul.ts`): `n` texts of the bench's text
 * pool (`generate/common.ts`), each read back from its JSON as an import reads a source's line (a flat string, one
 * byte a character when it is ASCII, not the pieces of a replace), and the processor time (user + system,
 * `process.cpuUsage`, ms) of a step, with the median of the rounds.
 */
import { textPool } from "../generate/common.js"

/** `t` as an import reads it: parsed from its JSON. */
export const asRead = (t: string): string => JSON.parse(JSON.stringify(t)) as string

/** `n` texts of the pool, as generated (most with a few non-ASCII characters), each {@link asRead}. */
export const mixedTexts = (n: number): Array<string> => {
  const pool = textPool(7, 2048, 40, 2000)
  return Array.from({ length: n }, (_, i) => asRead(pool[(i * 7919) % pool.length]))
}

/** The processor time of `f`, in ms. */
export const cpuMs = (f: () => void): number => {
  const a = process.cpuUsage()
  f()
  const b = process.cpuUsage(a)
  return (b.user + b.system) / 1000
}

/** The median of `xs` (the upper one of an even count). */
export const median = (xs: ReadonlyArray<number>): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
