// Runs the CLI bundle (dist/cli.cjs, one CommonJS file) with V8's code cache.
//
// Node 20 has no compile cache for modules (`module.enableCompileCache` came in
// Node 22.1), so the bundle is compiled here as a `vm.Script`, which accepts
// V8's cached data: the bytecode of every function a `--help` run compiled,
// written next to the bundle by `npm run build` (scripts/code-cache.mjs). V8
// checks the data against its own version, its flags and the source, and
// rejects what does not fit (another Node, other V8 flags, a rebuilt bundle);
// the bundle then compiles as usual, only slower. Nothing is written at run
// time, so no cache folder is created on the user's machine.
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { Script } from "node:vm"

/** Where the code cache of `bundle` lives. */
export const cacheFileOf = (bundle) => `${bundle}.cache`

/**
 * Run the CommonJS `bundle` as Node would run it as a main module, with the
 * code cache beside it when V8 accepts it. With `writeCacheTo`, the cache is
 * not read; the bytecode compiled during this run is written there when the
 * process exits.
 */
export const runBundle = (bundle, writeCacheTo) => {
  const source = readFileSync(bundle, "utf8")
  let cachedData
  if (writeCacheTo === undefined) {
    try {
      cachedData = readFileSync(cacheFileOf(bundle))
    } catch {
      // no cache: compile as usual
    }
  }
  // The wrapper starts on the bundle's first line, so line numbers in stack traces stay right.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    cachedData
  })
  if (writeCacheTo !== undefined) process.once("exit", () => writeFileSync(writeCacheTo, script.createCachedData()))
  const module = { exports: {}, filename: bundle, id: ".", loaded: false }
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle))
}
