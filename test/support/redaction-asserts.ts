/** Assertions the redaction rule tests share (default rules). */
import { expect } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SessionEvent, Transcript } from "../../src/domain/model.js"
import { shareableEvents, shareableReplaySource, shareableTranscript, shareableTrajectory } from "../../src/layers/share.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction, type Redaction } from "../../src/services/Redaction.js"
import { secretSamples } from "./secrets.js"
import { transcriptFromEvents } from "../../src/domain/conversation.js"
import { renderTranscriptMarkdown } from "../../src/domain/render.js"
import { toolInputText } from "../../src/domain/tool-input-text.js"

const r = defaultRedaction

/** `text` redacted: the secret gone, what stays around it (`keep`) still there, and redacting again changes nothing. */
export const gone = (text: string, secret: string, ...keep: Array<string>) => {
  const out = r.text(text)
  expect(out, text).not.toContain(secret)
  expect(out, text).toContain("[REDACTED:")
  for (const k of keep) expect(out, text).toContain(k)
  expect(r.text(out), `idempotent: ${text}`).toBe(out)
  return out
}
/** `text` left exactly as it is. */
export const stays = (text: string) => expect(r.text(text), text).toBe(text)
/** Text held in a JSON string (its quotes escaped), without the string's own quotes. */
export const inString = (text: string) => JSON.stringify(text).slice(1, -1)

/**
 * Each secret of `secrets` gone from `text` redacted (by the default rules) as text, as JSON text and as JSON text
 * held in a string, each of `keep` still there, and the redaction idempotent; returns `text` redacted as text.
 */
export const allGone = (text: string, secrets: ReadonlyArray<string>, keep: ReadonlyArray<string> = []) => {
  for (const t of [text, JSON.stringify({ output: text }), inString(JSON.stringify({ output: text }))]) {
    const out = r.text(t)
    for (const s of secrets) expect(out, t).not.toContain(s)
    for (const k of keep) expect(out, t).toContain(k)
    expect(r.text(out), `idempotent: ${t}`).toBe(out)
  }
  return r.text(text)
}

/** Joined at run time, so that no secret scanner flags a test file for its samples. */
export const j = (...p: Array<string>) => p.join("")
/** An RSA private key's armour lines and three body pieces (a sample, not a key). */
export const BEGIN = j("-----BEGIN RSA ", "PRIVATE KEY-----")
export const END = j("-----END RSA ", "PRIVATE KEY-----")
export const B1 = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
export const B2 = "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK"
export const B3 = "bwKfBstIs+bMY2Zk"
/** `out` holds no piece of the sample key (nor its END line) and the `private-key` marker. */
export const noKey = (out: string) => {
  for (const b of [B1, B2, B3, "MIIEow", END]) expect(out).not.toContain(b)
  expect(out).toContain(marker("private-key"))
}

/** Event `n` of a Claude Code session `s1` (an assistant message, no text), with `fields` over it. */
export const sessionEvent = (n: number, fields: Partial<SessionEvent>): SessionEvent => ({
  contractVersion: "1.1.0",
  provider: "claude-code",
  sourceId: "src_x",
  sessionId: "s1",
  eventId: `e${n}`,
  sequence: n,
  occurredAt: `2026-08-01T00:00:0${n}.000Z`,
  kind: "message",
  role: "assistant",
  text: null,
  cursor: `c${n}`,
  rawReference: { locatorClass: "jsonl-line", line: n },
  ...fields
} as unknown as SessionEvent)

/**
 * Each sample of each rule id (`secretSamples`) goes in the four places a vendor token is met: a sentence, an
 * assignment, a JSON string and a header, replaced by its own rule's marker (the assignment: the token gone).
 */
export const expectVendorSamplesGo = (ids: ReadonlyArray<string>) => {
  const samples = secretSamples()
  for (const id of ids) {
    expect(samples[id], id).toBeDefined()
    for (const key of samples[id]) {
      expect(r.text(`token: ${key} ok`), id).toBe(`token: ${marker(id)} ok`)
      gone(`export VENDOR_CREDENTIAL=${key}`, key)
      expect(r.text(JSON.stringify({ note: `use ${key}` })), id).toBe(JSON.stringify({ note: `use ${marker(id)}` }))
      expect(r.text(`curl -H 'X-Vendor: ${key}' https://api.example.com`), id).toBe(`curl -H 'X-Vendor: ${marker(id)}' https://api.example.com`)
    }
  }
}

