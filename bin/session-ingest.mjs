#!/usr/bin/env node
// The session-ingest CLI. Runs the bundled entry (dist/cli.mjs, built by
// `npm run build`, also on `npm ci`) when present, else the TypeScript source via tsx.
import { existsSync } from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"
import { dirname, join } from "node:path"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const bundled = join(root, "dist", "cli.mjs")
if (existsSync(bundled)) {
  await import(pathToFileURL(bundled).href)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import(pathToFileURL(join(root, "src", "cli", "main.ts")).href)
}
