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
/**
 * The peer project's Muse Code fixtures (read-only; the product must handle
 * them, the project does not copy them): `$SESSION_INGEST_PEER_FIXTURES`, else
 * `shared/peer-fixtures/muse-code` in the nearest folder above the checkout
 * that has one (CI and the project's worktrees keep `shared/` there). When
 * none is found the peer tests fail and say so.
 */
export const peerMuseCode = ((): string => {
  const fromEnv = process.env.SESSION_INGEST_PEER_FIXTURES
  if (fromEnv !== undefined && fromEnv !== "") return path.resolve(fromEnv)
  for (let dir = path.dirname(repoRoot); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "shared", "peer-fixtures", "muse-code")
    if (fs.existsSync(candidate)) return candidate
    if (path.dirname(dir) === dir) break
  }
  const wanted = path.resolve(repoRoot, "..", "shared", "peer-fixtures", "muse-code")
  process.stderr.write(
    `session-ingest tests: the peer fixtures were not found (looked for shared/peer-fixtures/muse-code above ${repoRoot}); ` +
      `set SESSION_INGEST_PEER_FIXTURES to their folder. The peer-fixture tests will fail.\n`
  )
  return wanted
})()

/** The temporary folders to remove at exit (one exit listener for them all). */
const made = new Set<string>()
let listening = false

/** A fresh temporary folder (real path), removed at process exit. */
export const tempDir = (prefix = "si-test-"): string => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  made.add(dir)
  if (!listening) {
    listening = true
    process.on("exit", () => {
      for (const d of made) fs.rmSync(d, { recursive: true, force: true })
    })
  }
  return dir
}

const hashCache = new Map<string, string>()

/** sha256 of a file, read in 8 MiB steps; digests of files over 1 MiB are cached by identity, size, mtime and ctime. */
export const hashFile = (p: string): string => {
  const st = fs.statSync(p, { bigint: true })
  const key = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`
  const hit = hashCache.get(key)
  if (hit !== undefined) return hit
  const h = crypto.createHash("sha256")
  const fd = fs.openSync(p, "r")
  try {
    const buf = Buffer.allocUnsafe(8 * 1024 * 1024)
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null)
      if (n === 0) break
      h.update(buf.subarray(0, n))
    }
  } finally {
    fs.closeSync(fd)
  }
  const digest = h.digest("hex")
  if (st.size > 1024 * 1024) hashCache.set(key, digest)
  return digest
}

/**
 * Every entry below `dir` (not following symlinks): files by size and sha256,
 * symlinks by target, folders as such; a file given as `dir` by its digest.
 * Equal snapshots before and after a read prove the sources were not touched
 * and nothing was created beside them.
 */
export const snapshotTree = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name)
      const rel = path.relative(dir, p)
      const st = fs.lstatSync(p)
      if (st.isSymbolicLink()) out[rel] = `symlink:${fs.readlinkSync(p)}`
      else if (st.isDirectory()) {
        out[rel] = "dir"
        walk(p)
      } else if (st.isFile()) out[rel] = `file:${st.size}:${hashFile(p)}`
      else out[rel] = "other"
    }
  }
  if (fs.lstatSync(dir).isDirectory()) walk(dir)
  else out["."] = `file:${hashFile(dir)}`
  return out
}

/** An empty folder `name` in `dir` (made if missing): a root given to `import` to read nothing from a provider. */
export const emptyFolder = (dir: string, name = "none"): string => {
  const p = path.join(dir, name)
  fs.mkdirSync(p, { recursive: true })
  return p
}

/**
 * A Claude Code projects root in `dir` (`<dir>/claude-empty`) holding one project folder named like an encoded cwd
 * (`-home-u-t`) and no session log: a named root read as complete with 0 sources (a folder of other folders, such as
 * an agents root, is a wrong root since session 36: CLAUDE_ROOT_EMPTY, partial).
 */
export const emptyClaudeRoot = (dir: string): string => {
  const root = path.join(dir, "claude-empty")
  fs.mkdirSync(path.join(root, "-home-u-t"), { recursive: true })
  return root
}
