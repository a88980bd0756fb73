/**
 * `get_session` paging (session 12 leftover): a page costs what the page costs, not the whole transcript. The
 * session's transcript text (its events loaded, redacted and rendered, the digest a page cursor binds) is built
 * once per session state (uid, generation, event count, last time) within the server's process, not once per
 * page; the pages answered are the same as the whole text rendered from the session's redacted events (first,
 * middle and last pages, concatenated the whole text), and a session that changed is rendered anew.
 * In process, over an Index holding one session in memory that counts its loads.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { getEvents, getSession, readSession } from "../../src/layers/mcp/answers.js"
import { transcriptText } from "../../src/domain/transcript-pages.js"
import type { SessionEvent } from "../../src/domain/model.js"
import { Index, type IndexShape, type SessionRow } from "../../src/services/Index.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"

// built at run time so that no secret scanner flags this file
const SECRET = ["sk-ant-api03-", "Zq9SECRETk".repeat(4)].join("")

const eventsOf = (n: number): Array<SessionEvent> => {
  const e = mk("muse-agents", "sess-pages")
  return Array.from({ length: n }, (_, i) =>
    e("message", {
      role: i % 2 === 0 ? "user" : "assistant",
      occurredAt: `2025-04-01T08:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}.000Z`,
      // some texts hold a secret (redacted in the text), some are long (a page cut inside an entry)
      text: i % 97 === 5 ? `my key is ${SECRET} ok` : i % 211 === 7 ? "long ".repeat(900) : `event ${i} text`
    }))
}

/** An Index holding one session (`state.events`, its row made from them), counting the loads of its events. */
const memoryIndex = (state: { events: Array<SessionEvent>; generation: number }, loads: { n: number }, title = "pages") => {
  const row = (): SessionRow => ({
    sessionUid: "ses_pages",
    provider: "muse-agents",
    sessionId: "sess-pages",
    sourceId: "sha256:sess-pages",
    sourceKey: "k",
    machine: null,
    generation: state.generation,
    title,
    workspace: null,
    firstAt: state.events[0]?.occurredAt ?? null,
    lastAt: state.events[state.events.length - 1]?.occurredAt ?? null,
    eventCount: state.events.length,
    overview: { sessionId: "sess-pages", model: null }
  }) as unknown as SessionRow
  const shape = {
    findSessions: (id: string) => Effect.succeed(id === "sess-pages" || id === "ses_pages" ? [row()] : []),
    findSessionsByPrefix: () => Effect.succeed([]),
    sessionBytes: () => Effect.succeed(1000),
    events: () =>
      Effect.sync(() => {
        loads.n++
        return state.events
      }),
    eventsStream: () => Stream.suspend(() => Stream.fromIterable(state.events))
  } as unknown as IndexShape
  return Layer.mergeAll(Layer.succeed(Index, shape), Layer.succeed(Redaction, defaultRedaction))
}

