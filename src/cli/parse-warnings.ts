/**
 * The parse warnings of a run for people, as `import` and `discover` print
 * them: one summary line (the lines skipped, in how many sources, by kind;
 * the lines kept with a part dropped or replaced, each kind said with what
 * happened: `KEPT_WARNING_KINDS`; the subagent files left out:
 * `FILE_WARNING_KINDS`), then the first sources with theirs.
 *
 * @module
 */
import type { DiscoveredSource } from "../domain/model.js"
import { counted } from "../domain/render.js"
import { FILE_WARNING_KINDS, isFileWarningKind, isKeptWarningKind, KEPT_WARNING_KINDS } from "../domain/warning-kinds.js"
import { type ParseWarningsReport, tallyParseWarnings } from "../services/Importer.js"

/** Sources listed under the parse-warning line (all of them are in `--json`). */
const MAX_WARNED_SOURCES = 5

/**
 * The lines for people of `w` (none when there is no warning): the summary
 * line indented by `indent`, each listed source two spaces further.
 */
export const parseWarningLines = (w: ParseWarningsReport, indent: string): Array<string> => {
  if (w.lines === 0 && w.files === 0) return []
  const bySource = new Map<string, Array<string>>()
  for (const i of w.items) {
    const key = `${i.provider} ${i.path}`
    bySource.set(key, [...(bySource.get(key) ?? []), `${i.kind} ${i.count}${i.firstLine !== null ? ` (first at line ${i.firstLine})` : ""}`])
  }
  const listed = [...bySource].slice(0, MAX_WARNED_SOURCES).map(([k, v]) => `${indent}  - ${k}: ${v.join(", ")}`)
  // Lines of the kept kinds (`usage-not-valid`, `invalid-utf8`, `unknown-block`, `timestamp-not-valid`) are read, their
  // events kept (only a part of the line dropped or replaced): never called skipped. The file kinds count files left
  // out (Claude Code's stray or empty subagent files), never lines.
  const entries = Object.entries(w.byKind)
  const keptEntries = entries.filter(([k]) => isKeptWarningKind(k))
  const fileEntries = entries.filter(([k]) => isFileWarningKind(k))
  const skippedEntries = entries.filter(([k]) => !isKeptWarningKind(k) && !isFileWarningKind(k))
  const keptLines = keptEntries.reduce((n, [, v]) => n + v, 0)
  const skipped = skippedEntries.reduce((n, [, v]) => n + v, 0)
  const kinds = (es: ReadonlyArray<[string, number]>) => es.map(([k, v]) => `${k} ${v}`).join(", ")
  const lines = (n: number) => `${n} line${n === 1 ? "" : "s"}`
  const keptClauses = keptEntries.map(([k, v]) => `${lines(v)} ${KEPT_WARNING_KINDS[k]!.kept} (${k} ${v}: ${KEPT_WARNING_KINDS[k]!.why})`)
  const inSources = `in ${w.sources} source${w.sources === 1 ? "" : "s"}`
  // Each noun counted apart ("3 subagent files left out (…)", "2 output.tsidx parts left out (…)").
  const byNoun = new Map<string, { noun: readonly [string, string]; n: number; kinds: Array<string> }>()
  for (const [k, v] of fileEntries) {
    const { noun, what } = FILE_WARNING_KINDS[k]!
    const e = byNoun.get(noun[0]) ?? byNoun.set(noun[0], { noun, n: 0, kinds: [] }).get(noun[0])!
    e.n += v
    e.kinds.push(`${k} ${v}: ${what}`)
  }
  const filesClause = [...byNoun.values()].map((e) => `${counted(e.n, e.noun[0], e.noun[1])} left out (${e.kinds.join("; ")})`)
  const summary = skipped > 0
    ? [`${lines(skipped)} skipped ${inSources} (${kinds(skippedEntries)}); the rest of each source was read`, ...keptClauses, ...filesClause].join("; ")
    : keptEntries.length === 1
    ? [`${lines(keptLines)} ${inSources} ${KEPT_WARNING_KINDS[keptEntries[0][0]]!.kept} (${keptEntries[0][0]} ${keptLines}: ${KEPT_WARNING_KINDS[keptEntries[0][0]]!.why}); every line was read`, ...filesClause].join("; ")
    : keptEntries.length > 1
    ? [`${lines(keptLines)} ${inSources} kept: ${keptClauses.join("; ")}; every line was read`, ...filesClause].join("; ")
    : `${filesClause.join("; ")} ${inSources}; every line was read`
  return [
    `${indent}parse warnings: ${summary}`,
    ...listed,
    ...(bySource.size > MAX_WARNED_SOURCES ? [`${indent}  … and ${counted(bySource.size - MAX_WARNED_SOURCES, "more source", "more sources")} (--json lists them all)`] : [])
  ]
}

/**
 * The parse warnings discovery counted in its sources' overviews
 * (`overview.parseWarnings`), summed as an import report sums them: lines,
 * sources with any, lines by kind, one item per source and kind.
 */
export const parseWarningsOfSources = (sources: ReadonlyArray<DiscoveredSource>): ParseWarningsReport =>
  tallyParseWarnings(sources.map((s) => ({ provider: s.provider, path: s.locator.path, warnings: s.overview.parseWarnings })))
