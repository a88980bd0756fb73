/**
 * Probe of figure (r), in process: the HTML replay of a session of EVENTS
 * normalized events (a user message, thinking, assistant text, Bash, Edit and
 * Read calls with their results, a compaction every 5,000 events), built and
 * rendered by the library (`replayInput` + `renderReplay`), timed from the
 * events in memory to the page's text; and, as its floor, the least any
 * writer of those events does: `JSON.stringify` of them. Writes the page to
 * OUT and the floor page (the same events as one JSON block that a script
 * only parses) to FLOOR_OUT, for the browser half of the figure.
 * `node replay-render.mjs EVENTS OUT FLOOR_OUT`.
 *
 * `node replay-render.mjs --one-turn CALLS OUT OUT_ASCII` writes instead the
 * pages of the figure's emoji / CJK variant: one user message, then one
 * assistant turn of CALLS Bash calls whose results each hold 12 emoji and 12
 * CJK words (tester21b F3; text whose glyphs a bare system's fonts lack), to
 * OUT; and as its floor the same session with every such character an ASCII
 * letter, to OUT_ASCII.
 *
 * `node replay-render.mjs --one-block KIB OUT OUT_ASCII` writes the pages of
 * the long-text variant: one Bash result of KIB KiB of lines holding emoji and
 * CJK (a tool's output of megabytes, laid out whole it took 33 s for 2 MiB),
 * and the same in ASCII.
 */
import * as fs from "node:fs"
import { CONTRACT_VERSION, type SessionEvent } from "../../src/domain/model.js"
import { replayInput } from "../../src/domain/replay/build.js"
import { jsonForScript, renderReplay } from "../../src/domain/replay/render.js"
import { prng, textPool } from "../generate/common.js"

const oneTurn = process.argv[2] === "--one-turn"
const oneBlock = process.argv[2] === "--one-block"
const [count, out, floorOut] = process.argv.slice(oneTurn || oneBlock ? 3 : 2)
const n = Number(count)