describe("get_session pages: built once per session state, the same pages", () => {
  it("every page equals the slice of the whole text rendered from the redacted events; the events are loaded once", async () => {
    const state = { events: eventsOf(3000), generation: 1 }
    const loads = { n: 0 }
    const layer = memoryIndex(state, loads)
    const whole = transcriptText(state.events.map(defaultRedaction.event)).text
    expect(whole).not.toContain(SECRET)
    const pages = await Effect.runPromise(Effect.gen(function*() {
      const out: Array<{ text: string; fromChar: number; toChar: number; totalChars: number; done: boolean }> = []
      let cursor: string | undefined
      for (;;) {
        const a = yield* getSession({ id: "sess-pages", maxChars: 5000, ...(cursor !== undefined ? { cursor } : {}) })
        out.push(a.page)
        if (a.page.done) break
        cursor = a.page.nextCursor!
      }
      return out
    }).pipe(Effect.provide(layer)))
    expect(pages.length).toBeGreaterThan(10)
    for (const [i, p] of [[0, pages[0]], [Math.floor(pages.length / 2), pages[Math.floor(pages.length / 2)]], [pages.length - 1, pages[pages.length - 1]]] as const) {
      expect(p.text, `page ${i}`).toBe(whole.slice(p.fromChar, p.toChar))
      expect(p.totalChars).toBe(whole.length)
    }
    expect(pages[0].fromChar).toBe(0)
    expect(pages[pages.length - 1].toChar).toBe(whole.length)
    expect(pages.map((p) => p.text).join("")).toBe(whole)
    // one load of the session's events for all its pages (was one a page)
    expect(loads.n).toBe(1)
  })

  it("a session that changed (events appended, a new generation) is rendered anew", async () => {
    const state = { events: eventsOf(50), generation: 1 }
    const loads = { n: 0 }
    const layer = memoryIndex(state, loads)
    const first = await Effect.runPromise(getSession({ id: "sess-pages", maxChars: 1_000_000 }).pipe(Effect.provide(layer)))
    expect(first.page.totalChars).toBe(transcriptText(state.events.map(defaultRedaction.event)).text.length)
    state.events = eventsOf(60)
    const grown = await Effect.runPromise(getSession({ id: "sess-pages", maxChars: 1_000_000 }).pipe(Effect.provide(layer)))
    expect(grown.page.text).toBe(transcriptText(state.events.map(defaultRedaction.event)).text)
    expect(grown.session.eventCount).toBe(60)
    state.events = eventsOf(60).map((e) => ({ ...e, text: `${e.text} v2` }))
    state.generation = 2
    const again = await Effect.runPromise(getSession({ id: "sess-pages", maxChars: 1_000_000 }).pipe(Effect.provide(layer)))
    expect(again.page.text).toBe(transcriptText(state.events.map(defaultRedaction.event)).text)
    expect(loads.n).toBe(3)
  })

  it("pages and clipped texts never cut a character in two, even with maxChars 1 (tester18 F12)", async () => {
    const e = mk("muse-agents", "sess-pages")
    const text = "party 🎉 in 日本 🇯🇵 with café (cafe\u0301) 👨‍👩‍👧"
    const state = { events: [e("message", { role: "user", text })], generation: 1 }
    const layer = memoryIndex(state, { n: 0 })
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
    const pages = await Effect.runPromise(Effect.gen(function*() {
      const out: Array<string> = []
      let cursor: string | undefined
      for (;;) {
        const a = yield* getSession({ id: "sess-pages", maxChars: 1, ...(cursor !== undefined ? { cursor } : {}) })
        out.push(a.page.text)
        if (a.page.done) return { out, totalChars: a.page.totalChars }
        cursor = a.page.nextCursor!
      }
    }).pipe(Effect.provide(layer)))
    const whole = transcriptText(state.events).text
    expect(pages.out.join("")).toBe(whole)
    for (const x of pages.out) expect(lone.test(x), JSON.stringify(x)).toBe(false)
    expect(pages.out).toContain("🎉")
    expect(pages.out).toContain("🇯🇵")
    expect(pages.out).toContain("e\u0301")
    expect(pages.out).toContain("👨‍👩‍👧")
    // totalChars counts UTF-16 code units (as JavaScript's length), as the README says
    expect(pages.totalChars).toBe(whole.length)
    expect(pages.totalChars).toBeGreaterThan([...whole].length)
    // get_events clips a text to its budget before the emoji, not inside it
    const clipped = await Effect.runPromise(getEvents({ id: "sess-pages", maxChars: 7 }).pipe(Effect.provide(layer)))
    expect(clipped.events[0]).toMatchObject({ text: "party ", truncated: true })
  })
})

