/**
 * A/B of MCP `get_events` paging a whole long session between builds (session 31, tester30c F5): this tree's
 * `bench/probes/mcp-pages.ts` bundled against each checkout's `src/` (a worktree with `node_modules`) into
 * `bench/tmp/ab-mcp-pages/<n>/`; one index of one Claude Code session of EVENTS events (as tester30c's repro: user
 * turns each with a token and a distinct password, assistant turns of ~380 characters) imported into DIR by this
 * tree's CLI (kept for the next call); then each build pages it once (`limit` 500). Prints each build's figures
 * (processor time of the first page, the early and late pages' medians, the total) and whether the answers match.
 *
 * `npx tsx bench/ab-mcp-pages.ts DIR CHECKOUT...` with `EVENTS` (default 20000). Not part of `npm run bench`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { PROBE_BUILD } from "./lib/probe-build.js"

const REPO = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..")
const [dir, ...checkouts] = process.argv.slice(2)
if (dir === undefined || checkouts.length === 0) throw new Error("usage: ab-mcp-pages.ts DIR CHECKOUT...")
const events = Number(process.env.EVENTS ?? 20_000)
const SID = "33333333-4444-4555-8666-777777777777"
const index = nodePath.join(dir, `pages-${events}.db`)
fs.mkdirSync(dir, { recursive: true })
if (!fs.existsSync(index)) {
  const proj = nodePath.join(dir, `projects-${events}`, "-home-dan-big")
  fs.mkdirSync(proj, { recursive: true })
  const lines: Array<string> = []
  for (let i = 0; i < events; i++) {
    const ts = new Date(Date.UTC(2026, 10, 22) + i * 1000).toISOString()
    const base = { sessionId: SID, cwd: "/home/dan/big", uuid: `b${i}`, timestamp: ts }
    lines.push(JSON.stringify(i % 2 === 0
      ? { ...base, type: "user", message: { role: "user", content: `deploy step ${i} token ghp_${String(i).padStart(36, "0")} password=Pw${i}xx!` } }
      : {
        ...base, type: "assistant", requestId: `r${i}`,
        message: { id: `m${i}`, model: "claude-sonnet-4-5", role: "assistant", content: [{ type: "text", text: `deploy ok ${i} ` + "lorem ipsum ".repeat(30) }], usage: { input_tokens: 10, output_tokens: 20 } }
      }))
  }
  fs.writeFileSync(nodePath.join(proj, `${SID}.jsonl`), lines.join("\n") + "\n")
  const r = spawnSync(process.execPath, [nodePath.join(REPO, "bin", "session-ingest.mjs"), "import", "--claude-root", nodePath.dirname(proj), "--index", index,
    "--agents-root", nodePath.join(dir, "none")], { encoding: "utf8" })
  if (r.status !== 0 && r.status !== 8) throw new Error(r.stderr)
}
const probeSource = fs.readFileSync(nodePath.join(REPO, "bench", "probes", "mcp-pages.ts"), "utf8")
for (const [i, c] of checkouts.entries()) {
  const out = nodePath.join(REPO, "bench", "tmp", "ab-mcp-pages", String(i))
  await build({
    stdin: { contents: probeSource, resolveDir: nodePath.join(nodePath.resolve(c), "bench", "probes"), sourcefile: "mcp-pages.ts", loader: "ts" },
    outfile: nodePath.join(out, "probe.mjs"),
    ...PROBE_BUILD
  })
  const r = spawnSync(process.execPath, [nodePath.join(out, "probe.mjs"), index, SID], { cwd: dir, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`${c}: ${r.stderr}`)
  console.log(`${i}:${nodePath.basename(c)} ${r.stdout.trim().split("\n").pop()}`)
}
