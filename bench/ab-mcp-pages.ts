/**
 * A/B of MCP `get_events` paging a whole long session between builds (session 31, tester30c F5): this tree's
 * `bench/probes/mcp-pages.ts` bundled against each checkout's `src/` (a worktree with `node_modules`) into
 * `bench/tmp/ab-mcp-pages/<n>/`; one index of one Claude Code session of EVENTS events (as tester30c's repro: user
 * turns each with a token and a distinct password, assistant turns of ~380 characters) imported into DIR by this
 * tree's CLI (kept for the next call); then each build pages it once (`limit` 500). Prints each build's figures
 * (processor time of the first page, the early and late pages' medians, the total) and whether the answers match.
 * `SHAPE=run` (session 33): the session is one first prompt (a token and a password), then EVENTS - 1 assistant
 * texts with no user line between (one run of consecutive assistant text, read and redacted as one: a long autonomous
 * turn), a token cut across the joint of two of them every 1,000 events.
 *
 * `npx tsx bench/ab-mcp-pages.ts DIR CHECKOUT...` with `EVENTS` (default 20000), `SHAPE` (`turns`, the default, or
 * `run`). Not part of `npm run bench`.
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
const shape = process.env.SHAPE ?? "turns"
if (shape !== "turns" && shape !== "run") throw new Error("SHAPE: turns or run")
const SID = "33333333-4444-4555-8666-777777777777"
const index = nodePath.join(dir, shape === "run" ? `pages-run-${events}.db` : `pages-${events}.db`)
fs.mkdirSync(dir, { recursive: true })
if (!fs.existsSync(index)) {
  const proj = nodePath.join(dir, shape === "run" ? `projects-run-${events}` : `projects-${events}`, "-home-dan-big")
  fs.mkdirSync(proj, { recursive: true })
  const lines: Array<string> = []
  const assistantText = (i: number) => {
    const text = `deploy ok ${i} ` + "lorem ipsum ".repeat(30)
    if (shape !== "run") return text
    // one run: a token cut across the joint of events i and i + 1 every 1,000 events
    const token = (k: number) => `ghp_${String(k).padStart(36, "0")}`
    if (i % 1000 === 999) return `${text}token ${token(i).slice(0, 20)}`
    if (i % 1000 === 0) return `${token(i - 1).slice(20)} rotated ${text}`
    return text
  }
  for (let i = 0; i < events; i++) {
    const ts = new Date(Date.UTC(2026, 10, 22) + i * 1000).toISOString()
    const base = { sessionId: SID, cwd: "/home/dan/big", uuid: `b${i}`, timestamp: ts }
    lines.push(JSON.stringify((shape === "run" ? i === 0 : i % 2 === 0)
      ? { ...base, type: "user", message: { role: "user", content: `deploy step ${i} token ghp_${String(i).padStart(36, "0")} password=Pw${i}xx!` } }
      : {
        ...base, type: "assistant", requestId: `r${i}`,
        message: { id: `m${i}`, model: "claude-sonnet-4-5", role: "assistant", content: [{ type: "text", text: assistantText(i) }], usage: { input_tokens: 10, output_tokens: 20 } }
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
