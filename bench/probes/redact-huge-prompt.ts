/**
 * Probe of a huge first prompt's redaction (tester33a F7, tester34c F3): `tsx redact-huge-prompt.ts N [whole|paused]` builds the
 * prompt of tester33a's repro (`user<i> pass Zx<i>qW! mysql -pS3cr<i> ` N times; 300,000: 13.8 MB) and runs what
 * `replay` runs on its session: every event seen by a session redactor, each redacted, and the title cut from the
 * prompt redacted with the session's secrets. Prints `{ms, maxRssKiB, bytes, stepMs, cpuMs, chars}`: `stepMs` and
 * `cpuMs` are wall and processor (user + system) time of those steps only.
 */
import type { SessionEvent } from "../../src/domain/model.js"
import { sessionRedactor } from "../../src/domain/redaction/redact.js"
import { titleSourceIn } from "../../src/domain/redaction/clipped.js"
import { attempt, Reruns } from "../../src/domain/redaction/pausable.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { report } from "../floors/report.js"

const t0 = performance.now()
const n = Number(process.argv[2] ?? "300000")
const mode = process.argv[3] ?? "whole"
let pauses = 0
let attempts = 0
let maxGap = 0
const gaps: Array<number> = []
let last = 0
const gap = () => {
  const t = process.cpuUsage().user / 1000
  gaps.push(Math.round(t - last))
  if (t - last > maxGap) maxGap = t - last
  last = t
}
/** `f()`, run at once (`whole`) or as the output boundary runs it (`paused`: `redactYielding` without the event loop). */
const run = <A>(f: () => A): A => {
  if (mode === "whole") return f()
  const runs = new Reruns()
  for (;;) {
    attempts++
    last = process.cpuUsage().user / 1000
    const r = attempt(f, runs)
    gap()
    if (r.done) return r.value
    const g = r.work
    while (g.next().done !== true) {
      pauses++
      gap()
    }
    gap()
  }
}
const parts: Array<string> = []
for (let i = 0; i < n; i++) parts.push(`user${i} pass Zx${String(i).padStart(5, "0")}qW! mysql -pS3cr${String(i).padStart(5, "0")} `)
const prompt = "Fix the Deploy: password is Zx0001qWpA1 and token " + parts.join("")
const event = (k: number, kind: SessionEvent["kind"], role: string, t: string): SessionEvent => ({
  contractVersion: "1.3.0",
  provider: "claude-code",
  sourceId: "src_bench",
  sessionId: "s1",
  eventId: `e${k}`,
  sequence: k,
  kind,
  role,
  occurredAt: "2026-02-01T00:00:00.000Z",
  cursor: `c${k}`,
  text: t
} as unknown as SessionEvent)
const events = [event(1, "message", "user", prompt), event(2, "message", "assistant", "ok")]
const title = prompt.slice(0, 80)
let sink = 0
const c0 = process.cpuUsage()
const s = performance.now()
const r = defaultRedaction
const sr = sessionRedactor(r)
for (const e of events) run(() => sr.see(e))
const known = new Map(sr.known)
for (const e of events) sink += run(() => sr.event(e)).text?.length ?? 0
sink += run(() => r.title(title, known, titleSourceIn(title, events.map((e) => e.text))))?.length ?? 0
const stepMs = performance.now() - s
const c = process.cpuUsage(c0)
report(t0, { bytes: prompt.length, stepMs, cpuMs: (c.user + c.system) / 1000, chars: sink, pauses, attempts, maxGapMs: Math.round(maxGap), gaps: process.env.GAPS === undefined ? undefined : gaps.join(" ") })
