/**
 * A/B comparison of the MCP server's first redacted search of a big session between builds (session 30, perf30):
 * this tree's `bench/probes/mcp-secrets.ts` bundled against each checkout's `src/` (a worktree with
 * `node_modules`) into `bench/tmp/ab-mcp/<n>/`, one index of one EVENTS-event session built in DIR by the first
 * build (kept for the next call), then ROUNDS rounds, each build once a round, the order alternating. Prints per
 * round and the medians of the processor time of the first `search_sessions` (`cpuMs`: the session's secrets
 * gathered, then the hits) and of the same search again (`againCpuMs`: the secrets kept), and whether every
 * build's answers are the same bytes (their digest, the keyed ids left out).
 *
 * `npx tsx bench/ab-mcp-secrets.ts DIR CHECKOUT...` with `ROUNDS` (default 5), `EVENTS` (default 120000), `QUERY`
 * (default `ENOENT`). Not part of `npm run bench`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { PROBE_BUILD } from "./lib/probe-build.js"
import { median } from "./lib/measure.js"

const REPO = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..")
const [dir, ...checkouts] = process.argv.slice(2)
if (dir === undefined || checkouts.length === 0) throw new Error("usage: ab-mcp-secrets.ts DIR CHECKOUT...")
const rounds = Number(process.env.ROUNDS ?? 5)
const events = Number(process.env.EVENTS ?? 120_000)
const query = process.env.QUERY ?? "ENOENT"
const index = nodePath.join(dir, `session-${events}.db`)
const probeSource = fs.readFileSync(nodePath.join(REPO, "bench", "probes", "mcp-secrets.ts"), "utf8")

const probes = await Promise.all(checkouts.map(async (c, i) => {
  const out = nodePath.join(REPO, "bench", "tmp", "ab-mcp", String(i))
  await build({
    stdin: { contents: probeSource, resolveDir: nodePath.join(nodePath.resolve(c), "bench", "probes"), sourcefile: "mcp-secrets.ts", loader: "ts" },
    outfile: nodePath.join(out, "probe.mjs"),
    ...PROBE_BUILD
  })
  return { name: `${i}:${nodePath.basename(c)}`, file: nodePath.join(out, "probe.mjs") }
}))
const run = (p: (typeof probes)[number], args: ReadonlyArray<string>) => {
  const r = spawnSync(process.execPath, [p.file, ...args], { cwd: dir, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`${p.name}: ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split("\n").pop()!)
}
fs.mkdirSync(dir, { recursive: true })
if (!fs.existsSync(index)) console.log("build", JSON.stringify(run(probes[0], ["build", index, String(events)])))
const cpu = new Map<string, Array<number>>()
const again = new Map<string, Array<number>>()
const digests = new Set<string>()
for (let i = 0; i < rounds; i++) {
  const line: Array<string> = []
  for (const p of i % 2 === 0 ? probes : [...probes].reverse()) {
    const [s] = run(p, ["search", index, query, "1"]).samples as Array<{ cpuMs: number; againCpuMs: number; wallMs: number; digest: string }>
    cpu.set(p.name, [...(cpu.get(p.name) ?? []), s.cpuMs])
    again.set(p.name, [...(again.get(p.name) ?? []), s.againCpuMs])
    digests.add(s.digest)
    line.push(`${p.name} cpu ${s.cpuMs.toFixed(0)} ms (again ${s.againCpuMs.toFixed(0)}, wall ${s.wallMs.toFixed(0)})`)
  }
  console.log(`round ${i}: ${line.join(", ")}`)
}
for (const p of probes) {
  console.log(`${p.name}: first search CPU median ${median(cpu.get(p.name)!).toFixed(0)} ms, again ${median(again.get(p.name)!).toFixed(0)} ms (${rounds} rounds)`)
}
console.log(digests.size === 1 ? "answers: the same bytes" : `answers DIFFER: ${[...digests].join(" ")}`)