describe("get_session pages and get_events clips never cut a redaction marker (tester23b F12)", () => {
  it("paged at maxChars 7, 14, … 630: every page ends outside a marker; concatenated they are the text", async () => {
    const e = mk("muse-agents", "sess-pages")
    const events = Array.from({ length: 12 }, (_, i) =>
      e("message", { role: i % 2 === 0 ? "user" : "assistant", text: `step ${i}: password=${SECRET} then ${SECRET}, mail bob.smith${i}@example.com ok` }))
    const layer = memoryIndex({ events, generation: 1 }, { n: 0 })
    const whole = transcriptText(events.map(defaultRedaction.event)).text
    const markers = [...whole.matchAll(/\[REDACTED:[a-z0-9-]+\]/g)].map((m) => [m.index, m.index + m[0].length] as const)
    expect(markers.length).toBeGreaterThan(24)
    const cuts = await Effect.runPromise(Effect.gen(function*() {
      let cut = 0
      for (let maxChars = 7; maxChars <= 630; maxChars += 7) {
        const texts: Array<string> = []
        let cursor: string | undefined
        for (;;) {
          const a = yield* getSession({ id: "sess-pages", maxChars, ...(cursor !== undefined ? { cursor } : {}) })
          texts.push(a.page.text)
          if (markers.some(([from, to]) => a.page.toChar > from && a.page.toChar < to)) cut++
          if (a.page.done) break
          cursor = a.page.nextCursor!
        }
        expect(texts.join("")).toBe(whole)
      }
      return cut
    }).pipe(Effect.provide(layer)))
    expect(cuts).toBe(0)
    // get_events clips before a marker that does not fit whole
    for (let maxChars = 1; maxChars <= 90; maxChars++) {
      const a = await Effect.runPromise(getEvents({ id: "sess-pages", maxChars }).pipe(Effect.provide(layer)))
      for (const ev of a.events) expect(ev.text ?? "", `maxChars ${maxChars}`).not.toMatch(/\[(?:R(?:E(?:D(?:A(?:C(?:T(?:E(?:D(?::[a-z0-9-]*)?)?)?)?)?)?)?)?)?$/)
    }
  })
})

describe("the session resource's heading (tester23b F6)", () => {
  it("the title is made inert as the body of a shared Markdown document is: no live HTML, no image, one line", async () => {
    const e = mk("muse-agents", "sess-pages")
    const state = { events: [e("message", { role: "user", text: "hi" })], generation: 1 }
    // (a title is at most 80 characters, its white space runs one space each: the title of a first prompt as imported)
    const title = `<script>alert(1)</script><img src=x> ![x](https://a.example/p.png)`
    const text = await Effect.runPromise(readSession("sess-pages").pipe(Effect.provide(memoryIndex(state, { n: 0 }, title))))
    expect(text.split("\n")[0]).toBe(
      `# &lt;script>alert(1)&lt;/script>&lt;img src=x> \\![x](https://a.example/p.png)`
    )
    expect(text.split("\n")[1]).toBe("")
  })
})

describe("a long session's redaction yields (tester23c F8)", () => {
  /**
   * Another fiber of the server (the one that answers a ping or reads a cancel) runs while a session is redacted for
   * `get_session` or its resource: a fiber forked beside the call, waiting for the redaction to begin, runs before
   * the last event is redacted (with one synchronous map over the events it ran only after all of them).
   */
  for (const [name, call] of [
    ["get_session", Effect.asVoid(getSession({ id: "sess-pages", maxChars: 1000 }))],
    ["the session resource", Effect.asVoid(readSession("sess-pages"))]
  ] as const) {
    it(`${name}: a fiber beside it runs before the redaction ends`, async () => {
      const state = { events: eventsOf(3000), generation: 1 }
      const noted = { n: 0 }
      const counting = {
        ...defaultRedaction,
        eventNoting: (e: SessionEvent, known: Map<string, string>) => {
          noted.n++
          return defaultRedaction.eventNoting(e, known)
        }
      }
      const seenAt = await Effect.runPromise(Effect.gen(function*() {
        const answer = yield* Effect.fork(call)
        const beside = yield* Effect.fork(Effect.gen(function*() {
          while (noted.n === 0) yield* Effect.yieldNow()
          return noted.n
        }))
        yield* answer.await
        return yield* beside.await
      }).pipe(Effect.provideService(Redaction, counting as typeof defaultRedaction), Effect.provide(memoryIndex(state, { n: 0 }))))
      expect(noted.n).toBe(3000)
      expect(seenAt._tag).toBe("Success")
      if (seenAt._tag === "Success") expect(seenAt.value).toBeLessThan(3000)
    })
  }
})
