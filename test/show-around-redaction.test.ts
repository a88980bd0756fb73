/**
 * tester22b F2: a window of a session (`show --around EVENT`, the one CLI output that shows part of a session)
 * is redacted as the whole session is (docs/redaction.md: a value an earlier event caught "is also redacted, with
 * the same marker, where a later event of its session restates it … in every redacted output alike", and a secret
 * cut across two text events of one response is found "in every redacted output"). The promise, as a differential:
 * every window's redacted events equal the matching slice of the whole session's (`export`), and every block of a
 * window's redacted Markdown transcript is the whole session's block; a window's diagnostics are the session's (a
 * result whose call lies just before the window is shown with its call, not counted as an orphan output).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { transcriptFromEvents } from "../src/domain/conversation.js"
import type { SessionEvent, Transcript, TranscriptBlock } from "../src/domain/model.js"
import { outsideRuns, shareableEvents, shareableTranscript, shareableWindow, shareableWindowTranscript } from "../src/layers/share.js"
import { Redaction } from "../src/services/Redaction.js"
import { j, sessionEvent as ev } from "./support/redaction-asserts.js"
import { tempDir } from "./support/paths.js"
import { cli, collect } from "./support/run.js"

/** Values caught once where a rule sees their name, restated later as bare words; a token cut in two; one caught far away. */
const PG = j("PgQP6s", "UHpzes!x")
const ENV = j("EnvATe93", "yKpcd97#")
const NETRC = j("NrC1Wb7x", "IscdzL9")
const BEARER = j("5A7How2oWS7nrsMVr7mY", "a33tgK8nceIp44PwuDQj")
const TOKEN = j("ghp_Spl1tT0ken", "AbCdEfGh1234567890XyZwVu")
const FAR = j("FarAway9", "Pw!zq")
const SECRETS = [PG, ENV, NETRC, BEARER, TOKEN, FAR]

const call = (n: number, id: string, toolName: string, input: Record<string, unknown>): SessionEvent =>
  ev(n, { kind: "tool-call", toolName, toolCallId: id, toolInput: input, text: JSON.stringify(input) } as Partial<SessionEvent>)
const result = (n: number, id: string, text: string): SessionEvent => ev(n, { kind: "tool-result", role: "user", toolCallId: id, text })
const said = (n: number, text: string, responseId: string | null = `r${n}`): SessionEvent => ev(n, { kind: "message", text, responseId } as Partial<SessionEvent>)

/** A session of the tester's shapes, `filler` tool calls between the far value's catch and its restatement. */
const session = (filler: number): Array<SessionEvent> => {
  const es: Array<SessionEvent> = [ev(0, { kind: "message", role: "user", text: "connect to the db" })]
  const add = (f: (n: number) => SessionEvent) => es.push(f(es.length))
  add((n) => call(n, "t1", "Bash", { command: `PGPASSWORD=${PG} psql -h db && curl -H "Authorization: Bearer ${BEARER}" https://api.example.com` }))
  add((n) => result(n, "t1", "connected"))
  add((n) => call(n, "t2", "Write", { file_path: "/srv/app/.env", content: `DB_PASSWORD=${ENV}\nMAX_TOKENS=4096\n` }))
  add((n) => result(n, "t2", "File created successfully"))
  add((n) => call(n, "t3", "Bash", { command: "cat ~/.netrc" }))
  add((n) => result(n, "t3", `machine api.example.com login bob password ${NETRC}`))
  add((n) => said(n, `Done. I logged in with ${PG} and wrote ${ENV}; netrc ${NETRC}; bearer ${BEARER}`))
  add((n) => said(n, `Your token is ${TOKEN.slice(0, 20)}`, "split"))
  add((n) => said(n, `${TOKEN.slice(20)} and keep it safe.`, "split"))
  add((n) => call(n, "t4", "Bash", { command: `PGPASSWORD=${FAR} psql -h far` }))
  add((n) => result(n, "t4", "connected"))
  for (let i = 0; i < filler; i++) {
    add((n) => call(n, `f${i}`, "Bash", { command: `echo filler ${i}` }))
    add((n) => result(n, `f${i}`, `filler ${i}`))
  }
  add((n) => said(n, `Finally logged in with ${FAR} again.`))
  return es.map((e, i) => ({ ...e, sequence: i, eventId: `e${i}`, cursor: `c${i}`, occurredAt: new Date(Date.UTC(2026, 7, 1) + i * 1000).toISOString() }))
}

/** The window of `n` events on each side of `events[at]`, with its neighbours, as `show --around` reads it. */
const windowOf = (events: ReadonlyArray<SessionEvent>, at: number, n: number) => {
  const from = Math.max(0, at - n)
  const to = Math.min(events.length, at + n + 1)
  const { after, before } = outsideRuns(events, from, to)
  return { session: Stream.fromIterable(events), before, events: events.slice(from, to), after }
}

const build = (events: ReadonlyArray<SessionEvent>): Transcript => transcriptFromEvents({ sessionId: "s1" }, events)
const markdownOf = (events: ReadonlyArray<SessionEvent>): Effect.Effect<Transcript, never, Redaction> => shareableTranscript(build(events))

