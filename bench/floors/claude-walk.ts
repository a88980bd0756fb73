/**
 * Floor of figure (e-claude) over a Claude Code projects root
 * `<root>/<encoded-cwd>/<session-uuid>.jsonl`: `claude-walk ROOT` walks the
 * root and stats each session log, plain Node (what "unchanged" costs at least).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { report } from "./report.js"

const t0 = performance.now()
const [root] = process.argv.slice(2)
let logs = 0
let bytes = 0
for (const p of fs.readdirSync(root)) {
  for (const f of fs.readdirSync(nodePath.join(root, p))) {
    if (!f.endsWith(".jsonl")) continue
    bytes += fs.statSync(nodePath.join(root, p, f)).size
    logs++
  }
}
report(t0, { logs, bytes })
