#!/usr/bin/env node
// The session-ingest CLI. Runs the bundled entry (dist/cli.cjs, built by
// `npm run build`, also on `npm ci`) with its V8 code cache when present
// (see run-bundle.mjs), else the TypeScript source via tsx.
// First, and alone: a Ctrl-C while the CLI loads is remembered, not fatal (see
// early-signals.mjs). The rest is imported after it, so that its listener is
// installed before Node links anything else.
import "./early-signals.mjs"

const { existsSync } = await import("node:fs")
const { fileURLToPath, pathToFileURL } = await import("node:url")
const { dirname, join } = await import("node:path")

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const bundled = join(root, "dist", "cli.cjs")
const { cachedHelp } = await import("./help-cache.mjs")
const help = existsSync(bundled) ? cachedHelp(bundled, process.argv.slice(2), process.env, process.stdout) : undefined
if (help !== undefined) {
  const { writeHelp } = await import("./write-help.mjs")
  writeHelp(help)
} else if (existsSync(bundled)) {
  const { runBundle } = await import("./run-bundle.mjs")
  runBundle(bundled)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import(pathToFileURL(join(root, "src", "cli", "main.ts")).href)
}
