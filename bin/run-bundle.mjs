// Runs the CLI bundle (dist/cli.cjs, one CommonJS file) with V8's code cache.
//
// Node 20 has no compile cache for modules (`module.enableCompileCache` came in
// Node 22.1), so the bundle is compiled here as a `vm.Script`, which accepts
// V8's cached data: the bytecode of every function a `--help` run compiled,
// written next to the bundle by `npm run build` (scripts/code-cache.mjs).
// Nothing is written at run time, so no cache folder is created on the user's
// machine.
//
// V8 rejects cached data made by another V8 or under other flags, but it
// checks the source only by its length, and a payload damaged in place can
// crash it. So the file starts with the sha256 of the bundle and the payload
// together, and is used only when that matches; otherwise the bundle compiles
// as usual, only slower.
import { isAscii } from "node:buffer"
import { createHash } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { setFlagsFromString } from "node:v8"
import { Script } from "node:vm"

const DIGEST_BYTES = 32

/** Where the code cache of `bundle` lives. */
export const cacheFileOf = (bundle) => `${bundle}.cache`

const digestOf = (source, payload) => createHash("sha256").update(source).update(payload).digest()

/** The cached data of `bundle` when the cache file is there and was made from this very bundle. */
const cachedDataOf = (bundle, source) => {
  let file
  try {
    file = readFileSync(cacheFileOf(bundle))
  } catch {
    return undefined
  }
  if (file.length <= DIGEST_BYTES) return undefined
  const payload = file.subarray(DIGEST_BYTES)
  return digestOf(source, payload).equals(file.subarray(0, DIGEST_BYTES)) ? payload : undefined
}

/**
 * Run the CommonJS `bundle` as Node would run it as a main module, with its
 * code cache when the cache fits. With `writeCacheTo`, the cache is not read;
 * the bytecode compiled during this run is written there when the process exits.
 */
export const runBundle = (bundle, writeCacheTo) => {
  // Let functions run ~4x longer before V8 considers optimizing them (default 67,584): --help
  // then queues far fewer optimizing compile jobs, which on a 2-core machine compete with it
  // for the CPU (measured: median 170 -> 125 ms), while the hot loops of long commands still
  // reach the budget within milliseconds (discovery of 10,000 logs, re-import and a 150 MiB
  // stream measured unchanged; 1,000,000 slowed discovery by ~10 %). Set before the bundle is
  // compiled, and the same when the build writes the cache: V8 keys the cache on its flags.
  try {
    setFlagsFromString("--interrupt-budget=300000")
  } catch {
    // a Node that freezes V8's flags: run with its defaults
  }
  const source = readFileSync(bundle)
  const cachedData = writeCacheTo === undefined ? cachedDataOf(bundle, source) : undefined
  // The wrapper starts on the bundle's first line, so line numbers in stack traces stay right. An ASCII
  // bundle (test/bundle-layout.test.ts checks that it is) is read as one byte a character, without
  // UTF-8 decoding; a non-ASCII one would become a string of two bytes a character, twice the memory.
  const text = isAscii(source) ? source.toString("latin1") : source.toString("utf8")
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${text}\n})`, {
    filename: bundle,
    cachedData
  })
  if (writeCacheTo !== undefined) {
    process.once("exit", () => {
      const payload = script.createCachedData()
      writeFileSync(writeCacheTo, Buffer.concat([digestOf(source, payload), payload]))
    })
  }
  const module = { exports: {}, filename: bundle, id: ".", loaded: false }
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle))
}
