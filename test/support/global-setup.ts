/**
 * Before the tests: build the bundled CLI once, so CLI tests run what users
 * run. Skipped when dist/build-stamp.json (the build's last step) says dist/
 * was built from the current sources by this Node: `npm ci`'s `prepare` has
 * just built it in CI, and a build costs ~20 s of processor time. And give
 * the run a temporary folder of its own (`TMPDIR`, which `os.tmpdir()` reads
 * in the workers and the CLIs they start), removed at the end. Folders a
 * killed worker could not remove go with it.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { buildIsCurrent } from "../../scripts/build-stamp.mjs"
import { repoRoot } from "./paths.js"

export default function setup() {
  if (!buildIsCurrent()) execFileSync("npm", ["run", "--silent", "build"], { cwd: repoRoot, stdio: "inherit" })
  const runDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "si-run-")))
  process.env.TMPDIR = runDir
  return () => fs.rmSync(runDir, { recursive: true, force: true })
}
