/**
 * The esbuild options every bench probe bundle shares (`bench/run.ts`, the `ab-*.ts` scripts): one ESM file for
 * Node 20, better-sqlite3 left out (its native module is loaded from the checkout), `require` made for the
 * CommonJS modules bundled in.
 */
import type { BuildOptions } from "esbuild"

export const PROBE_BUILD: BuildOptions = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: ["better-sqlite3"],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: "warning"
}
