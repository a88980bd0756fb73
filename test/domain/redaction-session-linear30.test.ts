/**
 * tester30b F1: redacting a session's events (or its transcript's turns) with the secrets the session knows copied
 * that map per event (per turn), and each copy was indexed anew, every secret the session knows read again: a
 * session whose every prompt holds a distinct caught password was quadratic (an MCP search of 4,000 events: 9.5 s of
 * processor time; its Markdown: 15 s). The work must grow with the events and the secrets, not their product:
 * counted by `restateWork.entries` (map entries indexed), never timed. What the outputs say is checked against the
 * rules of docs/redaction.md ("Which caught values are looked for elsewhere"): a value a text rule caught after its
 * name is hidden wherever the session restates it as a token, with that rule's marker; in a transcript a turn's own
 * decision (a value under a secret-named key) gives that turn its marker, and a short value (under 6 characters) is
 * looked for in its own turn only.
 */
import { describe, expect, it } from "vitest"
import type { SessionEvent, Transcript } from "../../src/domain/model.js"
import { restateWork, sessionRedactor } from "../../src/domain/redaction/redact.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction as r } from "../../src/services/Redaction.js"
import { j, sessionEvent as ev } from "../support/redaction-asserts.js"

/** The distinct password of prompt `i` (a shape `restatable` takes: letters, digits and a sign). */
const pw = (i: number) => j("Pw", `${i}`, "xx!Q")
const ASSIGNED = marker("secret-assignment")
const FIELD = marker("secret-field")

/** The entries indexed while `f` ran. */
const entriesIndexed = (f: () => void): number => {
  const before = restateWork.entries
  f()
  return restateWork.entries - before
}

/** `n` prompts, each `deploy step i password=<pw(i)>`, each answered by a message restating the password before it. */
const events = (n: number): Array<SessionEvent> => {
  const out: Array<SessionEvent> = []
  for (let i = 0; i < n; i++) {
    out.push(ev(2 * i, { kind: "message", role: "user", text: `deploy step ${i} ${j("pass", "word=")}${pw(i)}` }))
    out.push(ev(2 * i + 1, { kind: "message", role: "assistant", text: `ok, ${pw(i)} used; ${pw(Math.max(0, i - 1))} too` }))
  }
  return out
}

const transcriptOf = (es: ReadonlyArray<SessionEvent>): Transcript => ({
  sessionId: "s1",
  turns: es.map((e) => ({ role: e.role, timestamp: null, blocks: [{ type: "text", id: `b${e.sequence}`, text: e.text }] })),
  compactions: []
} as unknown as Transcript)

describe("redaction 30 (tester30b F1): a session's known secrets are indexed once, not once per event or turn", () => {
  it("eventIn over every event of a session with the session's secrets (an MCP search's hits): work linear in the events", () => {
    const work: Array<number> = []
    for (const n of [200, 800]) {
      const es = events(n)
      // the session's secrets gathered first, as a search does (sessionRedactor over the whole session)
      const sr = sessionRedactor(r)
      for (const e of es) sr.see(e)
      expect(sr.known.size).toBe(n)
      let out: Array<SessionEvent> = []
      work.push(entriesIndexed(() => {
        out = es.map((e) => r.eventIn(e, sr.known))
      }))
      // each secret indexed a bounded number of times (each event's own map, the session's once): not once per event
      expect(work[work.length - 1]).toBeLessThan(6 * n)
      expect(out[2].text).toBe(`deploy step 1 ${j("pass", "word=")}${ASSIGNED}`)
      expect(out[2 * n - 1].text).toBe(`ok, ${ASSIGNED} used; ${ASSIGNED} too`)
      for (const e of out) for (const k of [0, n >> 1, n - 1]) expect(e.text).not.toContain(pw(k))
    }
    // four times the events and the secrets: about four times the work (a copy per event does sixteen)
    expect(work[1] / work[0]).toBeLessThan(6)
  })

  it("a transcript of turns each deciding a distinct password: work linear in the turns, each hidden everywhere", () => {
    const work: Array<number> = []
    for (const n of [200, 800]) {
      let out: Transcript | undefined
      work.push(entriesIndexed(() => {
        out = r.transcript(transcriptOf(events(n)))
      }))
      expect(work[work.length - 1]).toBeLessThan(6 * n)
      const texts = out!.turns.map((t) => (t.blocks[0] as { text: string }).text)
      expect(texts[2]).toBe(`deploy step 1 ${j("pass", "word=")}${ASSIGNED}`)
      expect(texts[3]).toBe(`ok, ${ASSIGNED} used; ${ASSIGNED} too`)
      expect(texts[2 * n - 1]).toBe(`ok, ${ASSIGNED} used; ${ASSIGNED} too`)
      expect(JSON.stringify(texts)).not.toMatch(/Pw\d+xx!Q/)
    }
    expect(work[1] / work[0]).toBeLessThan(6)
  })

  it("a session's known secrets given to a transcript (a resource's Markdown) are indexed once, not per turn", () => {
    const n = 600
    const sr = sessionRedactor(r)
    const es = events(n)
    for (const e of es) sr.see(e)
    const plain = transcriptOf(es.map((e, i) => ({ ...e, text: `turn ${i} says ${pw(i >> 1)} again` })))
    let out: Transcript | undefined
    const work = entriesIndexed(() => {
      out = r.transcript(plain, sr.known)
    })
    expect(work).toBeLessThan(6 * n)
    out!.turns.forEach((t, i) => expect((t.blocks[0] as { text: string }).text).toBe(`turn ${i} says ${ASSIGNED} again`))
  })

  it("a turn's own decisions: its marker for a value it decides on again, a short value kept to its turn, earlier turns too", () => {
    const p = pw(1)
    // 12 secrets known before (so the turns' maps are large enough to be indexed)
    const many = Array.from({ length: 12 }, (_, i) => `step ${i} ${j("pass", "word=")}${pw(100 + i)}`).join("; ")
    const t = {
      sessionId: "s1",
      turns: [
        { role: "user", timestamp: null, blocks: [{ type: "text", id: "a0", text: `first ${p} then ${pw(111)}` }] },
        { role: "user", timestamp: null, blocks: [{ type: "text", id: "a", text: `${many}; step 1 ${j("pass", "word=")}${p} and again ${p}` }] },
        { role: "assistant", timestamp: null, blocks: [{ type: "tool_use", id: "b", name: "Bash", input: { env: { API_TOKEN: p }, ["pass" + "word"]: "Zq9!x" }, result: `${p} Zq9!x` }] },
        { role: "assistant", timestamp: null, blocks: [{ type: "text", id: "c", text: `used ${p} and Zq9!x` }] }
      ],
      compactions: []
    } as unknown as Transcript
    const out = r.transcript(t)
    const block = (i: number) => out.turns[i].blocks[0] as { text?: string; result?: string; input?: Record<string, unknown> }
    // an earlier turn loses what a later one caught (the session's secrets, tester25a F12)
    expect(block(0).text).toBe(`first ${ASSIGNED} then ${ASSIGNED}`)
    // the turn that decided the value under a secret-named key: that key's marker, for the short value too
    expect(block(2).result).toBe(`${FIELD} ${FIELD}`)
    // the next turn: the session's marker again, and the short value (5 characters) is not looked for there
    expect(block(3).text).toBe(`used ${ASSIGNED} and Zq9!x`)
  })
})