const r = prng(15)
const texts = textPool(16, 512, 40, 1200)
const text = () => texts[Math.floor(r.next() * texts.length)]
const events: Array<SessionEvent> = []
let ms = Date.parse("2026-03-01T09:00:00Z")
const event = (kind: string, fields: Partial<SessionEvent>): SessionEvent => {
  const seq = events.length
  ms += 1000 + Math.floor(r.next() * 4000)
  const e: SessionEvent = {
    contractVersion: CONTRACT_VERSION,
    provider: "claude-code",
    sourceId: "sha256:bench",
    sessionId: "bench-replay",
    eventId: `line-${seq}`,
    sequence: seq,
    kind,
    role: null,
    toolName: null,
    toolCallId: null,
    model: "claude-sonnet-4-5",
    occurredAt: new Date(ms).toISOString(),
    text: null,
    cursor: `c${seq}`,
    rawReference: { locatorClass: "claude-code-session-log", sequence: seq },
    extensions: {},
    toolInput: null,
    isError: null,
    compaction: null,
    parent: null,
    child: null,
    usage: null,
    responseId: null,
    costUsd: null,
    ...fields
  }
  events.push(e)
  return e
}
/** The one-turn pages (see the module doc): CALLS Bash results with emoji and CJK, and the same in ASCII. */
const oneTurnPages = () => {
  const far = "lorem ipsum dolor sit amet \u{1F389} \u65E5\u672C\u8A9E\u30C6\u30B9\u30C8 "
  const page = (unit: string) => {
    events.length = 0
    event("message", { role: "user", text: "go" })
    for (let i = 0; i < n; i++) {
      event("tool-call", { role: "assistant", toolName: "Bash", toolCallId: `b${i}`, toolInput: { command: `cat f${i}` } })
      event("tool-result", { toolCallId: `b${i}`, text: `result ${i}: ${unit.repeat(12)}`, isError: false })
    }
    return renderReplay(replayInput({ session: { sessionId: "bench-one-turn", provider: "claude-code", title: "Bench one turn", workspace: "/w" }, events, subagents: [] }))
  }
  const html = page(far)
  // The same characters' count in ASCII (an emoji is two UTF-16 units: two letters).
  const ascii = page(far.replace(/\u{1F389}/u, "xx").replace(/[\u3000-\u9fff]/g, "y"))
  fs.writeFileSync(out, html)
  fs.writeFileSync(floorOut, ascii)
  process.stdout.write(JSON.stringify({ bytes: Buffer.byteLength(html), asciiBytes: Buffer.byteLength(ascii), calls: n }) + "\n")
}
/** The one-block pages (see the module doc): one Bash result of `n` KiB of lines with emoji and CJK, and the same in ASCII. */
const oneBlockPages = () => {
  const far = "lorem ipsum \u{1F389} \u65E5\u672C\u8A9E\u30C6\u30B9\u30C8 dolor \u{1F680} \u4E2D\u6587 sit amet"
  const page = (unit: string) => {
    const lines: Array<string> = []
    for (let i = 0, size = 0; size < n * 1024; i++) {
      lines.push(`${i}: ${unit}`)
      size += Buffer.byteLength(lines[i]) + 1
    }
    events.length = 0
    event("message", { role: "user", text: "go" })
    event("tool-call", { role: "assistant", toolName: "Bash", toolCallId: "b", toolInput: { command: "cat big.log" } })
    event("tool-result", { toolCallId: "b", text: lines.join("\n"), isError: false })
    return renderReplay(replayInput({ session: { sessionId: "bench-one-block", provider: "claude-code", title: "Bench one block", workspace: "/w" }, events, subagents: [] }))
  }
  const html = page(far)
  const ascii = page(far.replace(/\u{1F389}|\u{1F680}/gu, "xx").replace(/[\u3000-\u9fff]/g, "y"))
  fs.writeFileSync(out, html)
  fs.writeFileSync(floorOut, ascii)
  process.stdout.write(JSON.stringify({ bytes: Buffer.byteLength(html), asciiBytes: Buffer.byteLength(ascii), kib: n }) + "\n")
}
if (oneTurn) {
  oneTurnPages()
  process.exit(0)
}
if (oneBlock) {
  oneBlockPages()
  process.exit(0)
}
while (events.length < n) {
  const i = events.length
  event("message", { role: "user", text: text() })
  event("thinking", { role: "assistant", text: text() })
  event("message", {
    role: "assistant",
    text: text(),
    responseId: `r${i}`,
    usage: { inputTokens: 12, outputTokens: 300, cacheReadTokens: 20_000, cacheWriteTokens: 500, cacheWrite1hTokens: null }
  })
  event("tool-call", { role: "assistant", toolName: "Bash", toolCallId: `b${i}`, toolInput: { command: `npm test -- ${i}`, description: "Run the tests" } })
  event("tool-result", { toolCallId: `b${i}`, text: text(), isError: i % 7 === 0 })
  event("tool-call", { role: "assistant", toolName: "Edit", toolCallId: `e${i}`, toolInput: { file_path: `/w/src/f${i % 50}.ts`, old_string: text(), new_string: text() } })
  event("tool-result", { toolCallId: `e${i}`, text: "The file was updated.", isError: false })
  event("tool-call", { role: "assistant", toolName: "Read", toolCallId: `r${i}`, toolInput: { file_path: `/w/src/f${i % 50}.ts` } })
  event("tool-result", { toolCallId: `r${i}`, text: text(), isError: false })
  event("message", { role: "assistant", text: text() })
  if (events.length % 5000 < 10) event("summary", { role: "system", text: "compacted", compaction: { id: `cmp-${i}`, trigger: "auto" } })
}
events.length = n

// Floor: the events written out once as JSON, the least any page of them costs.
const f0 = performance.now()
const floorJson = JSON.stringify(events)
const floorMs = performance.now() - f0

const t0 = performance.now()
const html = renderReplay(replayInput({ session: { sessionId: "bench-replay", provider: "claude-code", title: "Bench replay", workspace: "/w" }, events, subagents: [] }))
const renderMs = performance.now() - t0

fs.writeFileSync(out, html)
// The floor page: the same events in one JSON block, a script that parses it and says it is done.
fs.writeFileSync(
  floorOut,
  `<!doctype html><html><head><meta charset="utf-8"></head><body><script type="application/json" id="d">${jsonForScript(events)}</script>` +
    `<script>var t=JSON.parse(document.getElementById("d").textContent);document.body.appendChild(document.createTextNode(t.length+" events"));` +
    `window.__replay={done:true,doneMs:performance.now(),firstPaintMs:null};</script></body></html>`
)
process.stdout.write(
  JSON.stringify({ renderMs, floorMs, bytes: Buffer.byteLength(html), floorJsonBytes: Buffer.byteLength(floorJson), events: n, maxRssKiB: process.resourceUsage().maxRSS }) + "\n"
)
