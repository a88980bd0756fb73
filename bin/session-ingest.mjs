#!/usr/bin/env node
// The session-ingest CLI. Runs the bundled entry (dist/cli.cjs, built by
// `npm run build`, also on `npm ci`) with its V8 code cache when present
// (see run-bundle.mjs), else the TypeScript source via tsx.
import { existsSync } from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"
import { dirname, join } from "node:path"
import { runBundle } from "./run-bundle.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const bundled = join(root, "dist", "cli.cjs")
if (existsSync(bundled)) {
  runBundle(bundled)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import(pathToFileURL(join(root, "src", "cli", "main.ts")).href)
}