const blocksOf = (t: Transcript): Array<TranscriptBlock> => t.turns.flatMap((turn) => turn.blocks)

describe("show --around (tester22b F2): a window redacted as its whole session", () => {
  it.effect("every window's events equal the slice of the whole session's redacted events; its Markdown blocks are the whole's", () =>
    Effect.gen(function*() {
      const events = session(6)
      const whole = yield* collect(shareableEvents(Stream.fromIterable(events)))
      const wholeMd = yield* markdownOf(events)
      const texts = new Set(blocksOf(wholeMd).flatMap((b) => (b.type === "tool_use" ? [] : [b.text])))
      const uses = new Map(blocksOf(wholeMd).flatMap((b) => (b.type === "tool_use" ? [[b.id, b] as const] : [])))
      for (const s of SECRETS) expect(JSON.stringify(wholeMd)).not.toContain(s)
      for (let at = 0; at < events.length; at++) {
        for (const n of [0, 1, 3]) {
          const w = windowOf(events, at, n)
          const shown = yield* shareableWindow(w)
          const label = `around e${at}, context ${n}`
          // the window's events are the whole's slice; the calls of its results are the whole's events
          expect(shown.events, label).toEqual(whole.slice(w.events[0].sequence, w.events[0].sequence + w.events.length))
          for (const c of shown.calls) expect(c, label).toEqual(whole[c.sequence])
          const md = yield* shareableWindowTranscript(build, shown)
          for (const s of SECRETS) expect(JSON.stringify(md), label).not.toContain(s)
          for (const b of blocksOf(md)) {
            if (b.type !== "tool_use") expect(texts.has(b.text), `${label}: ${b.text}`).toBe(true)
            else {
              expect(b.input, label).toEqual(uses.get(b.id)!.input)
              if (b.result !== undefined) expect(uses.get(b.id)!.result, label).toContain(b.result)
            }
          }
          expect(md.diagnostics, label).toEqual(wholeMd.diagnostics)
        }
      }
    }).pipe(Effect.provide(Redaction.layer)))

  it.effect("the far shape: a value caught hundreds of events earlier; the window's first result shown with its call", () =>
    Effect.gen(function*() {
      const events = session(300)
      const last = events.length - 1
      const md = yield* shareableWindowTranscript(build, yield* shareableWindow(windowOf(events, last, 1)))
      expect(md.diagnostics).toEqual([])
      const blocks = blocksOf(md)
      expect(blocks.map((b) => b.type)).toEqual(["tool_use", "text"])
      expect(blocks[0]).toMatchObject({ id: "f299", result: "filler 299" })
      expect(blocks[1]).toEqual({ type: "text", text: "Finally logged in with [REDACTED:secret-assignment] again." })
    }).pipe(Effect.provide(Redaction.layer)))

  it.effect("without redaction the window is its events (with the calls of its results), unchanged", () =>
    Effect.gen(function*() {
      const events = session(2)
      const w = windowOf(events, 8, 0)
      expect(yield* shareableWindow(w)).toEqual({ calls: [], events: [events[8]], before: [events[7]], after: [events[9]] })
      expect(yield* shareableWindow(windowOf(events, 6, 0))).toEqual({ calls: [events[5]], events: [events[6]], before: [events[5]], after: [events[7]] })
    }).pipe(Effect.provide(Redaction.off)))
})

// ---- the CLI, as the tester ran it: Claude Code sessions imported, `show --around … --format markdown` ----

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }

/** A Claude Code session file of `lines` (records without the common fields). */
const writeSession = (root: string, sid: string, records: ReadonlyArray<Record<string, unknown>>) => {
  const dir = path.join(root, "-srv-app")
  fs.mkdirSync(dir, { recursive: true })
  let parent: string | null = null
  const lines = records.map((o, i) => {
    const uuid = `aaaaaaaa-bbbb-4ccc-8ddd-${String(i + 1).padStart(12, "0")}`
    const line = { parentUuid: parent, isSidechain: false, userType: "external", cwd: "/srv/app", sessionId: sid, version: "2.0.76", uuid, timestamp: new Date(Date.UTC(2026, 10, 20) + i * 100).toISOString(), ...o }
    parent = uuid
    return JSON.stringify(line)
  })
  fs.writeFileSync(path.join(dir, `${sid}.jsonl`), lines.join("\n") + "\n")
}
const user = (content: unknown) => ({ type: "user", message: { role: "user", content } })
const assistant = (id: string, content: ReadonlyArray<unknown>) => ({
  type: "assistant",
  requestId: `req_${id}`,
  message: { model: "claude-sonnet-4-5-20250929", id: `msg_${id}`, role: "assistant", content, usage: { input_tokens: 1, output_tokens: 1 } }
})
const bash = (id: string, command: string, out: string) => [
  assistant(id, [{ type: "tool_use", id: `tu_${id}`, name: "Bash", input: { command } }]),
  user([{ type: "tool_result", tool_use_id: `tu_${id}`, content: out }])
]

