// Last step of `npm run build`: write dist/build-stamp.json, the hash of what
// the build read (src/, bin/, data/, scripts/, package.json, the lock file,
// tsconfig.json) and of the Node that ran it (the V8 code cache is Node's own).
// test/support/global-setup.ts builds again only when the stamp is missing or
// differs: `npm ci` (whose `prepare` builds) and a test run after it build once.
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..")

/** The file holding the stamp, under dist/. */
export const stampFile = join(root, "dist", "build-stamp.json")

const filesUnder = (dir) => {
  if (!existsSync(dir)) return []
  const out = []
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name)
    if (e.isDirectory()) out.push(...filesUnder(p))
    else if (e.isFile()) out.push(p)
  }
  return out
}

/** The hex SHA-256 of the build's inputs (paths and bytes, in a fixed order) and of Node's version and platform. */
export const buildInputsHash = () => {
  const h = createHash("sha256")
  h.update(`${process.version} ${process.platform} ${process.arch}\n`)
  const files = [
    ...["src", "bin", "data", "scripts"].flatMap((d) => filesUnder(join(root, d))),
    ...["package.json", "package-lock.json", "tsconfig.json"].map((f) => join(root, f)).filter((f) => existsSync(f))
  ].map((f) => relative(root, f)).sort()
  for (const f of files) {
    const bytes = readFileSync(join(root, f))
    h.update(`${f}\0${bytes.length}\0`)
    h.update(bytes)
  }
  return h.digest("hex")
}

/** Whether dist/ holds a build of the current inputs (its stamp matches). */
export const buildIsCurrent = () => {
  try {
    return JSON.parse(readFileSync(stampFile, "utf8")).inputs === buildInputsHash()
  } catch {
    return false
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(stampFile, `${JSON.stringify({ inputs: buildInputsHash() })}\n`)
}
