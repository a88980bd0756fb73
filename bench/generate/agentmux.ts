/**
 * An AgentMux transcript store for the benchmarks (DESIGN.md, AgentMux store
 * facts; seed 002): the real schema (`db_wave_file`, `db_file_data`, 65,536-byte
 * parts), the agent's zone `agent:<uid>:current` holding Claude stream-json
 * output (mostly `stream_event` deltas, as real records are: echoed prompts,
 * `init`, message start / block start / many text, thinking and input-json
 * deltas / block stop / message stop, the assembled assistant message, tool
 * results, `result`, and AgentMux's outcome line) and its `output.tsidx`
 * (one `{"off","ms"}` record per appended batch). Written part by part, never
 * held whole; WAL mode by default, as AgentMux keeps it.
 */
import Database from "better-sqlite3"
import { appendBytes, createStore, PART, withStore } from "../../test/agentmux/store-helper.js"
import { prng, textPool, uuidOf } from "./common.js"

/** Streams one store file into 64 KiB parts (`partidx = offset / 65536`). */
class PartWriter {
  private buf = Buffer.alloc(PART)
  private fill = 0
  private idx = 0
  size = 0
  private readonly ins: Database.Statement
  constructor(private readonly db: Database.Database, private readonly zoneId: string, private readonly name: string) {
    this.ins = db.prepare("INSERT INTO db_file_data VALUES (?, ?, ?, ?)")
  }
  write(b: Buffer): void {
    let at = 0
    while (at < b.length) {
      const n = Math.min(PART - this.fill, b.length - at)
      b.copy(this.buf, this.fill, at, at + n)
      this.fill += n
      at += n
      if (this.fill === PART) this.flushPart()
    }
    this.size += b.length
  }
  private flushPart(): void {
    this.ins.run(this.zoneId, this.name, this.idx++, Buffer.from(this.buf.subarray(0, this.fill)))
    this.fill = 0
  }
  close(createdTs: number): void {
    if (this.fill > 0) this.flushPart()
    this.db.prepare("INSERT INTO db_wave_file VALUES (?, ?, ?, ?, ?, '{}', '{}')").run(this.zoneId, this.name, this.size, createdTs, Date.now())
  }
}

/** Lines of Claude stream-json sessions, with an agent's echoes and outcome lines. */
export class StreamJson {
  private readonly r: ReturnType<typeof prng>
  private readonly texts: ReadonlyArray<string>
  private session = 0
  private msg = 0
  private tool = 0
  private u = 0
  constructor(seed: number) {
    this.r = prng(seed)
    this.texts = textPool(seed + 1, 256, 40, 4000)
  }
  private text(): string {
    return this.texts[Math.floor(this.r.next() * this.texts.length)]
  }
  private uuid(): string {
    return uuidOf(++this.u, 0xd17a)
  }
  private ev(sid: string, event: unknown): string {
    return JSON.stringify({ type: "stream_event", event, session_id: sid, parent_tool_use_id: null, uuid: this.uuid() })
  }
  /** Deltas of `text` cut into 2-24 character pieces, as a model streams tokens. */
  private deltas(sid: string, index: number, kind: "text_delta" | "thinking_delta" | "input_json_delta", text: string, out: Array<string>): void {
    const field = kind === "text_delta" ? "text" : kind === "thinking_delta" ? "thinking" : "partial_json"
    for (let i = 0; i < text.length;) {
      const n = this.r.int(2, 24)
      out.push(this.ev(sid, { type: "content_block_delta", index, delta: { type: kind, [field]: text.slice(i, i + n) } }))
      i += n
    }
  }
  /** One session's lines: an echoed prompt, init, then `turns` model turns with tools, a result, an outcome. */
  sessionLines(turns: number): Array<string> {
    const r = this.r
    const sid = uuidOf(++this.session, 0x5e55)
    const out: Array<string> = []
    out.push(JSON.stringify({ type: "user", message: { role: "user", content: this.text().slice(0, 300) } }))
    out.push(JSON.stringify({
      type: "system",
      subtype: "init",
      cwd: `/home/dev/project-${this.session % 17}`,
      session_id: sid,
      model: "claude-sonnet-4-5",
      tools: ["Bash", "Read", "Edit", "Write", "Grep"],
      uuid: this.uuid()
    }))
    for (let t = 0; t < turns; t++) {
      const id = `msg_${(++this.msg).toString(36).padStart(10, "0")}`
      out.push(this.ev(sid, { type: "message_start", message: { id, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], usage: { input_tokens: r.int(100, 90000), output_tokens: 1 } } }))
      const content: Array<unknown> = []
      let index = 0
      if (r.next() < 0.5) {
        const thinking = this.text()
        out.push(this.ev(sid, { type: "content_block_start", index, content_block: { type: "thinking", thinking: "" } }))
        this.deltas(sid, index, "thinking_delta", thinking, out)
        out.push(this.ev(sid, { type: "content_block_stop", index }))
        content.push({ type: "thinking", thinking, signature: "sig" })
        index++
      }
      const text = this.text()
      out.push(this.ev(sid, { type: "content_block_start", index, content_block: { type: "text", text: "" } }))
      this.deltas(sid, index, "text_delta", text, out)
      out.push(this.ev(sid, { type: "content_block_stop", index }))
      content.push({ type: "text", text })
      index++
      let toolUse: { id: string; input: unknown } | undefined
      if (r.next() < 0.7) {
        const input = { command: this.text().slice(0, 200) }
        toolUse = { id: `toolu_${(++this.tool).toString(36).padStart(12, "0")}`, input }
        out.push(this.ev(sid, { type: "content_block_start", index, content_block: { type: "tool_use", id: toolUse.id, name: "Bash", input: {} } }))
        this.deltas(sid, index, "input_json_delta", JSON.stringify(input), out)
        out.push(this.ev(sid, { type: "content_block_stop", index }))
        content.push({ type: "tool_use", id: toolUse.id, name: "Bash", input })
      }
      out.push(this.ev(sid, { type: "message_delta", delta: { stop_reason: toolUse ? "tool_use" : "end_turn" }, usage: { output_tokens: r.int(10, 4000) } }))
      out.push(this.ev(sid, { type: "message_stop" }))
      out.push(JSON.stringify({
        type: "assistant",
        message: { id, type: "message", role: "assistant", model: "claude-sonnet-4-5", content },
        parent_tool_use_id: null,
        session_id: sid,
        uuid: this.uuid()
      }))
      if (toolUse !== undefined) {
        out.push(JSON.stringify({
          type: "user",
          message: { role: "user", content: [{ tool_use_id: toolUse.id, type: "tool_result", content: this.text(), is_error: r.next() < 0.05 }] },
          parent_tool_use_id: null,
          session_id: sid,
          uuid: this.uuid()
        }))
      }
    }
    out.push(JSON.stringify({ type: "result", subtype: "success", is_error: false, duration_ms: r.int(1000, 900000), result: "done", session_id: sid }))
    out.push(JSON.stringify({ type: "system", subtype: "agentmux_session_outcome", outcome: "exited", code: 0 }))
    return out
  }
}

