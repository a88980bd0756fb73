/**
 * A vitest reporter that closes the run with the plain line CI reads:
 * `Tests: N passed, N failed` (plus `, N skipped` when any were skipped),
 * and just before it the 15 slowest test files (wall time of the file:
 * importing it plus its tests and hooks, in seconds), so that every CI log
 * records where the time goes.
 */
import * as path from "node:path"
import type { Reporter, TestModule } from "vitest/node"

/** How many of the slowest test files are listed. */
const slowestShown = 15

/** The lines listing the slowest of `modules` (longest first), `import` being the time to import the file. */
export const slowestFiles = (modules: ReadonlyArray<TestModule>, root: string, n = slowestShown): Array<string> => {
  const rows = modules.map((m) => {
    const d = m.diagnostic()
    const load = d.prepareDuration + d.environmentSetupDuration + d.setupDuration + d.collectDuration
    return { file: path.relative(root, m.moduleId), total: load + d.duration, load, tests: d.duration }
  }).sort((a, b) => b.total - a.total).slice(0, n)
  if (rows.length === 0) return []
  const s = (ms: number) => (ms / 1000).toFixed(1)
  const width = Math.max(...rows.map((r) => s(r.total).length))
  return [
    `Slowest ${rows.length} test files (seconds: file = import + tests and hooks):`,
    ...rows.map((r) => `  ${s(r.total).padStart(width)} s  ${r.file}  (import ${s(r.load)} s, tests ${s(r.tests)} s)`)
  ]
}

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const m of testModules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state
        if (state === "passed") passed++
        else if (state === "failed") failed++
        else skipped++
      }
      if (m.state() === "failed" && [...m.children.allTests()].length === 0) failed++
    }
    const slowest = slowestFiles(testModules, process.cwd())
    const line = `Tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`
    // Printed at exit so that they come after vitest's own summary, the `Tests:` line last.
    process.once("exit", () => process.stdout.write(`\n${slowest.length > 0 ? `${slowest.join("\n")}\n\n` : ""}${line}\n`))
  }
}
