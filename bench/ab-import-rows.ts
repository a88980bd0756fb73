/**
 * Whether two builds write the same index (issue 13: a faster first import
 * must write the same rows). Generates a corpus in `DIR` (once; kept for the
 * next call): the bundled fixtures (Muse Code native logs, Claude Code
 * projects, Muse agents) and a Muse Code native root of hostile logs
 * (`HOSTILE` of them, more than the parse workers' threshold, so the workers
 * read them: lone surrogates, U+2028, C1 and bidi characters, NUL, the
 * writer's payload mark, numbers JSON does not carry exactly, `__proto__`
 * keys, deep nesting, spaced and escaped payload text, retained frames,
 * omission markers, a torn last line, one malformed log) beside the bench's
 * generated sessions. Then each build's CLI imports it into a fresh index
 * (`import --jobs JOBS`, default 2) and every table of the two indexes is
 * compared row by row (`SELECT *` in rowid order, or by every column for a
 * table without rowid). Prints each table's row count and whether it is the
 * same; exits 1 when one differs. Writes no `results.json`.
 *
 * `npx tsx bench/ab-import-rows.ts DIR BIN_A BIN_B [JOBS]`
 * (a BIN is a checkout's `bin/session-ingest.mjs`).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { writeNativeRoot } from "./generate/native.js"
import { end, frame, jsonl, metadata, omission, record } from "../test/muse-code/native-lines.js"

const [dir, binA, binB, jobsArg] = process.argv.slice(2)
if (dir === undefined || binA === undefined || binB === undefined) {
  process.stderr.write("usage: npx tsx bench/ab-import-rows.ts DIR BIN_A BIN_B [JOBS]\n")
  process.exit(2)
}
const jobs = jobsArg ?? "2"
const HOSTILE = 120
const repo = path.join(import.meta.dirname, "..")
const ws = path.join(dir, "workspace")
const muse = path.join(dir, "muse-root")

const MARK = "\u0000session-ingest:payload\u0000"
const hostile = [
  "\u0080", "\u0085", "\u009f", "\u00a0", "\u202a", "\u202e", "\u2066", "\u2028", "\u2029", "\ud800", "\udfff", "\ufffd",
  "\u{1f389}", "\u00e9", "\u65e5", "\u0000", "\n", "\t", "  ", "\"", "\\", " ", "\u001b[31m", "a", "1", "-", "word", MARK
]
let seed = 1
const rnd = (n: number) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed % n
}
const text = (n: number) => Array.from({ length: n }, () => hostile[rnd(hostile.length)]).join("")
const deep = (d: number): unknown => (d === 0 ? text(3) : { k: [deep(d - 1)] })

/** One hostile native log: `k` picks what it holds. */
const hostileLog = (k: number, id: string): string => {
  const lines: Array<unknown> = [metadata(1, ws, id)]
  let seq = 2
  const n = 4 + (k % 9)
  for (let i = 0; i < n; i++) {
    switch ((k + i) % 11) {
      case 0:
        lines.push(record(seq++, "runtime.session", { event: { kind: "started", prompt: text(20) }, kind: "run" }, id))
        break
      case 1:
        lines.push(record(seq++, "tool_batch.effect.output", { kind: "tool_output", pending_action_id: `action-${i}`, record: { stream: "stdout", text: text(200), truncated: false } }, id))
        break
      case 2:
        lines.push(record(seq++, "side_effect_intent", { event: { kind: "side_effect_intent" }, operation: `tool:${text(2)}`, pending_action_id: "a", policy_decision: "allow" }, id))
        break
      case 3:
        // Numbers JSON does not carry exactly, and keys a plain object cannot take.
        lines.push(`{"schema_version":1,"id":"r-${seq}","stream":{"kind":"session","id":"${id}"},"sequence":${seq++},"recorded_at":1790349213894901,"record_type":"event","durability":"durable","causation_id":null,"payload_type":"x.numbers","payload_schema_version":1,"payload":{"big":123456789012345678901234567890,"huge":1e400,"neg":-0,"tiny":1e-400,"__proto__":{"a":1},"e":1.5E+3}}`)
        break
      case 4:
        // Payload text that is not what JSON.stringify writes (spaces, escapes): not copied, written again.
        lines.push(`{"schema_version":1,"id":"r-${seq}","stream":{"kind":"session","id":"${id}"},"sequence":${seq++},"recorded_at":1790349213894901,"record_type":"event","durability":"durable","causation_id":null,"payload_type":"x.spaced","payload_schema_version":1,"payload":{ "event" : {"kind":"started","prompt":"\\u0041\\/b"}, "kind":"run"}}`)
        break
      case 5:
        lines.push(record(seq++, "x.deep", { deep: deep(25), list: [text(5), null, true, 0.1, -1] }, id))
        break
      case 6:
        lines.push(frame([record(seq++, "runtime.session.permission_format_declared", { format: text(4), schema_version: 1 }, id), record(seq++, "approval.review", { event: { action: text(40), choices: ["a", text(3)], kind: "approval.review" }, pending_action_id: "p" }, id)], `tx-${k}-${i}`))
        break
      case 7:
        lines.push(omission(seq++))
        break
      case 8:
        lines.push(record(seq++, "decision_applied", { decision: text(6), event: { kind: "decision_applied" }, pending_action_id: "p", policy_result: "allow", decision_source: { kind: "llm_judge", params_version: 2 } }, id))
        break
      case 9:
        lines.push(record(seq++, "model.response", { kind: "model_response", record: { model_id: "muse-spark-1.3", text: text(300), usage: { input_tokens: 10 + k, output_tokens: 5 } } }, id))
        break
      default:
        lines.push(record(seq++, text(2).length > 0 ? "x.other" : "x.empty", { [text(2)]: text(8), payload: MARK }, id))
    }
  }
  lines.push(end(seq, id))
  // One log in nine is torn at the end (an append in progress).
  return jsonl(lines, k % 9 === 4 ? `{"schema_version":1,"id":"torn` : "")
}

