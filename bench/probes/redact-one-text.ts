/**
 * Probe and floor of the figure `redact-many-secrets-one-text` (tester24a F11): `node redact-one-text.mjs MB
 * redact|floor`. Builds one tool output of `MB` x 10^6 characters of `password=<12 random characters>1` lines (a
 * fixed seed: about 44,000 secrets per MB) and times only the step under test:
 * - `redact`: a session redactor of the default rules (`sessionRedactor`, what export, the replay, Markdown and MCP
 *   answers run) over that event, then a message restating one of the secrets;
 * - `floor`: one `indexOf` pass over the same text (a character that never occurs).
 *
 * Prints `{ms, maxRssKiB, bytes, stepMs, secrets}`.
 */
import type { SessionEvent } from "../../src/domain/model.js"
import { sessionRedactor } from "../../src/domain/redaction/redact.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { report } from "../floors/report.js"

const t0 = performance.now()
const [mb, mode] = process.argv.slice(2)
if (!(Number(mb) > 0) || (mode !== "redact" && mode !== "floor")) {
  process.stderr.write("usage: redact-one-text.mjs MB redact|floor\n")
  process.exit(2)
}
const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
let x = 1
const lines: Array<string> = []
let size = 0
while (size < Number(mb) * 1e6) {
  let t = ""
  for (let i = 0; i < 12; i++) t += chars[(x = (x * 1103515245 + 12345) % 2147483648) % chars.length]
  const line = `password=${t}1`
  lines.push(line)
  size += line.length + 1
}
const text = lines.join("\n")
const event = (n: number, kind: SessionEvent["kind"], t: string): SessionEvent => ({
  contractVersion: "1.3.0",
  provider: "claude-code",
  sourceId: "src_bench",
  sessionId: "s1",
  eventId: `e${n}`,
  sequence: n,
  kind,
  role: kind === "message" ? "assistant" : "tool",
  occurredAt: "2026-02-01T00:00:00.000Z",
  cursor: `c${n}`,
  text: t
} as unknown as SessionEvent)
const events = [event(1, "tool-result", text), event(2, "message", `I used ${lines[0].slice(9)} here.`)]
let sink = 0
const s = performance.now()
if (mode === "redact") {
  const sr = sessionRedactor(defaultRedaction)
  for (const e of events) sink += sr.event(e).text?.length ?? 0
} else sink += text.indexOf("\u0000")
const stepMs = performance.now() - s
report(t0, { bytes: text.length, stepMs, secrets: lines.length, sink: sink < 0 ? 0 : sink })
