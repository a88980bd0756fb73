// Step of `npm run build`: write the V8 code cache of dist/cli.cjs
// (dist/cli.cjs.cache, read by bin/run-bundle.mjs) by running the bundle once
// as `session-ingest --help` in a child process, its output discarded. The
// cache holds the bytecode of what start-up and help compile; V8 rejects it
// under another Node or other V8 flags, and the CLI then compiles as usual.
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { cacheFileOf, runBundle } from "../bin/run-bundle.mjs"

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..")
const bundle = join(root, "dist", "cli.cjs")

if (process.argv[2] === "--child") {
  process.argv = [process.argv[0], join(root, "bin", "session-ingest.mjs"), "--help"]
  runBundle(bundle, cacheFileOf(bundle))
} else {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"]
  })
  if (r.status !== 0) {
    process.stderr.write(`code-cache: the bundle's --help run failed (exit ${r.status ?? r.signal}); no code cache written.\n`)
    process.exit(1)
  }
}
