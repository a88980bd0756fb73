/**
 * npm 12 runs a dependency's install script only when package.json's `allowScripts` names it (npm 11.16+ warns,
 * npm 12 blocks): better-sqlite3 compiles its native module and esbuild installs its binary there, so without an
 * approval a fresh `npm ci` on npm 12 leaves the index driver unbuilt. Every package the lock file marks
 * `hasInstallScript` must be decided in `allowScripts`, and the two the project needs must be allowed.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..")
const readJson = (name: string) => JSON.parse(readFileSync(join(root, name), "utf8"))

describe("install scripts (npm's allowScripts)", () => {
  const pkg = readJson("package.json") as { allowScripts?: Record<string, boolean> }
  const lock = readJson("package-lock.json") as { packages: Record<string, { hasInstallScript?: boolean }> }
  const withScripts = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript === true)
    .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length))

  it("better-sqlite3 and esbuild may run their install scripts", () => {
    expect(pkg.allowScripts?.["better-sqlite3"]).toBe(true)
    expect(pkg.allowScripts?.["esbuild"]).toBe(true)
  })

  it("every package of the lock file with an install script is allowed or denied by name", () => {
    expect(withScripts).toContain("better-sqlite3")
    const undecided = withScripts.filter((name) => typeof pkg.allowScripts?.[name] !== "boolean")
    expect(undecided).toEqual([])
  })
})
