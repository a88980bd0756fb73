/**
 * Import a Claude Code root through the CLI (a new process), as the CLI tests
 * of the team index do: into `index` (a file or a `postgres://` URL), as
 * `machine` when given, with an empty agents root beside it; the run must
 * end complete (0) or partial (8).
 */
import { expect } from "@effect/vitest"
import { cli } from "./run.js"

export const importClaude = (
  index: string,
  claudeRoot: string,
  agentsRoot: string,
  env: Record<string, string>,
  machine?: string
): void => {
  const r = cli(["import", "--index", index, ...(machine !== undefined ? ["--machine", machine] : []), "--claude-root", claudeRoot, "--agents-root", agentsRoot, "--json"], { env })
  expect([0, 8], r.stderr).toContain(r.code)
}
