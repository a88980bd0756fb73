/**
 * Session 30 (perf30): a session's secrets gathered from only the events the redaction's prefilter says may note
 * one (`SessionRedactor.needs` over the event's JSON) equal those of seeing every event, entries and order.
 */
import { describe, expect, it } from "vitest"
import { CONTRACT_VERSION, type SessionEvent } from "../../src/domain/model.js"
import { sessionRedactor } from "../../src/domain/redaction/redact.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

let n = 0
const ev = (kind: string, fields: Partial<SessionEvent>): SessionEvent => ({
  contractVersion: CONTRACT_VERSION, provider: "claude-code", sourceId: "s", sessionId: "x", eventId: `e${n}`, sequence: n++,
  kind, role: kind === "tool-result" ? "user" : "assistant", toolName: null, toolCallId: null, model: null, occurredAt: "2026-01-01T00:00:00Z",
  text: null, cursor: `c${n}`, rawReference: { locatorClass: "claude-code-jsonl", sequence: n }, extensions: {}, toolInput: null, isError: null,
  compaction: null, parent: null, child: null, usage: null, responseId: null, costUsd: null, ...fields
} as SessionEvent)

const hostile: ReadonlyArray<SessionEvent> = [
  ev("message", { text: "plain words about the build and a config file" }),
  ev("tool-call", { toolName: "Bash", toolCallId: "t1", toolInput: { command: "deploy", env: { API_TOKEN: "tok-abcdef123456" } } }),
  ev("tool-call", { toolName: "Bash", toolCallId: "t2", toolInput: { command: "export DB_PASSWORD=hunter2hunter && npm run migrate" } }),
  ev("tool-call", { toolName: "Bash", toolCallId: "t3", toolInput: ["curl", "--password", "s3cretValue99"] }),
  ev("tool-call", { toolName: "Http", toolCallId: "t4", toolInput: { headers: [["X-Api-Key", "k3y-0123456789abcdef"]] } }),
  ev("tool-call", { toolName: "Http", toolCallId: "t5", toolInput: { headers: [{ name: "Authorization", value: "Basic dXNlcjpwYXNzd29yZA==" }] } }),
  ev("tool-call", { toolName: "Bash", toolCallId: "t6", toolInput: { command: "doppler secrets get STRIPE_KEY --plain" } }),
  ev("tool-result", { toolCallId: "t6", text: "sk_printed_value_0123456789", isError: false }),
  ev("message", { text: "connect to postgres://admin:Pa55w0rdXYZ@db.example.com:5432/app" }),
  ev("message", { text: "the user is at /home/janedoe/project and ghp_0123456789abcdefghijklmnopqrstuvwxyzAB" }),
  ev("tool-call", { toolName: "Sign", toolCallId: "t7", toolInput: { webhookSignature: "a1b2c3d4e5f60718293a4b5c6d7e8f90" } }),
  ev("tool-call", { toolName: "Pay", toolCallId: "t8", toolInput: { card: { cvv: "123", pin: 4321 } } }),
  ev("message", { text: "ANSI \u001b[31mpassword=redhot99\u001b[0m and %70assword=pct12345" }),
  ev("message", { text: "restating tok-abcdef123456 and hunter2hunter" })
]

const gather = (events: ReadonlyArray<SessionEvent>, filtered: boolean) => {
  const sr = sessionRedactor(defaultRedaction)
  let decoded = 0
  for (const e of events) {
    if (filtered && !sr.needs(e.kind, [JSON.stringify(e)])) continue
    decoded++
    sr.see(e)
  }
  return { known: [...sr.known], decoded }
}

describe("a session's secrets through the prefilter (session 30)", () => {
  it("the default rules give a prefilter", () => {
    expect(defaultRedaction.mayNote).toBeDefined()
  })
  it("gathers the same secrets, in the same order, as seeing every event", () => {
    const all = gather(hostile, false)
    expect(all.known.length).toBeGreaterThan(5)
    expect(gather(hostile, true).known).toEqual(all.known)
  })
  it("passes over an event that can note nothing", () => {
    // (its stored body's text alone: a whole event's JSON holds times and field names some needles are in)
    expect(sessionRedactor(defaultRedaction).needs("message", [JSON.stringify(["e1", "we ran the tests and they were green"])])).toBe(false)
  })
  it("an unknown stored form is always seen", () => {
    expect(sessionRedactor(defaultRedaction).needs("message", null)).toBe(true)
  })
})
