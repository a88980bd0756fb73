/**
 * Session 15's redaction fixes (tester15 F2, F3, F5): a private key (and a `.pgpass` line) whose lines carry a
 * display prefix of line-number/gutter form (Claude Code's Read tool, bat, grep -n); a URL credential restated by a
 * later event of its session; more secret shapes (kubeconfig key data, SendGrid, age, an AWS secret near its key
 * id, `sudo -S`, Rails' `SECRET_KEY_BASE`). Each with its near misses.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SessionEvent, Transcript } from "../../src/domain/model.js"
import { sessionRedactor } from "../../src/domain/redaction/redact.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { shareableEvents } from "../../src/layers/share.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { B1, B2, B3, BEGIN, END, gone, inString, j, noKey, sessionEvent, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const R = marker

/** The key's lines, each with the prefix `gutter(n)` (n from 1). */
const keyLines = (gutter: (n: number) => string, lines = [BEGIN, B1, B2, B3, END]) => lines.map((l, i) => `${gutter(i + 1)}${l}`)

const GUTTERS: Record<string, (n: number) => string> = {
  "Read tool →": (n) => `${String(n).padStart(6)}→`,
  "Read tool →\\t": (n) => `${String(n).padStart(6)}→\t`,
  "bat │": (n) => `${String(n).padStart(4)} │ `,
  "bat | (plain)": (n) => `${String(n).padStart(4)} | `,
  "grep -n with a file": (n) => `secrets/id_rsa.pem:${n}:`,
  "grep -n context lines": (n) => `secrets/id_rsa.pem${n === 1 ? ":" : "-"}${n}${n === 1 ? ":" : "-"}`,
  "grep -n without a file": (n) => `${n}:`,
  "cat -n (tab)": (n) => `${String(n).padStart(6)}\t`,
  "1: ": (n) => `${n}: `,
  "less -N": (n) => `${String(n).padStart(7)} `
}

describe("redaction 15 (F2): a private key whose lines carry a line-number gutter", () => {
  for (const [name, g] of Object.entries(GUTTERS)) {
    it(`${name}: the whole block goes, the first gutter and the text around stay`, () => {
      const text = ["Here it is:", ...keyLines(g), `${g(6)}trailing line`, "Done"].join("\n")
      const out = r.text(text)
      noKey(out)
      expect(out).toBe(["Here it is:", `${g(1)}${R("private-key")}`, `${g(6)}trailing line`, "Done"].join("\n"))
      expect(r.text(out)).toBe(out)
    })
  }

  it("CRLF lines, and the text held in a JSON string (escaped newlines)", () => {
    const g = GUTTERS["Read tool →"]
    noKey(r.text(keyLines(g).join("\r\n")))
    noKey(r.text(inString(keyLines(g).join("\n"))))
    noKey(r.text(inString(keyLines(GUTTERS["bat │"]).join("\n"))))
  })

  it("a key cut short (no END line) goes to its last body line; the next line of prose stays", () => {
    const g = GUTTERS["Read tool →"]
    const out = r.text([...keyLines(g, [BEGIN, B1, B2]), `${g(4)}and then some prose here`].join("\n"))
    expect(out).toBe(`${g(1)}${R("private-key")}\n${g(4)}and then some prose here`)
  })

  it("an OpenSSH key and a PKCS#8 key under the Read tool's gutter", () => {
    const g = GUTTERS["Read tool →"]
    for (const kind of ["OPENSSH ", "", "EC ", "ENCRYPTED "]) {
      const lines = [j("-----BEGIN ", kind, "PRIVATE KEY-----"), B1, B2, j("-----END ", kind, "PRIVATE KEY-----")]
      noKey(r.text(keyLines(g, lines).join("\n")))
    }
  })

  it("what worked before still does: no prefix, +/- diff lines, a Markdown quote", () => {
    noKey(r.text([BEGIN, B1, B2, B3, END].join("\n")))
    // a diff's lines: the body goes (a `-` before `-----END` leaves the END line, which names no key)
    for (const d of ["+", "-"]) for (const b of [B1, B2, B3]) expect(r.text(keyLines(() => d).join("\n"))).not.toContain(b)
    noKey(r.text(keyLines(() => "> ").join("\n")))
  })

  it("near misses: numbered lines without a key stay", () => {
    stays("     1→const x = 1\n     2→MIIE is how a key starts\n     3→done")
    stays("   1 │ hello\n   2 │ world")
    stays("src/a.ts:12:const token = getToken()")
  })

  it("a .pgpass line under a gutter loses its password", () => {
    const pw = "PgpassSecret9"
    for (const g of ["     1→", "     1→\t", "   1 │ ", "   1 | ", "     1\t", "1:", ".pgpass:1:"]) {
      const out = gone(`${g}db.example.com:5432:app:appuser:${pw}`, pw, "db.example.com:5432:app:appuser:")
      expect(out).toBe(`${g}db.example.com:5432:app:appuser:${R("pgpass-password")}`)
    }
    stays("     1→localhost:5432:app:appuser:password")
    stays("     1→12:30:45:00:11")
  })
})

