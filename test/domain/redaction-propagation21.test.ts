/**
 * tester21b F4, F1, F6: which caught values a session looks for elsewhere, and what a redaction never touches.
 * - F4: a value a text rule caught after its name (`DB_PASSWORD=…` in a Write's content, `Password=…;` in a
 *   connection string, `--password …`, `Bearer …`) is a known secret of its session, as a value under a
 *   secret-named key was: a later message restating it loses it too, in every redacted output.
 * - F1: a caught value with a word's shape (`postgres`, `example`, `guest`) stays redacted where it was caught and
 *   is looked for nowhere else; a value is looked for as a token of its own only (`ftp.<it>.com` stays).
 * - F6: a custom pattern redacts content, never the record's own field names (nested ones in `extensions` too) nor
 *   its structural values (times, ids, links, counts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import type { SessionEvent, Transcript } from "../../src/domain/model.js"
import { caughtValues, restatable, restateText, sessionRedactor } from "../../src/domain/redaction/redact.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { shareableEvents } from "../../src/layers/share.js"
import { defaultRedaction, Redaction, redactionWith } from "../../src/services/Redaction.js"
import { j, sessionEvent as ev } from "../support/redaction-asserts.js"

const r = defaultRedaction
const A = marker("secret-assignment")
const U = marker("url-credentials")

const toolCall = (n: number, input: Record<string, unknown>): SessionEvent =>
  ev(n, { kind: "tool-call", toolName: "Write", toolCallId: `toolu_${n}`, toolInput: input, text: JSON.stringify(input) } as Partial<SessionEvent>)
const said = (n: number, text: string): SessionEvent => ev(n, { kind: "message", text })

describe("redaction 21 (F4): a value a text rule caught is a known secret of its session", () => {
  const ENV_PW = j("Wr1te", "EnvPw!")
  const SQL_PW = j("MsSql", "Pw#2024")
  const session = (): ReadonlyArray<SessionEvent> => [
    toolCall(1, { file_path: "/srv/p/.env", content: `DB_HOST=db\nDB_PASSWORD=${ENV_PW}\nTIMEOUT=30\n` }),
    toolCall(2, { connection: `Server=db;Database=x;User Id=sa;Password=${SQL_PW};`, sql: "SELECT 1" }),
    said(3, `Done. I used ${SQL_PW} and ${ENV_PW} as you asked.`)
  ]

  it("sessionRedactor: the later message loses both, with the marker of the rule that caught each", () => {
    const out = session().map(sessionRedactor(r).event)
    expect(out[0].toolInput).toEqual({ file_path: "/srv/p/.env", content: `DB_HOST=db\nDB_PASSWORD=${A}\nTIMEOUT=30\n` })
    expect(out[2].text).toBe(`Done. I used ${A} and ${A} as you asked.`)
  })

  it("the export's stream, and the whole session first (see, then event: ATIF and the replay) agree", () =>
    Effect.gen(function*() {
      const out = Chunk.toArray(yield* Stream.runCollect(shareableEvents(Stream.fromIterable(session()))))
      expect(out[2].text).toBe(`Done. I used ${A} and ${A} as you asked.`)
      const sr = sessionRedactor(r)
      const events = [said(0, `First: ${ENV_PW}.`), ...session()]
      for (const e of events) sr.see(e)
      expect(events.map(sr.event)[0].text).toBe(`First: ${A}.`)
    }).pipe(Effect.provide(Redaction.layer), Effect.runPromise))

  it("the class: options, headers, prose, query strings, .netrc and YAML values are carried too", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`mysql --password=${j("Opt9", "Val#x")} db`, j("Opt9", "Val#x")],
      [`curl -H "Authorization: Bearer ${j("Br9", "tokenVal")}" https://x`, j("Br9", "tokenVal")],
      [`the password is ${j("Pr0se", "Pw77")}`, j("Pr0se", "Pw77")],
      [`GET https://api.example.com/x?access_token=${j("Qs9", "tokenVal")}&a=1`, j("Qs9", "tokenVal")],
      [`machine api.example.com login bob password ${j("Netrc", "Pw88")}`, j("Netrc", "Pw88")],
      [`db:\n  password: ${j("Yaml9", "Pw#1")}\n`, j("Yaml9", "Pw#1")]
    ]
    for (const [said1, secret] of cases) {
      const out = [ev(1, { kind: "tool-result", text: said1 }), said(2, `it worked with ${secret} here`)].map(sessionRedactor(r).event)
      expect(out[0].text, said1).not.toContain(secret)
      expect(out[1].text, said1).not.toContain(secret)
      expect(out[1].text, said1).toMatch(/^it worked with \[REDACTED:[a-z-]+\] here$/)
    }
  })

  it("the Markdown transcript: a later turn loses a value an earlier turn's text rule caught", () => {
    const t = {
      sessionId: "s1",
      turns: [
        { role: "assistant", timestamp: null, blocks: [{ type: "tool_use", id: "b1", name: "Write", input: { content: `DB_PASSWORD=${ENV_PW}\n` } }] },
        { role: "assistant", timestamp: null, blocks: [{ type: "text", id: "b2", text: `set it to ${ENV_PW}` }] }
      ],
      compactions: []
    } as unknown as Transcript
    const out = r.transcript(t)
    expect(JSON.stringify(out)).not.toContain(ENV_PW)
    expect((out.turns[1].blocks[0] as { text: string }).text).toBe(`set it to ${A}`)
  })

  it("caughtValues: what each marker replaced, also around a home path made ~ and quotes dropped", () => {
    const got = (before: string) => {
      const out: Array<string> = []
      caughtValues(before, r.text(before), (v, m) => out.push(`${v}=>${m}`))
      return out
    }
    expect(got(`cd /home/alice/app && PGPASSWORD=${ENV_PW} psql`)).toEqual([`${ENV_PW}=>${marker("secret-assignment")}`])
    expect(got(`mysql --password "${j("Quo9", "ted pw")}" db`)).toEqual([`${j("Quo9", "ted pw")}=>${marker("cli-secret-option")}`])
    expect(got("nothing here")).toEqual([])
  })
})

describe("redaction 21 (F1): a caught value with a word's shape is not looked for elsewhere", () => {
  it("a URL password that is a word: the user, the database, the image and prose stay", () => {
    const compose = "DATABASE_URL=postgresql://postgres:postgres@localhost:5432/postgres\nPGUSER=postgres\nimage: postgres:16-alpine"
    const out = [ev(1, { kind: "tool-result", text: compose }), said(2, "psql -U postgres -h localhost postgres -c 'select 1'  # postgres is up")].map(sessionRedactor(r).event)
    expect(out[0].text).toBe(`DATABASE_URL=postgresql://postgres:${U}@localhost:5432/postgres\nPGUSER=postgres\nimage: postgres:16-alpine`)
    expect(out[1].text).toBe("psql -U postgres -h localhost postgres -c 'select 1'  # postgres is up")
  })

  it("another word password and a host holding it: ftp.example.com stays", () => {
    const out = [said(1, "mongodb://root:example@mongo:27017/"), said(2, "ftp://anonymous:guest@ftp.example.com/ then example and guest")].map(sessionRedactor(r).event)
    expect(out[0].text).toBe(`mongodb://root:${U}@mongo:27017/`)
    expect(out[1].text).toBe(`ftp://anonymous:${U}@ftp.example.com/ then example and guest`)
  })

  it("structure's words stay where they are not caught too; a secret-shaped one goes", () => {
    const out = [toolCall(1, { env: { DB_PASSWORD: "postgres", DB_USER: "postgres" } }), said(2, "user postgres")].map(sessionRedactor(r).event)
    expect(out[0].toolInput).toEqual({ env: { DB_PASSWORD: marker("secret-field"), DB_USER: "postgres" } })
    expect(out[1].text).toBe("user postgres")
  })

  it("restatable: secrets' shapes go, words and numbers stay", () => {
    for (const v of ["Wr1teEnvPw!", "MsSqlPw#2024", "hunter22", "s3cr3t", "open sesame 7", "pAssword", "abcd@efgh"]) expect(restatable(v, 6), v).toBe(true)
    for (const v of ["postgres", "example", "guest", "Postgres", "POSTGRES", "app_password", "my-db.local", "84736251", "correct horse battery", "abc1", "[REDACTED:x]1a"]) {
      expect(restatable(v, 6), v).toBe(false)
    }
  })

  it("restateText: a token of its own only, not joined to a word by . or -", () => {
    const k = new Map([["Zq9Pw#long", "[M]"]])
    expect(restateText("a Zq9Pw#long. b (Zq9Pw#long) 'Zq9Pw#long'", k)).toBe("a [M]. b ([M]) '[M]'")
    expect(restateText("ftp.Zq9Pw#long.com x-Zq9Pw#long Zq9Pw#long-2 aZq9Pw#long", k)).toBe("ftp.Zq9Pw#long.com x-Zq9Pw#long Zq9Pw#long-2 aZq9Pw#long")
  })
})

describe("redaction 21 (F6): a custom pattern never touches the record's own names and structural values", () => {
  const custom = Either.getOrThrow(redactionWith([
    { id: "year", pattern: "2026" },
    { id: "linez", pattern: "line" },
    { id: "cc", pattern: "claude" },
    { id: "tool", pattern: "Write" },
    { id: "idz", pattern: "\\d{4}" }
  ]))
  const e = ev(1, {
    kind: "tool-call",
    toolCallId: "toolu_2026",
    responseId: "msg_2026:req_1234",
    occurredAt: "2026-01-03T00:00:01.000Z",
    text: "wrote line 2026",
    toolInput: { path: "/srv/claude/line.txt", lineCount: 3 },
    usage: { inputTokens: 2026, outputTokens: 1, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null },
    parent: { sessionId: "s-2026", toolCallId: "toolu_1234", eventId: "line-2026", subagentId: null },
    compaction: { id: "c-2026", trigger: "line" },
    extensions: {
      "native.claude-code": {
        lineNumber: 1,
        uuid: "u2026",
        usage: { cacheWriteTokens: 5 },
        parent: { sessionId: "s-2026" },
        input: { lineCount: 3, "claude-notes": "line" }
      }
    }
  } as Partial<SessionEvent>)

  it("event: times, ids, links, counts and every field name of the record stay; content goes", () => {
    const out = custom.event(e) as unknown as Record<string, any>
    expect(out.occurredAt).toBe("2026-01-03T00:00:01.000Z")
    expect(out.toolCallId).toBe("toolu_2026")
    expect(out.responseId).toBe("msg_2026:req_1234")
    expect(out.usage).toEqual(e.usage)
    expect(out.parent).toEqual(e.parent)
    // the compaction's id-shaped id stays; its trigger is free text copied from the source (session 38, tester38 F1:
    // it goes through the text rules, custom patterns included, as the event's text stating it does in MCP's answers)
    expect(out.compaction).toEqual({ id: "c-2026", trigger: marker("linez") })
    const native = out.extensions["native.claude-code"]
    expect(Object.keys(out.extensions)).toEqual(["native.claude-code"])
    expect(Object.keys(native)).toEqual(["lineNumber", "uuid", "usage", "parent", "input"])
    expect(native.usage).toEqual({ cacheWriteTokens: 5 })
    expect(Object.keys(native.parent)).toEqual(["sessionId"])
    // content: the text, the tool input (its keys too: the source's JSON) and the raw input in extensions
    expect(out.text).toBe(`wrote ${marker("linez")} ${marker("year")}`)
    expect(out.toolInput).toEqual({ path: `/srv/${marker("cc")}/${marker("linez")}.txt`, [`${marker("linez")}Count`]: 3 })
    expect(Object.keys(native.input)).toEqual([`${marker("linez")}Count`, `${marker("cc")}-notes`])
  })

  it("transcript: its times, counted warnings and compactions' ids stay (their triggers are text: tester38 F1)", () => {
    const t = {
      sessionId: "s1",
      title: null,
      model: null,
      startedAt: "2026-01-03T00:00:01.000Z",
      endedAt: "2026-01-03T00:00:12.000Z",
      turns: [{ role: "user", timestamp: "2026-01-03T00:00:01.000Z", blocks: [{ type: "text", text: "line 2026" }] }],
      compactions: [{ id: "c1", trigger: "line", timestamp: "2026-01-03T00:00:05.000Z" }],
      parseWarnings: [{ kind: "malformed-line", count: 2026, firstLine: 3 }],
      diagnostics: [{ kind: "orphan-tool-output", count: 1, firstLine: 2026 }]
    } as unknown as Transcript
    const out = custom.transcript(t)
    expect(out.startedAt).toBe(t.startedAt)
    expect(out.endedAt).toBe(t.endedAt)
    expect(out.compactions).toEqual([{ id: "c1", trigger: marker("linez"), timestamp: "2026-01-03T00:00:05.000Z" }])
    expect(out.parseWarnings).toEqual(t.parseWarnings)
    expect(out.diagnostics).toEqual(t.diagnostics)
    expect((out.turns[0].blocks[0] as { text: string }).text).toBe(`${marker("linez")} ${marker("year")}`)
  })
})