if (!fs.existsSync(path.join(dir, "ready"))) {
  fs.mkdirSync(ws, { recursive: true })
  fs.cpSync(path.join(repo, "fixtures", "muse-code", "native"), muse, { recursive: true })
  writeNativeRoot(muse, 200, ws)
  for (let k = 0; k < HOSTILE; k++) {
    const id = `0e0e0e0e-0000-4000-8000-${String(k).padStart(12, "0")}`
    const p = path.join(muse, "2026", "10", String(1 + (k % 7)).padStart(2, "0"), id, "session.jsonl")
    fs.mkdirSync(path.dirname(p), { recursive: true })
    fs.writeFileSync(p, k === 17 ? hostileLog(k, id).replace("\n", "\n{not json\n") : hostileLog(k, id))
  }
  fs.writeFileSync(path.join(dir, "ready"), "")
}

/**
 * Columns that differ between two imports of the same sources by the same build (times, the import's attempt
 * id, the index's random keys and push ids): left out of the comparison. Every other column is compared.
 */
const VARYING: Record<string, ReadonlyArray<string>> = {
  generations: ["started_at"],
  meta: ["value"],
  push_changes: ["id"],
  push_origin: ["*"],
  records: ["attempt"],
  si_migrations: ["*"],
  sources: ["updated_at"]
}

/** Every table's rows (rowid order; a table without rowid by all its columns), as JSON text per row. */
const dump = (file: string): Map<string, Array<string>> => {
  const db = new Database(file, { readonly: true })
  const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string; sql: string | null }>
  const out = new Map<string, Array<string>>()
  for (const t of tables) {
    const q = `"${t.name.replaceAll("\"", "\"\"")}"`
    const withoutRowid = /WITHOUT\s+ROWID/i.test(t.sql ?? "")
    const names = (db.prepare(`SELECT * FROM ${q} LIMIT 0`) as unknown as { columns: () => Array<{ name: string }> }).columns().map((c) => c.name)
    const order = withoutRowid || t.name.startsWith("sqlite_") ? names.map((_, i) => i + 1).join(", ") : "rowid"
    const rows = (db.prepare(`SELECT * FROM ${q} ORDER BY ${order}`) as unknown as { raw: () => { all: () => Array<Array<unknown>> } }).raw().all()
    const skip = VARYING[t.name] ?? []
    const masked = rows.map((r) => r.map((v, i) => (skip.includes("*") || skip.includes(names[i]) ? "(varies)" : v)))
    out.set(t.name, masked.map((r) => JSON.stringify(r, (_k, v) => (Buffer.isBuffer(v) ? `x'${v.toString("hex")}'` : typeof v === "bigint" ? `${v}n` : v))))
  }
  db.close()
  return out
}

const importWith = (bin: string, label: string): string => {
  const index = path.join(dir, `${label}.db`)
  for (const f of [index, `${index}-wal`, `${index}-shm`]) fs.rmSync(f, { force: true })
  const home = path.join(dir, `home-${label}`)
  fs.mkdirSync(home, { recursive: true })
  const r = spawnSync(process.execPath, [
    bin, "import", "--index", index, "--workspace", ws, "--muse-root", muse,
    "--claude-root", path.join(repo, "fixtures", "claude-code", "projects"),
    "--agents-root", path.join(repo, "fixtures", "muse-agents", "agents"),
    "--jobs", jobs, "--json"
  ], { encoding: "utf8", env: { ...process.env, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home } })
  const last = r.stdout.trim().split("\n").pop() ?? ""
  process.stdout.write(`${label}: exit ${r.status}; ${last.slice(0, 300)}\n`)
  return index
}

const a = dump(importWith(binA, "a"))
const b = dump(importWith(binB, "b"))
let differ = 0
for (const name of new Set([...a.keys(), ...b.keys()])) {
  const x = a.get(name) ?? [], y = b.get(name) ?? []
  let first = -1
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] !== y[i]) {
      first = i
      break
    }
  }
  if (first >= 0) differ++
  const cols = (r: string | undefined) => (r === undefined ? [] : (JSON.parse(r) as Array<unknown>).map((v) => JSON.stringify(v)))
  const [cx, cy] = [cols(x[first]), cols(y[first])]
  const which = cx.map((v, i) => (v !== cy[i] ? i : -1)).filter((i) => i >= 0)
  process.stdout.write(`${name}: ${x.length} / ${y.length} rows ${first < 0 ? "same" : `DIFFER at ${first}, columns ${which.join(",")}:\n  ${x[first]?.slice(0, 300)}\n  ${y[first]?.slice(0, 300)}`}\n`)
}
process.stdout.write(differ === 0 ? "every table the same\n" : `${differ} table(s) differ\n`)
process.exit(differ === 0 ? 0 : 1)
