/**
 * Summarize a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with the
 * most self time, the functions with the most total time (self plus callees,
 * each sample counted once per function), and the source files with the most
 * self time. `npx tsx bench/cpuprofile-top.ts FILE.cpuprofile [N]`.
 */
import * as fs from "node:fs"

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
  children?: Array<number>
}
const [file, nArg] = process.argv.slice(2)
const p = JSON.parse(fs.readFileSync(file, "utf8")) as { nodes: Array<Node>; samples: Array<number>; timeDeltas: Array<number> }
const self = new Map<number, number>()
for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0))
const total = [...self.values()].reduce((a, b) => a + b, 0)
const byFn = new Map<string, number>()
const byFile = new Map<string, number>()
for (const n of p.nodes) {
  const us = self.get(n.id) ?? 0
  const url = n.callFrame.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "")
  const fn = `${n.callFrame.functionName || "(anonymous)"}  ${url}:${n.callFrame.lineNumber + 1}`
  byFn.set(fn, (byFn.get(fn) ?? 0) + us)
  byFile.set(url || "(native)", (byFile.get(url || "(native)") ?? 0) + us)
}
// Total time: walk each sampled node's ancestry once, crediting every distinct function on it.
const parent = new Map<number, number>()
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const nameOf = new Map<number, string>()
for (const n of p.nodes) {
  const url = n.callFrame.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "")
  nameOf.set(n.id, `${n.callFrame.functionName || "(anonymous)"}  ${url}:${n.callFrame.lineNumber + 1}`)
}
const inclusive = new Map<string, number>()
for (const [id, us] of self) {
  const seen = new Set<string>()
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) seen.add(nameOf.get(cur)!)
  for (const fn of seen) inclusive.set(fn, (inclusive.get(fn) ?? 0) + us)
}
const top = (m: Map<string, number>, n: number) =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${(v / 1000).toFixed(0).padStart(7)} ms ${(100 * v / total).toFixed(1).padStart(5)}%  ${k}`).join("\n")
const n = Number(nArg ?? 25)
process.stdout.write(`total ${(total / 1000).toFixed(0)} ms\n-- self time by function\n${top(byFn, n)}\n-- total time by function\n${top(inclusive, n)}\n-- self time by file\n${top(byFile, 10)}\n`)
