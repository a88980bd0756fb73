/**
 * The synthetic record of agent `u1` used by the AgentMux tests: an archived
 * conversation (session S-A) and the current one (sessions S-B, S-C, S-B
 * again), with echoed user lines, an outcome line, a provider line without
 * session_id, an unreadable line, deltas whose payload holds an escaped
 * `"session_id":"` key, a CJK character cut by the 64 KiB part boundary, an
 * unowned line at the end and a half-written line after it; plus sidecars
 * whose records are out of order, some CRLF-terminated, the last unterminated.
 *
 * Every offset is computed here from the lines' bytes, so tests state the
 * expected values from the seed's rules and this fixture alone.
 */
import { tsidxRecord } from "./store-helper.js"

export const UID = "u1"
export const CURRENT = `agent:${UID}:current`
export const ARCHIVE = `agent:${UID}:archive:1699990000000`

/** Unix ms bases of the two zones' receive times. */
export const A0 = 1_699_900_000_000
export const T0 = 1_700_000_000_000

export interface Laid {
  readonly text: string
  readonly start: number
  readonly end: number
}

/** Lay lines out back to back (each `\n`-terminated) and answer their offsets. */
export const layout = (lines: ReadonlyArray<string>): { bytes: Buffer; lines: ReadonlyArray<Laid> } => {
  let off = 0
  const laid = lines.map((text) => {
    const start = off
    off += Buffer.byteLength(text, "utf8") + 1
    return { text, start, end: off }
  })
  return { bytes: Buffer.from(lines.map((l) => l + "\n").join(""), "utf8"), lines: laid }
}

const j = (v: unknown) => JSON.stringify(v)

export const echo = (text: string) => j({ type: "user", message: { role: "user", content: text } })
export const init = (sid: string, cwd: string) =>
  j({ type: "system", subtype: "init", cwd, session_id: sid, model: "claude-sonnet-4-5", tools: ["Bash"], uuid: `init-${sid}` })
export const assistant = (sid: string, id: string, content: unknown) =>
  j({
    type: "assistant",
    message: { id, type: "message", role: "assistant", model: "claude-sonnet-4-5", content },
    parent_tool_use_id: null,
    session_id: sid,
    uuid: `u-${id}`
  })
export const toolResult = (sid: string, toolUseId: string, content: unknown, isError = false) =>
  j({
    type: "user",
    message: { role: "user", content: [{ tool_use_id: toolUseId, type: "tool_result", content, is_error: isError }] },
    parent_tool_use_id: null,
    session_id: sid,
    uuid: `r-${toolUseId}`
  })
/** A streaming delta whose text holds the escaped bytes of another `"session_id":"` key. */
export const delta = (sid: string, text: string) =>
  j({
    type: "stream_event",
    event: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
    session_id: sid,
    parent_tool_use_id: null,
    uuid: `d-${text.length}`
  })
export const result = (sid: string, text: string) =>
  j({ type: "result", subtype: "success", is_error: false, result: text, session_id: sid })
export const outcome = () => j({ type: "system", subtype: "agentmux_session_outcome", outcome: "exited", code: 0 })

// ---- the archive zone: session S-A, then an outcome line (trailing unowned → joins the last run)
export const archiveLines = layout([
  echo("list the files"), // 0
  init("S-A", "/home/dev/alpha"), // 1
  delta("S-A", "I'll \"session_id\":\"FAKE\" run"), // 2
  assistant("S-A", "ma1", [{ type: "text", text: "I'll run ls." }]), // 3
  assistant("S-A", "ma2", [{ type: "tool_use", id: "toolu_a1", name: "Bash", input: { command: "ls" } }]), // 4
  toolResult("S-A", "toolu_a1", "a.txt\nb.txt"), // 5
  assistant("S-A", "ma3", [{ type: "text", text: "Two files." }]), // 6
  result("S-A", "Two files."), // 7
  outcome() // 8
])

export const archiveTsidx = (() => {
  const L = archiveLines.lines
  return [
    tsidxRecord(L[3].start, A0 + 3000),
    tsidxRecord(0, A0),
    tsidxRecord(L[8].start, A0 + 8000, "")
  ].join("")
})()