/**
 * The texts of a session's events in each shareable output of events (`src/layers/share.ts`), redacted by the
 * `Redaction` in the context: the NDJSON export read whole and one event at a time (a joint across two chunks), and
 * the replay; with the ATIF trajectory as JSON text. For the tests that every output hides a secret alike.
 */
export const sharedEventTexts = (events: () => ReadonlyArray<SessionEvent>) =>
  Effect.gen(function*() {
    const texts = (es: Iterable<SessionEvent>) => [...es].map((e) => e.text)
    return {
      export: texts(yield* Stream.runCollect(shareableEvents(Stream.fromIterable(events())))),
      exportOneByOne: texts(yield* Stream.runCollect(shareableEvents(Stream.fromIterable(events()).pipe(Stream.rechunk(1))))),
      replay: texts((yield* shareableReplaySource({ session: { sessionId: "s1", title: null, model: null, workspace: null } as never, events: events(), subagents: [] } as never)).events),
      atif: JSON.stringify(yield* shareableTrajectory({ session: { sessionId: "s1", title: null, model: null } as never, events: events(), subagents: [] } as never))
    }
  }) as Effect.Effect<{ export: Array<string | null>; exportOneByOne: Array<string | null>; replay: Array<string | null>; atif: string }, never, Redaction>

/**
 * Every shareable output of a session (`src/layers/share.ts`), redacted by the `Redaction` in the context: its
 * events as NDJSON export, ATIF, the replay's events, and the Markdown of a transcript of one assistant turn per
 * text of `texts` (the text said, then run as a Bash command): `[name, output]` pairs for a leak check.
 */
export const shareableOutputs = (events: () => ReadonlyArray<SessionEvent>, texts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const out: Array<readonly [string, unknown]> = []
    out.push(["export", Chunk.toReadonlyArray(yield* Stream.runCollect(shareableEvents(Stream.fromIterable(events()))))])
    out.push(["atif", yield* shareableTrajectory({ session: { sessionId: "s1", title: null, model: null } as never, events: events(), subagents: [] } as never)])
    out.push(["replay", (yield* shareableReplaySource({ session: { sessionId: "s1", title: null, model: null, workspace: null } as never, events: events(), subagents: [] } as never)).events])
    const t = {
      sessionId: "s1",
      turns: texts.map((text, i) => ({
        role: "assistant",
        timestamp: null,
        blocks: [{ type: "text", id: `t${i}`, text: `said ${text}` }, { type: "tool_use", id: `b${i}`, name: "Bash", input: { command: text } }]
      })),
      compactions: []
    } as unknown as Transcript
    out.push(["markdown", yield* shareableTranscript(t)])
    return out
  }) as Effect.Effect<Array<readonly [string, unknown]>, never, Redaction>

/**
 * Every shareable output of a session of one tool call per input of `inputs` (a Claude Code `tool-call` event each,
 * its `text` the one-line JSON of its input as the provider makes it: `toolInputText`), redacted by the `Redaction`
 * in the context, as text: the NDJSON export, the ATIF trajectory and the replay's events as JSON, and the Markdown
 * document `show --format markdown` writes (its tool inputs pretty-printed). For the tests that a tool input is
 * redacted alike whatever layout an output gives it.
 */
export const toolCallOutputs = (inputs: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const events = () =>
      inputs.map((input, i) =>
        sessionEvent(i + 1, { kind: "tool-call", toolName: "WebFetch", toolCallId: `call${i}`, toolInput: input, text: toolInputText(input) } as Partial<SessionEvent>)
      )
    const json = (v: unknown) => JSON.stringify(v)
    return {
      export: json(Chunk.toReadonlyArray(yield* Stream.runCollect(shareableEvents(Stream.fromIterable(events()))))),
      atif: json(yield* shareableTrajectory({ session: { sessionId: "s1", title: null, model: null } as never, events: events(), subagents: [] } as never)),
      replay: json((yield* shareableReplaySource({ session: { sessionId: "s1", title: null, model: null, workspace: null } as never, events: events(), subagents: [] } as never)).events),
      markdown: renderTranscriptMarkdown(yield* shareableTranscript(transcriptFromEvents({ sessionId: "s1" }, events())))
    }
  }) as Effect.Effect<{ export: string; atif: string; replay: string; markdown: string }, never, Redaction>
