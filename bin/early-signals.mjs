// Imported first by bin/session-ingest.mjs. Until the CLI's runtime installs its own
// SIGINT / SIGTERM / SIGHUP handlers (after the bundle is loaded, ~100-200 ms), a signal would
// take Node's default action: the process dies at once, printing nothing, not even the
// `--json` envelope. This listener keeps the process alive and remembers the signal;
// src/cli/main.ts takes the listeners over and ends a run that was signalled before it
// started as interrupted (exit 130, the INTERRUPTED envelope or lines).
const state = {
  /** The first signal received before the runtime took over, if any. */
  signal: undefined,
  listener: (signal) => {
    state.signal ??= signal
  }
}
globalThis[Symbol.for("session-ingest.early-signal")] = state
process.on("SIGINT", state.listener)
process.on("SIGTERM", state.listener)
process.on("SIGHUP", state.listener)