// ---- the current zone
const MARK = "\u0000MARK\u0000"
const bigTemplate = assistant("S-B", "mb1", [{ type: "thinking", thinking: "Say hello." }, { type: "text", text: MARK }])

/** The text of C2: padding so that "日" (3 bytes) starts at byte 65,535 of `output`, across the part boundary. */
export const bigText = (() => {
  const c0 = Buffer.byteLength(echo("hi again")) + 1
  const c1 = Buffer.byteLength(init("S-B", "/home/dev/beta")) + 1
  const markAt = Buffer.byteLength(bigTemplate.slice(0, bigTemplate.indexOf(j(MARK).slice(1, -1))))
  const pad = 65_535 - (c0 + c1 + markAt)
  return "x".repeat(pad) + "日本語 done"
})()

export const currentHead = [
  echo("hi again"), // C0: echo → belongs to S-B (next owned line)
  init("S-B", "/home/dev/beta"), // C1
  assistant("S-B", "mb1", [{ type: "thinking", thinking: "Say hello." }, { type: "text", text: bigText }]), // C2
  j({ type: "item.completed", item: { type: "agent_message", text: "from a provider without session_id" } }), // C3
  "{\"type\":\"assistant\",\"message\":", // C4: unreadable
  assistant("S-B", "mb2", [{ type: "tool_use", id: "toolu_b1", name: "Read", input: { file_path: "/etc/hosts" } }]), // C5
  toolResult("S-B", "toolu_b1", [{ type: "text", text: "denied" }], true), // C6
  echo("now something else"), // C7: echo → S-C
  init("S-C", "/home/dev/gamma"), // C8
  assistant("S-C", "mc1", [{ type: "text", text: "Gamma here." }]), // C9
  result("S-B", "resumed") // C10: S-B again → a second run
]
/** An unowned trailing line (waits for an owner in the current zone), then a half-written line. */
export const currentPending = echo("still typing")
export const halfLine = "{\"type\":\"assistant\",\"message\":{\"id\":\"mb9\""

export const currentLines = layout([...currentHead, currentPending])
export const currentBytes = Buffer.concat([currentLines.bytes, Buffer.from(halfLine, "utf8")])

export const currentTsidx = (() => {
  const C = currentLines.lines
  return [
    tsidxRecord(C[1].start, T0 + 1000, "\r\n"),
    tsidxRecord(0, T0),
    tsidxRecord(C[2].start + 100, T0 + 2000),
    tsidxRecord(C[7].start, T0 + 7000, "\r\n"),
    tsidxRecord(C[5].start, T0 + 5000),
    tsidxRecord(C[9].start + 3, T0 + 9000),
    tsidxRecord(C[10].start, T0 + 10000, "")
  ].join("")
})()

/** The whole store of the tests: the agent's zones plus zones that are not its own. */
export const storeFiles = (extra: { missingParts?: ReadonlyArray<number> } = {}) => [
  { zoneId: ARCHIVE, name: "output", bytes: archiveLines.bytes, createdTs: 1_699_800_000_000 },
  { zoneId: ARCHIVE, name: "output.tsidx", bytes: Buffer.from(archiveTsidx) },
  { zoneId: CURRENT, name: "output", bytes: currentBytes, createdTs: 1_699_995_000_000, ...extra },
  { zoneId: CURRENT, name: "output.tsidx", bytes: Buffer.from(currentTsidx) },
  // not the agent's own: another id, an id that extends u1, a template's shared zone, odd suffixes
  { zoneId: "agent:u2:current", name: "output", bytes: layout([init("S-X1", "/x")]).bytes },
  { zoneId: "agent:u1x:current", name: "output", bytes: layout([init("S-X2", "/x")]).bytes },
  { zoneId: "template:tpl-1:shared", name: "output", bytes: layout([init("S-X3", "/x")]).bytes },
  { zoneId: `agent:${UID}:archive:latest`, name: "output", bytes: layout([init("S-X4", "/x")]).bytes },
  { zoneId: `agent:${UID}:current:old`, name: "output", bytes: layout([init("S-X5", "/x")]).bytes }
]
