/**
 * Session 30 (perf30): a redacted search gathers a session's secrets from the SQLite index's stored events, decoding
 * only those the redaction's prefilter says may note one (`Index.forEachStoredEvent`, `SessionRedactor.needs`).
 * The secrets, and so every answer, are those of seeing every event: pinned here over a hostile session (secrets
 * under secret-named keys of a tool's input and of the provider's extensions, an option's value, a header pair,
 * a name/value object, a text rule's catch, a home path's user, a secret-printing command and its output, a
 * signature, a PIN, ANSI and percent-encoded text, a tool call whose text restates its input), padded with events
 * that can note nothing.
 */
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { EVENT_STRUCTURAL_FIELDS, sessionRedactor } from "../../src/domain/redaction/redact.js"
import { searchSessions } from "../../src/layers/mcp/answers.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { Index, type IndexShape, type SourceInfo } from "../../src/services/Index.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { tempDir } from "../support/paths.js"

const source: SourceInfo = {
  sourceKey: "src-p30",
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: "/x/src-p30" },
  summary: {},
  overview: { ...emptySourceSummary(), title: "deploy the release", workspace: "/srv/app" }
}

const hostile = (): Array<SessionEvent> => {
  const e = mk("claude-code", "sess-p30")
  const plain = (i: number) => e("message", { role: "assistant", text: `we ran the suite ${i} and it was green` })
  const input = { command: "curl -H 'X-Api-Key: k3y0123456789abcdef' https://api.example.com" }
  const out: Array<SessionEvent> = [
    e("message", { role: "user", text: "deploy the release" }),
    plain(1),
    e("tool-call", { toolName: "Bash", toolCallId: "t1", toolInput: { command: "deploy", env: { API_TOKEN: "tok-abcdef123456" } } }),
    plain(2),
    e("tool-call", { toolName: "Bash", toolCallId: "t2", toolInput: { command: "export DB_PASSWORD=hunter2hunter && npm run migrate" } }),
    e("tool-call", { toolName: "Run", toolCallId: "t3", toolInput: ["mysql", "--password", "s3cretValue99"] }),
    e("tool-call", { toolName: "Http", toolCallId: "t4", toolInput: { headers: [["X-Api-Key", "k3y-0123456789abcdef"]] } }),
    e("tool-call", { toolName: "Http", toolCallId: "t5", toolInput: { headers: [{ name: "Authorization", value: "Basic dXNlcjpwYXNzd29yZA==" }] } }),
    e("tool-call", { toolName: "Bash", toolCallId: "t6", toolInput: { command: "doppler secrets get STRIPE_KEY --plain" } }),
    plain(3),
    e("tool-result", { role: "user", toolCallId: "t6", text: "sk_printed_value_0123456789", isError: false }),
    e("message", { role: "user", text: "connect to postgres://admin:Pa55w0rdXYZ@db.example.com:5432/app" }),
    e("message", { role: "assistant", text: "the repo is in /home/janedoe/project" }),
    e("tool-call", { toolName: "Sign", toolCallId: "t7", toolInput: { webhookSignature: "a1b2c3d4e5f60718293a4b5c6d7e8f90" } }),
    e("tool-call", { toolName: "Pay", toolCallId: "t8", toolInput: { card: { cvv: "123", pin: 4321 } } }),
    e("message", { role: "assistant", text: "ANSI \u001b[31mpassword=redhot99\u001b[0m and %70assword=pct12345" }),
    e("message", { role: "assistant", text: "plain" }, { clientSecret: "extsecret-0123456789" }),
    e("tool-call", { toolName: "Bash", toolCallId: "t9", toolInput: input, text: JSON.stringify(input) }),
    plain(4),
    e("message", { role: "assistant", text: "restating tok-abcdef123456 hunter2hunter s3cretValue99 janedoe sk_printed_value_0123456789" })
  ]
  for (let i = 5; i < 40; i++) out.push(plain(i))
  return out
}

const build = (file: string, events: ReadonlyArray<SessionEvent>) =>
  Effect.runPromise(Effect.provide(
    Effect.gen(function*() {
      const index = yield* Index
      yield* index.beginGeneration(source, 1, "test")
      yield* index.commitBatch({ source, generation: 1, events }, () => Effect.void)
      yield* index.completeSource(source, null)
    }),
    IndexSqlite.layer(file)
  ))

const kept = new Set([...EVENT_STRUCTURAL_FIELDS, "rawReference.locatorClass"])

describe("a session's secrets from the stored events the prefilter keeps (session 30)", () => {
  it("equal those of seeing every event, in order; the events that can note nothing are not decoded", async () => {
    const file = nodePath.join(tempDir("si-p30-"), "index.db")
    const events = hostile()
    await build(file, events)
    const got = await Effect.runPromise(Effect.provide(
      Effect.gen(function*() {
        const index = yield* Index
        const [s] = yield* index.sessions({})
        const all = sessionRedactor(defaultRedaction)
        yield* Stream.runForEach(index.eventsStream(s.sessionUid, 7), (x) => Effect.sync(() => all.see(x)))
        const fast = sessionRedactor(defaultRedaction)
        let decoded = 0
        yield* index.forEachStoredEvent!(s.sessionUid, (x) => {
          if (fast.needs(x.kind, x.texts)) {
            decoded++
            fast.see(x.event())
          }
        }, 7, kept)
        return { all: [...all.known], fast: [...fast.known], decoded }
      }),
      IndexSqlite.layerReadonly(file)
    ))
    // every hostile place noted something (the restated values among them)
    for (const v of ["tok-abcdef123456", "hunter2hunter", "s3cretValue99", "sk_printed_value_0123456789", "janedoe", "extsecret-0123456789"]) {
      expect(got.all.map(([k]) => k)).toContain(v)
    }
    expect(got.fast).toEqual(got.all)
    expect(got.decoded).toBeLessThan(events.length - 30)
  }, 120_000)

  it("search_sessions answers alike with and without the stored events' reader", async () => {
    const file = nodePath.join(tempDir("si-p30s-"), "index.db")
    await build(file, hostile())
    const run = (strip: boolean) =>
      Effect.runPromise(Effect.provide(
        Effect.gen(function*() {
          const index = yield* Index
          const shape: IndexShape = strip ? { ...index, forEachStoredEvent: undefined } : index
          return yield* Effect.all([
            "restating", "suite", "janedoe", "hunter2hunter", "tok", "release"
          ].map((query) => Effect.provideService(searchSessions({ query }), Index, shape)))
        }),
        Layer.merge(IndexSqlite.layerReadonly(file), Redaction.layer)
      ))
    const before = await run(true)
    // hits with the session's secrets hidden in them (the restated values), and snippets
    expect(before.flatMap((a) => a.hits).length).toBeGreaterThan(5)
    expect(JSON.stringify(before)).toContain("[REDACTED:")
    expect(await run(false)).toEqual(before)
  }, 120_000)
})