describe("show --around --format markdown (the CLI, tester22b F2's repros)", () => {
  const dir = tempDir("si-around22-")
  const root = path.join(dir, "projects")
  const SID = "11111111-2222-4333-8444-555555555555"
  const filler = Array.from({ length: 1500 }, (_, i) => bash(`f${i}`, `echo filler ${i}`, `filler ${i}`)).flat()
  writeSession(root, SID, [
    user("connect to the db"),
    ...bash("1", `PGPASSWORD=${PG} psql -h db && curl -H "Authorization: Bearer ${BEARER}" https://api.example.com`, "connected"),
    ...bash("2", "cat ~/.netrc", `machine api.example.com login bob password ${NETRC}`),
    assistant("3", [{ type: "text", text: `Done. I logged in with ${PG}; netrc ${NETRC}; bearer ${BEARER}` }]),
    assistant("split", [{ type: "text", text: `Your token is ${TOKEN.slice(0, 20)}` }]),
    assistant("split", [{ type: "text", text: `${TOKEN.slice(20)} and keep it safe.` }]),
    ...bash("4", `PGPASSWORD=${FAR} psql -h far`, "connected"),
    ...filler,
    assistant("z", [{ type: "text", text: `Finally logged in with ${FAR} again.` }])
  ])
  const index = path.join(dir, "i.db")
  const markdown = (...args: ReadonlyArray<string>) => {
    const r = cli(["show", "11111111", "--index", index, "--format", "markdown", ...args], { env })
    expect(r.code, r.stderr).toBe(0)
    return r.stdout
  }

  it("each window hides what the whole session's Markdown hides, and reports no orphan output of its own", () => {
    const imp = cli(["import", "--index", index, "--claude-root", root, "--agents-root", path.join(dir, "none"), "--json"], { env })
    expect([0, 8], imp.stderr).toContain(imp.code)
    const whole = markdown()
    for (const s of SECRETS) expect(whole).not.toContain(s)
    const last = 10 + filler.length + 1
    // the recurrence (line 6), the split token's two halves (lines 7, 8), the far value (the last line)
    for (const [line, context] of [[6, 0], [6, 3], [8, 0], [7, 0], [7, 1], [last, 1], [last, 0]] as const) {
      const md = markdown("--around", `line-${line}`, "--context", String(context))
      for (const s of SECRETS) expect(md, `line-${line} context ${context}`).not.toContain(s)
      expect(md).not.toContain("orphan-tool-output")
    }
    // the window's text is the whole's, markers and all
    const done = whole.split("\n").find((l) => l.startsWith("Done. I logged in with"))!
    expect(done).toMatch(/^Done\. I logged in with \[REDACTED:[a-z-]+\]; netrc \[REDACTED:[a-z-]+\]; bearer \[REDACTED:[a-z-]+\]$/)
    expect(markdown("--around", "line-6", "--context", "0").split("\n")).toContain(done)
    expect(markdown("--around", "line-8", "--context", "0").trimEnd().split("\n").pop()).toBe(" and keep it safe.")
    expect(markdown("--around", `line-${last}`, "--context", "0")).toContain("Finally logged in with [REDACTED:secret-assignment] again.")
    // the raw record stays raw: --no-redact shows the values
    expect(markdown("--around", `line-${last}`, "--context", "0", "--no-redact")).toContain(FAR)
  })
})

describe("show --format markdown: a known secret a prose rule takes but its last character (tester22c F2)", () => {
  const dir = tempDir("si-around23-")
  const root = path.join(dir, "projects")
  const SID = "11111111-2222-4333-8444-555555555555"
  // `credential-prose` takes `the password …` up to the `!`; the Bash line's `secret-assignment` caught it whole first
  const PW = j("Xy9zQw12", "Ab!")
  writeSession(root, SID, [
    user("Connect to the db please"),
    ...bash("1", `PGPASSWORD=${PW} psql -h db -U app -c 'select 1'`, " ?column? \n 1"),
    assistant("2", [{ type: "text", text: `Done. I connected using the password ${PW} as you asked; call 5551234 later.` }]),
    user(`Thanks, remember ${PW} is the prod one`)
  ])
  const index = path.join(dir, "i.db")
  const markdown = (...args: ReadonlyArray<string>) => {
    const r = cli(["show", "11111111", "--index", index, "--format", "markdown", ...args], { env })
    expect(r.code, r.stderr).toBe(0)
    return r.stdout
  }

  it("the whole value is hidden, its last character too, in the whole session and in a window", () => {
    const imp = cli(["import", "--index", index, "--claude-root", root, "--agents-root", path.join(dir, "none"), "--json"], { env })
    expect([0, 8], imp.stderr).toContain(imp.code)
    const said = "Done. I connected using the password [REDACTED:secret-assignment] as you asked; call 5551234 later."
    for (const md of [markdown(), markdown("--around", "line-4", "--context", "0")]) {
      expect(md.split("\n")).toContain(said)
      expect(md).not.toContain("]!")
      expect(md).not.toContain("Ab!")
    }
    expect(markdown()).toContain(`remember [REDACTED:secret-assignment] is the prod one`)
  })
})
