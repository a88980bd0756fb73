/**
 * Help rendered at build time (issue 13, cold start): `--help` and
 * `<command> --help` print the text the CLI itself renders, from
 * `dist/cli.cjs.help.json`, without loading the CLI; the cache is used only
 * for a plain help request, only when it was made from the bundle that is
 * there, and only where its 80-column layout is the one the CLI would print.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { cachedHelp } from "../bin/help-cache.mjs"
import { repoRoot, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const bundle = path.join(repoRoot, "dist", "cli.cjs")
/** The bundle's own rendering, the CLI loaded in full. */
const rendered = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [bundle, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "", FORCE_COLOR: "", ...env } }).stdout

const pipe = { isTTY: false }
const NAMES = ["", "providers", "discover", "inspect", "stream", "transcript", "import", "sessions", "show", "export"]

describe("help rendered at build time", () => {
  it("holds the program's and every command's help, plain and coloured, as the CLI renders them", () => {
    const cache = JSON.parse(fs.readFileSync(`${bundle}.help.json`, "utf8")) as { help: Record<string, { plain: string; color: string }> }
    expect(Object.keys(cache.help)).toEqual(expect.arrayContaining(NAMES))
    for (const name of Object.keys(cache.help)) {
      const args = name === "" ? ["--help"] : [name, "--help"]
      expect(cache.help[name].plain).toBe(rendered(args))
      expect(cache.help[name].color).toBe(rendered(args, { FORCE_COLOR: "1" }))
      expect(cache.help[name].plain).toContain("USAGE")
    }
  })

  it("the CLI prints it for -h, --help, <command> --help and no arguments; exit 0", () => {
    for (const args of [["--help"], ["-h"], [], ["show", "--help"], ["--help", "import"], ["stream", "-h"]]) {
      const r = cli(args, { env: { NO_COLOR: "", FORCE_COLOR: "" } })
      const expected = rendered(args.length === 0 ? ["--help"] : args)
      expect([r.code, r.stdout]).toEqual([0, expected])
    }
  })

  it("is not used for anything but a plain help request, for a narrow terminal, or for another bundle", () => {
    const dir = tempDir()
    const b = path.join(dir, "cli.cjs")
    fs.writeFileSync(b, "// a bundle")
    const st = fs.statSync(b)
    const help = { "": { plain: "TOP\n", color: "\u001b[1mTOP\u001b[0m\n" }, show: { plain: "SHOW\n", color: "C-SHOW\n" } }
    fs.writeFileSync(`${b}.help.json`, JSON.stringify({ bundle: { size: st.size, mtimeMs: st.mtimeMs }, help }))
    expect(cachedHelp(b, ["--help"], {}, pipe)).toBe("TOP\n")
    expect(cachedHelp(b, [], {}, pipe)).toBe("TOP\n")
    expect(cachedHelp(b, ["show", "-h"], {}, pipe)).toBe("SHOW\n")
    expect(cachedHelp(b, ["show", "--help"], { FORCE_COLOR: "1" }, pipe)).toBe("C-SHOW\n")
    expect(cachedHelp(b, ["show", "--help"], {}, { isTTY: true, columns: 120 })).toBe("C-SHOW\n")
    expect(cachedHelp(b, ["show", "--help"], { NO_COLOR: "1" }, { isTTY: true, columns: 80 })).toBe("SHOW\n")
    // Not a plain help request: the CLI answers (errors, --json, a value, an unknown command).
    for (const argv of [["show"], ["--help", "--json"], ["show", "x", "--help"], ["nope", "--help"], ["--help", "-h"], ["show", "--index", "f"]]) {
      expect(cachedHelp(b, argv, {}, pipe)).toBeUndefined()
    }
    // A terminal narrower than the 80 columns the cache is laid out for.
    expect(cachedHelp(b, ["--help"], {}, { isTTY: true, columns: 60 })).toBeUndefined()
    // Another bundle (rebuilt without the step): same size, other mtime.
    fs.utimesSync(b, new Date(), new Date(st.mtimeMs + 5000))
    expect(cachedHelp(b, ["--help"], {}, pipe)).toBeUndefined()
    // A damaged cache file.
    fs.writeFileSync(`${b}.help.json`, "{not json")
    expect(cachedHelp(b, ["--help"], {}, pipe)).toBeUndefined()
  })
})