describe("redaction 15 (F3): a URL credential restated by a later event of its session", () => {
  const PW = j("PsqlInput", "Pass42")
  const U = R("url-credentials")
  const ev = sessionEvent
  const session = (url: string, pw: string): ReadonlyArray<SessionEvent> => {
    const input = { command: `psql '${url}' -c 'select 1'` }
    return [
      ev(1, { kind: "tool-call", text: JSON.stringify(input), toolName: "Bash", toolInput: input, toolCallId: "toolu_1" } as Partial<SessionEvent>),
      ev(2, { kind: "tool-result", role: "user", text: "1 row", toolCallId: "toolu_1" } as Partial<SessionEvent>),
      ev(3, { kind: "message", text: `Done, logged in with app and ${pw}. ${pw}x stays.` })
    ]
  }

  it("sessionRedactor: the password is gone from the later message, as the URL's own redaction", () => {
    const sr = sessionRedactor(r)
    const out = session(`postgresql://app:${PW}@db/app`, PW).map(sr.event)
    expect(out[0].text).not.toContain(PW)
    expect(out[2].text).toBe(`Done, logged in with app and ${U}. ${PW}x stays.`)
  })

  it("other schemes and a password holding @ (amqp, redis, https)", () => {
    for (const [url, pw] of [[`amqp://guest:${PW}@mq:5672/`, PW], ["redis://:R3dis@Pw77@cache:6379", "R3dis@Pw77"], [`https://bob:${PW}@git.example.com/x.git`, PW]]) {
      const sr = sessionRedactor(r)
      const out = session(url, pw).map(sr.event)
      expect(out[2].text, url).toBe(`Done, logged in with app and ${U}. ${pw}x stays.`)
    }
  })

  it("a URL a user pasted in a message is hunted too; the export's stream agrees", () =>
    Effect.gen(function*() {
      const events = [ev(1, { role: "user", text: `connect with postgres://admin:${PW}@db.example.com/prod` }), ev(2, { text: `Connected using ${PW}` })]
      const out = Chunk.toArray(yield* Stream.runCollect(shareableEvents(Stream.fromIterable(events))))
      expect(out[0].text).toBe(`connect with postgres://admin:${U}@db.example.com/prod`)
      expect(out[1].text).toBe(`Connected using ${U}`)
    }).pipe(Effect.provide(Redaction.layer), Effect.runPromise))

  it("the Markdown transcript: gone from a later turn", () => {
    const t = {
      sessionId: "s1",
      turns: [
        { role: "assistant", timestamp: null, blocks: [{ type: "tool_use", id: "b1", name: "Bash", input: { command: `psql postgresql://app:${PW}@db/app` } }] },
        { role: "assistant", timestamp: null, blocks: [{ type: "text", id: "b2", text: `logged in with ${PW}` }] }
      ],
      compactions: []
    } as unknown as Transcript
    const out = JSON.stringify(r.transcript(t))
    expect(out).not.toContain(PW)
    expect(out).toContain(`logged in with ${U}`)
  })

  it("near misses: short passwords, $VAR references and a URL without a password are not hunted", () => {
    const known = new Map<string, string>()
    r.eventNoting(ev(1, { kind: "tool-call", toolInput: { a: "postgres://u:abc12@h/db", b: "postgres://u:$PGPASS@h/db", c: "https://user@host/x", d: "mysql://u:${DB_PW}@h/db" } } as Partial<SessionEvent>), known)
    expect([...known.keys()]).toEqual([])
    const sr = sessionRedactor(r)
    const out = session("postgres://app:abc12@db/app", "abc12").map(sr.event)
    expect(out[2].text).toBe("Done, logged in with app and abc12. abc12x stays.")
    // a reference the URL rule took with its place stays where it is restated (the variable, not its value)
    const refs = sessionRedactor(r)
    refs.see(ev(1, { text: "psql postgres://u:$PGPASS@h/db and mysql://u:${DB_PW}@h/db" }))
    expect(refs.event(ev(2, { text: "echo $PGPASS ${DB_PW}" })).text).toBe("echo $PGPASS ${DB_PW}")
  })
})
