/**
 * A vitest reporter that closes the run with the plain line CI reads:
 * `Tests: N passed, N failed` (plus `, N skipped` when any were skipped).
 */
import type { Reporter, TestModule } from "vitest/node"

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
    const line = `Tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`
    // Printed at exit so that it is the run's last line, after vitest's own summary.
    process.once("exit", () => process.stdout.write(`\n${line}\n`))
  }
}
