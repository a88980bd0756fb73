/**
 * Whether two builds discover the same (issue 13, bench figure c: a faster
 * discovery must print the same report), and what each costs. Generates a
 * Muse Code native root in `DIR` (once; kept for the next call): `COUNT` of
 * the bench's generated sessions (`generate/native.ts`, default 2,000) and
 * logs of every outcome and odd shape (evidence in a retained child, late
 * evidence past the head, another workspace, none, a malformed or torn line,
 * a nesting deeper than the budget, a UTF-8 BOM, UTF-16, non-ASCII and
 * invalid UTF-8 bytes, an empty log, a symlinked log, a folder and a fifo
 * named `session.jsonl`, junk beside them). Then runs each build's
 * `discover muse-code --json` over it and compares the two outputs byte for
 * byte (and the exit codes); with `ROUNDS` (default 0), that many more
 * interleaved runs of each, printing the median processor time (user +
 * system, of the child) and wall time of each build. Exits 1 when the outputs differ.
 *
 * `npx tsx bench/ab-discover.ts DIR BIN_A BIN_B [ROUNDS] [COUNT]`
 * (a BIN is a checkout's `bin/session-ingest.mjs`).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { writeNativeRoot } from "./generate/native.js"
import { end, filler, frame, jsonl, metadata, omission, opened, routeFacts } from "../test/muse-code/native-lines.js"

const [dir, binA, binB, roundsArg, countArg] = process.argv.slice(2)
if (dir === undefined || binA === undefined || binB === undefined) {
  process.stderr.write("usage: npx tsx bench/ab-discover.ts DIR BIN_A BIN_B [ROUNDS] [COUNT]\n")
  process.exit(2)
}
const rounds = Number(roundsArg ?? 0)
const count = Number(countArg ?? 2000)
const ws = path.join(dir, "workspace")
const other = path.join(dir, "other")
const muse = path.join(dir, "muse-root")

/** The odd logs, by session folder name (in day folder 2027/02/03): their bytes. */
const odd = (): Record<string, string | Buffer> => {
  let deep: unknown = "leaf"
  for (let i = 0; i < 70; i++) deep = { d: deep }
  const pad = (seq: number, n: number) => ({ ...filler(seq), pad: "p".repeat(n) })
  const utf16 = Buffer.from("\ufeff" + jsonl([metadata(1, ws)]), "utf16le")
  return {
    "a-child": jsonl([frame([opened(1), metadata(2, ws)]), filler(3), end(4)]),
    "b-late": jsonl([...Array.from({ length: 12 }, (_, i) => pad(i + 1, 3000)), routeFacts(13, path.join(ws, "sub")), end(14)]),
    "c-other": jsonl([opened(1), metadata(2, other), omission(3), end(4)]),
    "d-none": jsonl([opened(1), filler(2), end(3)]),
    "e-malformed": jsonl([opened(1), "{not json", metadata(3, ws)]),
    "f-torn": jsonl([opened(1)], "{\"schema_version\":1,\"payload_type\":\"runtime.sess"),
    "g-deep": jsonl([opened(1), { ...filler(2), payload: { deep } }, metadata(3, ws)]),
    "h-bom": "\ufeff" + jsonl([metadata(1, ws), end(2)]),
    "i-utf16": utf16,
    "j-non-ascii": jsonl([{ ...filler(1), note: "caf\u00e9 \u65e5\u672c \u{1f389} \u2028" }, metadata(2, ws), end(3)]),
    "k-bad-utf8": Buffer.concat([Buffer.from("{\"a\":\"\xff\xfe\"}\n", "latin1"), Buffer.from(jsonl([metadata(2, ws)]))]),
    "l-empty": "",
    "m-relative": jsonl([routeFacts(1, "relative/ws"), end(2)]),
    "n-other-then-ws": jsonl([metadata(1, other), filler(2), routeFacts(3, ws)])
  }
}

if (!fs.existsSync(path.join(dir, "ready"))) {
  fs.mkdirSync(path.join(ws, "sub"), { recursive: true })
  fs.mkdirSync(other, { recursive: true })
  writeNativeRoot(muse, count, ws)
  const day = path.join(muse, "2027", "02", "03")
  for (const [name, bytes] of Object.entries(odd())) {
    fs.mkdirSync(path.join(day, name), { recursive: true })
    fs.writeFileSync(path.join(day, name, "session.jsonl"), bytes)
  }
  fs.mkdirSync(path.join(day, "o-link"), { recursive: true })
  fs.symlinkSync(path.join(day, "a-child", "session.jsonl"), path.join(day, "o-link", "session.jsonl"))
  fs.mkdirSync(path.join(day, "p-folder", "session.jsonl"), { recursive: true })
  fs.mkdirSync(path.join(day, "q-fifo"), { recursive: true })
  spawnSync("mkfifo", [path.join(day, "q-fifo", "session.jsonl")])
  fs.mkdirSync(path.join(day, "r-missing"), { recursive: true })
  fs.writeFileSync(path.join(day, "notes.txt"), "junk\n")
  fs.mkdirSync(path.join(muse, "2027", "13"), { recursive: true })
  fs.writeFileSync(path.join(dir, "ready"), "")
}

/** One run of a build's discovery: its stdout, exit code, processor time (ms, user + system of the child) and wall time (ms). */
const run = (bin: string): { readonly out: Buffer; readonly code: number | null; readonly cpuMs: number; readonly wallMs: number } => {
  const t0 = performance.now()
  const r = spawnSync("/usr/bin/time", ["-f", "%U %S", "-o", path.join(dir, "time"), process.execPath, bin, "discover", "muse-code", "--muse-root", muse, "--workspace", ws, "--json"], {
    maxBuffer: 1 << 30
  })
  const [user, sys] = fs.readFileSync(path.join(dir, "time"), "utf8").trim().split(/\s+/).slice(-2).map(Number)
  return { out: r.stdout, code: r.status, cpuMs: (user + sys) * 1000, wallMs: performance.now() - t0 }
}

const a = run(binA)
const b = run(binB)
const same = a.code === b.code && a.out.equals(b.out)
process.stdout.write(`outputs: ${a.out.length} and ${b.out.length} bytes, exit ${a.code} and ${b.code}: ${same ? "the same" : "DIFFERENT"}\n`)
if (rounds > 0) {
  const cpu: [Array<number>, Array<number>] = [[], []]
  const wall: [Array<number>, Array<number>] = [[], []]
  for (let i = 0; i < rounds; i++) {
    // Alternate which goes first, so that neither always runs on a cache the other warmed.
    const order = i % 2 === 0 ? [0, 1] : [1, 0]
    for (const k of order) {
      const r = run(k === 0 ? binA : binB)
      cpu[k].push(r.cpuMs)
      wall[k].push(Math.round(r.wallMs))
    }
  }
  const median = (xs: Array<number>) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]
  process.stdout.write(`processor time (user + system), median of ${rounds}: A ${median(cpu[0]).toFixed(0)} ms, B ${median(cpu[1]).toFixed(0)} ms (A ${cpu[0].join(" ")}; B ${cpu[1].join(" ")})\n`)
  process.stdout.write(`wall time (with the spawn of /usr/bin/time), median of ${rounds}: A ${median(wall[0]).toFixed(0)} ms, B ${median(wall[1]).toFixed(0)} ms (A ${wall[0].join(" ")}; B ${wall[1].join(" ")})\n`)
}
process.exit(same ? 0 : 1)
