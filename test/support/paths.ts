/** Paths shared by the tests. */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
/** The bundled fixtures. */
export const fixturesDir = path.join(repoRoot, "fixtures")
/** The peer project's Muse Code fixtures (read-only, beside the project). */
export const peerMuseCode = path.resolve(repoRoot, "..", "shared", "peer-fixtures", "muse-code")

/** A fresh temporary folder (real path), removed at process exit. */
export const tempDir = (prefix = "si-test-"): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** sha256 of every file below `dir` (relative path → digest), to prove sources are untouched. */
export const snapshotTree = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.isFile()) {
        const h = crypto.createHash("sha256").update(fs.readFileSync(p)).digest("hex")
        out[path.relative(dir, p)] = h
      } else out[path.relative(dir, p)] = e.isSymbolicLink() ? `symlink:${fs.readlinkSync(p)}` : "other"
    }
  }
  walk(dir)
  return out
}

