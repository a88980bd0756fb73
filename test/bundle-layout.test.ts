/**
 * The start-up of a command (issue 13, item 5): a command pays only for what
 * it uses. The CLI bundle (`dist/cli.cjs`, one file) evaluates a module when
 * it is first imported, so what a command loads is the static closure of the
 * lazy module it imports (`src/cli/lazy.ts`). These tests read that closure
 * from esbuild's metafile of the bundle as `npm run build` makes it, and
 * check that the bundle is read as one byte a character (`bin/run-bundle.mjs`).
 */
import { isAscii } from "node:buffer"
import * as fs from "node:fs"
import * as path from "node:path"
import * as esbuild from "esbuild"
import { describe, expect, it } from "@effect/vitest"
import { repoRoot } from "./support/paths.js"

/** The bundle's metafile (same entry and options as the build line of package.json, not written). */
const metafile = async (): Promise<esbuild.Metafile> => {
  const r = await esbuild.build({
    entryPoints: [path.join(repoRoot, "src/cli/main.ts")],
    bundle: true,
    minify: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    outfile: path.join(repoRoot, "dist", "layout-check.cjs"),
    external: ["better-sqlite3"],
    logLevel: "silent",
    metafile: true,
    write: false,
    absWorkingDir: repoRoot
  })
  return r.metafile
}

/** The modules `entry` loads when it is evaluated: its static imports, transitively (not its dynamic ones). */
const closureOf = (meta: esbuild.Metafile, entry: string): Set<string> => {
  const seen = new Set([entry])
  const queue = [entry]
  while (queue.length > 0) {
    const file = meta.inputs[queue.shift()!]
    expect(file).toBeDefined()
    for (const i of file.imports) {
      if (i.external || (i.kind !== "import-statement" && i.kind !== "require-call")) continue
      if (!seen.has(i.path)) {
        seen.add(i.path)
        queue.push(i.path)
      }
    }
  }
  return seen
}

/** The heavy parts a command loads only when it uses them, by what they are. */
const HEAVY: Record<string, RegExp> = {
  "the index (SQLite)": /^src\/layers\/index\/sqlite\.ts$/,
  "the importer": /^src\/layers\/index\/importer\.ts$/,
  "the watch": /^src\/layers\/index\/watch\.ts$/,
  "the PostgreSQL client": /node_modules\/(pg|@effect\/sql-pg)\//,
  "MCP (@effect/ai, @effect/rpc)": /node_modules\/@effect\/(ai|rpc)\//,
  "the redaction rules": /^src\/domain\/redaction\/rules\.ts$/,
  "re2js": /node_modules\/re2js\//,
  "ATIF": /^src\/domain\/atif\.ts$/,
  "the replay renderer": /^src\/domain\/replay\/render\.ts$/,
  "the workers": /node_modules\/@effect\/platform(-node)?\/dist\/esm\/(internal\/)?[wW]orker\.js$/,
  "the error schemas": /^src\/domain\/errors\.ts$/
}

const loaded = (closure: Set<string>): Array<string> =>
  Object.entries(HEAVY).filter(([, re]) => [...closure].some((f) => re.test(f))).map(([name]) => name).sort()

describe("what a command loads at start-up", () => {
  it("the CLI's start-up (the command definitions) loads none of the heavy parts", async () => {
    const meta = await metafile()
    expect(loaded(closureOf(meta, "src/cli/main.ts"))).toEqual([])
  })

  it("each lazy part loads only what its commands use", async () => {
    const meta = await metafile()
    const parts: Record<string, Array<string>> = {
      // providers, discover, inspect, stream, transcript: the library's layer, no index.
      "src/cli/runtime-app.ts": ["the error schemas"],
      // sessions, search, show, usage (and mcp): the index read, nothing of import, redaction, ATIF or replay.
      "src/cli/runtime-query.ts": ["the error schemas", "the index (SQLite)"],
      // shareable outputs: the redaction rules (custom patterns are checked with re2js), not ATIF until export asks.
      "src/cli/runtime-share.ts": ["re2js", "the error schemas", "the redaction rules"]
    }
    for (const [entry, expected] of Object.entries(parts)) {
      expect([entry, loaded(closureOf(meta, entry))]).toEqual([entry, expected.sort()])
    }
  })

  it("each command imports the narrowest lazy part it needs", () => {
    const uses = (command: string) => {
      const text = fs.readFileSync(path.join(repoRoot, "src/cli/commands", `${command}.ts`), "utf8")
      const m = /import \{([^}]*)\} from "\.\.\/lazy\.js"/.exec(text)
      return (m?.[1] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "" && s !== "errors").sort()
    }
    expect(Object.fromEntries(["providers", "discover", "inspect", "stream", "transcript", "sessions", "search", "show", "usage", "mcp"].map((c) => [c, uses(c)])))
      .toEqual({
        providers: ["appRuntime"],
        discover: ["appRuntime"],
        inspect: ["appRuntime"],
        stream: ["appRuntime"],
        transcript: ["appRuntime", "shareRuntime"],
        sessions: ["queryRuntime"],
        search: ["queryRuntime"],
        show: ["queryRuntime", "shareRuntime"],
        // usage: the redaction only for --by workspace (tester35a F12), loaded then
        usage: ["queryRuntime", "shareRuntime"],
        mcp: ["queryRuntime", "shareRuntime"]
      })
  })
})

describe("the CLI bundle", () => {
  it("is ASCII, so that bin/run-bundle.mjs reads it as one byte a character", () => {
    const source = fs.readFileSync(path.join(repoRoot, "dist", "cli.cjs"))
    const at = source.findIndex((b) => b > 0x7f)
    expect(at < 0 ? "ascii" : source.subarray(Math.max(0, at - 60), at + 20).toString("utf8")).toBe("ascii")
    expect(isAscii(source)).toBe(true)
  })
})
