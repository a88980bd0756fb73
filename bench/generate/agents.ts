/**
 * A Muse agents transcript for the benchmarks (seed 000):
 * `<agentsRoot>/<agentId>/sessions/<agentId>.jsonl` (a `session_header`, then
 * `item` records of every kind: user / assistant messages, `message_parts`,
 * thinking, commentary, function calls with JSON-string arguments and their
 * outputs, developer messages, runtime-directive sources; a
 * `compaction_checkpoint` every few thousand lines) plus `sessions.json`.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { prng, textPool, Writer } from "./common.js"

/** The transcript path of `agentId` under `root`. */
export const transcriptPath = (root: string, agentId: string): string =>
  nodePath.join(root, agentId, "sessions", `${agentId}.jsonl`)

/** Write a transcript of exactly `lines` lines. Answers { path, bytes, lines }. */
export const writeAgentsTranscript = (
  root: string,
  agentId: string,
  lines: number,
  seed = 3
): { path: string; bytes: number; lines: number } => {
  const path = transcriptPath(root, agentId)
  fs.mkdirSync(nodePath.dirname(path), { recursive: true })
  const r = prng(seed)
  const texts = textPool(seed + 1, 512, 40, 2000)
  const text = () => texts[Math.floor(r.next() * texts.length)]
  const w = new Writer(path)
  let ms = 1_740_816_000_000
  const sessionId = `sess-${agentId}`
  w.line(JSON.stringify({ type: "session_header", session_id: sessionId, agent_id: agentId, created_at: ms }))
  let n = 1
  let seq = 0
  let call = 0
  const item = (source: string, it: Record<string, unknown>) => {
    seq++
    ms += r.int(10, 20_000)
    w.line(JSON.stringify({ type: "item", seq, source, item: it, created_at: ms }))
    n++
  }
  while (n < lines) {
    const k = r.next()
    if (n % 5000 === 4999) {
      w.line(JSON.stringify({
        type: "compaction_checkpoint",
        compaction_id: `cmp-${n}`,
        trigger: "auto",
        summary: text() + text(),
        created_at: ms
      }))
      n++
    } else if (k < 0.08) {
      item(r.next() < 0.8 ? "runtime" : r.pick(["runtime.feed", "scheduler.cron", "runtime.self_improvement"]), {
        type: "message",
        role: "user",
        text: text().slice(0, 600)
      })
    } else if (k < 0.1) {
      item("runtime", { type: "message", role: "developer", text: "SYSTEM: " + text().slice(0, 300) })
    } else if (k < 0.14) {
      item("runtime", { type: "message_parts", role: "user", parts: [{ text: "Feed update:" }, { image: "x.png" }, { text: text().slice(0, 400) }] })
    } else if (k < 0.24) {
      item("runtime", { type: "thinking", thinking: text() })
    } else if (k < 0.3) {
      item("runtime", { type: "commentary_text", text: text().slice(0, 200) })
    } else if (k < 0.4) {
      item("runtime", { type: "message", role: "assistant", text: text() })
    } else if (n + 1 < lines) {
      call++
      const id = `call-${call}`
      const name = r.pick(["exec", "edit", "write", "read", "memory_search", "subagent.spawn"])
      const args = name === "exec"
        ? { command: text().slice(0, 120) }
        : name === "edit"
        ? { path: `src/f${call % 97}.ts`, old_text: text().slice(0, 200), new_text: text().slice(0, 200) }
        : name === "write"
        ? { path: `src/f${call % 97}.ts`, content: text() }
        : name === "read"
        ? { path: `src/f${call % 97}.ts` }
        : { query: text().slice(0, 80) }
      item("runtime", { type: "function_call", call_id: id, name, arguments: JSON.stringify(args) })
      item("runtime", { type: "function_call_output", call_id: id, output: text(), success: r.next() < 0.9 })
    } else {
      item("runtime", { type: "message", role: "assistant", text: "Done." })
    }
  }
  w.close()
  fs.writeFileSync(
    nodePath.join(nodePath.dirname(path), "sessions.json"),
    JSON.stringify({ [sessionId]: { updated_at: new Date(ms).toISOString(), context_window_usage: { model_id: "muse-large-2", used_tokens: 123456 } } }) + "\n"
  )
  return { path, bytes: w.bytes, lines: n }
}