const ZONE = (uid: string) => `agent:${uid}:current`

/**
 * Create a store at `path` whose agent zone `agent:<uid>:current` holds at
 * least `bytes` bytes of stream-json output (whole sessions), with its
 * `output.tsidx` (a record every 20-200 lines, 0.1-3 s apart). A small zone of
 * another agent sits beside it. Answers the output's size and line count.
 */
export const writeAgentMuxStore = (
  path: string,
  uid: string,
  bytes: number,
  opts: { wal?: boolean; seed?: number } = {}
): { outputBytes: number; tsidxBytes: number; lines: number; deltaBytes: number } => {
  createStore(path, [], { wal: opts.wal ?? true })
  const gen = new StreamJson(opts.seed ?? 11)
  const r = prng((opts.seed ?? 11) + 5)
  const db = new Database(path)
  let lines = 0
  let deltaBytes = 0
  let tsidx: Array<string> = []
  let tsidxBytes = 0
  const result = db.transaction(() => {
    const out = new PartWriter(db, ZONE(uid), "output")
    let ms = 1_760_000_000_000
    let nextStamp = 0
    const pending: Array<string> = []
    let pendingBytes = 0
    while (out.size < bytes) {
      for (const l of gen.sessionLines(r.int(5, 60))) {
        if (nextStamp <= 0) {
          ms += r.int(100, 3000)
          tsidx.push(`{"off":${out.size + pendingBytes},"ms":${ms}}\n`)
          nextStamp = r.int(20, 200)
        }
        nextStamp--
        const n = Buffer.byteLength(l, "utf8") + 1
        pending.push(l, "\n")
        pendingBytes += n
        if (l.startsWith("{\"type\":\"stream_event\"")) deltaBytes += n
        lines++
      }
      out.write(Buffer.from(pending.join(""), "utf8"))
      pending.length = 0
      pendingBytes = 0
    }
    out.close(1_759_999_000_000)
    const t = new PartWriter(db, ZONE(uid), "output.tsidx")
    const tb = Buffer.from(tsidx.join(""), "utf8")
    tsidxBytes = tb.length
    t.write(tb)
    t.close(1_759_999_000_000)
    tsidx = []
    const other = new PartWriter(db, "agent:someone-else:current", "output")
    other.write(Buffer.from(gen.sessionLines(3).join("\n") + "\n"))
    other.close(1_759_999_000_000)
    return out.size
  })()
  db.close()
  return { outputBytes: result, tsidxBytes, lines, deltaBytes }
}

/**
 * Append whole sessions of about `bytes` bytes to the agent's `output` as
 * AgentMux does (fill the last part, then new parts), and one tsidx record
 * for the batch, in one transaction. `writer`: a connection kept open across
 * appends, as a running AgentMux keeps the store (in WAL mode its `-wal` then
 * stays, checkpointed by SQLite every ~1000 pages); else the store is opened
 * for the append and closed (the close checkpoints a WAL store and removes its
 * `-wal`). Answers the bytes appended.
 */
export const appendToAgentMuxStore = (
  path: string,
  uid: string,
  bytes: number,
  seed: number,
  writer?: Database.Database
): number => {
  const gen = new StreamJson(seed)
  const lines: Array<string> = []
  let n = 0
  while (n < bytes) {
    for (const l of gen.sessionLines(3)) {
      lines.push(l + "\n")
      n += Buffer.byteLength(l) + 1
      if (n >= bytes) break
    }
  }
  // keep whole sessions' tails honest: the cut may leave a session open; its lines still carry session_id.
  const more = Buffer.from(lines.join(""), "utf8")
  const append = (db: Database.Database) => {
    const row = db.prepare("SELECT size FROM db_wave_file WHERE zoneid = ? AND name = 'output'").get(ZONE(uid)) as { size: number }
    appendBytes(db, ZONE(uid), "output", more)
    appendBytes(db, ZONE(uid), "output.tsidx", Buffer.from(`{"off":${row.size},"ms":${Date.now()}}\n`))
  }
  if (writer !== undefined) writer.transaction(() => append(writer))()
  else withStore(path, append)
  return more.length
}
