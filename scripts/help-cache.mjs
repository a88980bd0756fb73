// Step of `npm run build`: render the help of the program and of every command
// with the bundle itself (`node dist/cli.cjs [<command>] --help`, piped, so at
// 80 columns; plain and with FORCE_COLOR), and write it beside the bundle as
// dist/cli.cjs.help.json, keyed by the bundle's size and mtime. Read by
// bin/help-cache.mjs; a bundle built again without this step is not matched.
import { spawnSync } from "node:child_process"
import { statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..")
const bundle = join(root, "dist", "cli.cjs")

const render = (args, color) => {
  const env = { ...process.env, NO_COLOR: color ? "" : "1", FORCE_COLOR: color ? "1" : "" }
  const r = spawnSync(process.execPath, [bundle, ...args, "--help"], { cwd: root, env, encoding: "utf8" })
  if (r.status !== 0) {
    process.stderr.write(`help-cache: \`${["session-ingest", ...args, "--help"].join(" ")}\` failed (exit ${r.status ?? r.signal}); no help cache written.\n`)
    process.exit(1)
  }
  return r.stdout
}

const top = render([], false)
// The command names, as the program's help lists them (`$ session-ingest <name> ...`).
const names = [...new Set([...top.matchAll(/^\s+\$ session-ingest ([a-z][a-z-]*)\b/gm)].map((m) => m[1]))]
const help = { "": { plain: top, color: render([], true) } }
for (const name of names) help[name] = { plain: render([name], false), color: render([name], true) }
const st = statSync(bundle)
writeFileSync(`${bundle}.help.json`, JSON.stringify({ bundle: { size: st.size, mtimeMs: st.mtimeMs }, help }))
