/**
 * Floor of figure (e-claude) over a Claude Code projects root
 * `<root>/<encoded-cwd>/<session-uuid>.jsonl`: `claude-walk ROOT` walks the
 * root and stats each session log (and each nested subagent file), plain Node
 * (what "unchanged" costs at least).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { report } from "./report.js"

const t0 = performance.now()
const [root] = process.argv.slice(2)
let logs = 0
let bytes = 0
for (const p of fs.readdirSync(root)) {
  for (const f of fs.readdirSync(nodePath.join(root, p), { withFileTypes: true })) {
    if (f.isDirectory()) {
      // A session's nested subagent files (figure e-claude-subagents): each stat-ed too.
      const sub = nodePath.join(root, p, f.name, "subagents")
      if (!fs.existsSync(sub)) continue
      for (const a of fs.readdirSync(sub)) {
        bytes += fs.statSync(nodePath.join(sub, a)).size
        logs++
      }
      continue
    }
    if (!f.name.endsWith(".jsonl")) continue
    bytes += fs.statSync(nodePath.join(root, p, f.name)).size
    logs++
  }
}
report(t0, { logs, bytes })
