// The help of every command, rendered at build time (dist/help.json, written by
// scripts/help-cache.mjs from the bundle itself), so that `--help` and
// `<command> --help` print without loading the CLI: Node's own start-up plus
// one small file read (bench figure (d)). Used only when it was made from the
// bundle that is there (same size and mtime), for a command line that is just
// a help request (`--help`/`-h`, alone or after a command's name, or nothing),
// and when stdout is a file, a pipe, or a terminal at least 80 columns wide
// (help is laid out for 80 columns; a narrower terminal gets the CLI's own
// rendering at its width). Anything else, or any doubt, answers undefined and
// the CLI runs as usual.
import { readFileSync, statSync } from "node:fs"

const HELP_FLAGS = new Set(["--help", "-h"])

/** The cached help text for `argv` (the arguments after the program), or undefined. */
export const cachedHelp = (bundle, argv, env, stdout) => {
  if (argv.length > 2) return undefined
  const flags = argv.filter((a) => HELP_FLAGS.has(a))
  const words = argv.filter((a) => !HELP_FLAGS.has(a))
  if (argv.length > 0 && flags.length !== 1) return undefined
  if (words.length > 1 || words.some((w) => w.startsWith("-"))) return undefined
  const tty = stdout.isTTY === true
  if (tty && !(typeof stdout.columns === "number" && stdout.columns >= 80)) return undefined
  let cache
  try {
    const st = statSync(bundle)
    cache = JSON.parse(readFileSync(`${bundle}.help.json`, "utf8"))
    if (cache.bundle?.size !== st.size || cache.bundle?.mtimeMs !== st.mtimeMs) return undefined
  } catch {
    return undefined
  }
  const entry = cache.help?.[words[0] ?? ""]
  if (entry === undefined) return undefined
  const force = (env.FORCE_COLOR ?? "") !== "" && env.FORCE_COLOR !== "0"
  const color = force || (tty && (env.NO_COLOR ?? "") === "")
  const text = color ? entry.color : entry.plain
  return typeof text === "string" ? text : undefined
}
