import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts", "test/support/pg-global-setup.ts"],
    // One turn of the event loop between tests: a run of synchronous tests must not starve the worker's RPC.
    setupFiles: ["test/support/yield-between-tests.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ["default", "./test/support/summary-reporter.ts"]
  }
})
