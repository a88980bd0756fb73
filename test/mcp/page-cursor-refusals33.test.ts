/**
 * Session 33: `get_session` refuses a page cursor it cannot take with `INVALID_CURSOR`, and its message names what is
 * wrong with that cursor, as `get_events`' refusals do since session 32 (tester31c F5; docs/mcp.md):
 * - a token that is no cursor at all (`hello`, `p1.!!!`, `s1.abc.5.zz`): malformed, on either server; a page cursor
 *   whose offset lies past its transcript's end (an edited token): malformed;
 * - an event's cursor (a shown `s1.…` or a stream `c2.…` cursor: `get_events` takes it): the other kind; and
 *   `get_events` given a page cursor says it is one;
 * - a page cursor of a `--no-redact` server on a redacting one (it names the session by its `ses_…` uid), and the other
 *   way round: the kind its answers give;
 * - a page cursor of another session of this index; of this session but made by another index (another key); of no
 *   session this index holds;
 * - a page cursor of this session whose transcript changed since: imported again (another generation), or another
 *   text in the same generation (here: the server redacts with other rules).
 * At the answers layer (`getSession`, `getEvents`) over SQLite indexes read as the server reads them.
 */
import * as nodePath from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { encodeCursor } from "../../src/domain/cursor.js"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { encodePageCursor } from "../../src/domain/transcript-pages.js"
import { getEvents, getSession } from "../../src/layers/mcp/answers.js"
import * as IndexSqlite from "../../src/layers/index/sqlite.js"
import { redactionLayer } from "../../src/layers/share.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { Redaction } from "../../src/services/Redaction.js"
import { mk } from "../support/events.js"
import { tempDir } from "../support/paths.js"

const ONE = "sess-pages33-one"
const TWO = "sess-pages33-two"
/** A session whose transcript holds a surrogate pair and a redaction marker (tester39 F7), in an index of its own. */
const THREE = "sess-pages39-three"
const TOKEN = "ghp_" + "Q8wE".repeat(9)

const sourceOf = (session: string): SourceInfo => ({
  sourceKey: `src-${session}`,
  provider: "claude-code",
  locator: { locatorClass: "muse-agent-transcript", path: `/x/${session}` },
  summary: {},
  overview: { ...emptySourceSummary(), title: "deploy the billing service", workspace: "/srv/app" }
})

/** A few turns of `session`: a transcript of several pages of 60 characters. */
const eventsOf = (session: string): Array<SessionEvent> => {
  const make = mk("claude-code", session)
  const e = (role: "user" | "assistant", text: string) => {
    const x = make("message", { role, text })
    return { ...x, cursor: encodeCursor({ v: 1, src: `sha256:${session}`, seq: x.sequence }) }
  }
  if (session === THREE) return [e("user", "the party is done 🎉 done"), e("assistant", `the token is ${TOKEN} and more`), e("user", "thanks")]
  // (each session's own words: two transcripts never the same text)
  return [
    e("user", `set up the deploy of the billing service (${session})`),
    e("assistant", "deploy planned"),
    e("user", "check the deploy logs"),
    e("assistant", "the deploy logs are clean")
  ]
}

/** Writes generation `generation` of `sessions` (a source each) into the SQLite index `file`. */
const write = (file: string, sessions: ReadonlyArray<string>, generation = 1) =>
  Effect.runPromise(Effect.provide(
    Effect.forEach(sessions, (s) =>
      Effect.gen(function*() {
        const index = yield* Index
        const source = sourceOf(s)
        yield* index.beginGeneration(source, generation, "test")
        yield* index.commitBatch({ source, generation, events: eventsOf(s) }, () => Effect.void)
        yield* index.completeSource(source, null)
      })),
    IndexSqlite.layer(file)
  ))

type Server = ManagedRuntime.ManagedRuntime<Index | Redaction, unknown>

/** A server's state over `file`: its index read-only and its redaction (keyed by the index's key), or none (`--no-redact`). */
const serve = (file: string, redaction: "on" | "off" | "custom"): Server =>
  ManagedRuntime.make(
    Layer.provideMerge(
      redaction === "off"
        ? Redaction.off
        : redactionLayer(true, Effect.succeed(redaction === "custom" ? [{ id: "billing-word", pattern: "billing" }] : [])),
      IndexSqlite.layerReadonly(file)
    )
  )

describe("get_session: an INVALID_CURSOR message names the page cursor's real problem (session 33)", () => {
  const dir = tempDir("si-page-cursors33-")
  const files = { a: nodePath.join(dir, "a.db"), b: nodePath.join(dir, "b.db"), c: nodePath.join(dir, "c.db"), d: nodePath.join(dir, "d.db") }
  const servers: Record<string, Server> = {}

  beforeAll(async () => {
    // a.db holds both sessions; b.db only ONE (made apart: another key); c.db ONE, imported again below
    await write(files.a, [ONE, TWO])
    await write(files.b, [ONE])
    await write(files.c, [ONE])
    await write(files.d, [THREE])
    servers.a = serve(files.a, "on")
    servers.plain = serve(files.a, "off")
    servers.custom = serve(files.a, "custom")
    servers.b = serve(files.b, "on")
    servers.c = serve(files.c, "on")
    servers.d = serve(files.d, "on")
  }, 120_000)

  afterAll(async () => {
    for (const s of Object.values(servers)) await s.dispose()
  })

  /** The nextCursor of the first page of `id` (60 characters a page) as `server` answers it. */
  const nextCursor = async (server: Server, id: string): Promise<string> => {
    const a = await server.runPromise(getSession({ id, maxChars: 60 }))
    expect(a.page.done).toBe(false)
    return a.page.nextCursor!
  }
  /** The message of the INVALID_CURSOR `get_session` of `id` after `cursor` fails with. */
  const refusal = async (server: Server, id: string, cursor: string): Promise<string> => {
    const e = await server.runPromise(Effect.flip(getSession({ id, maxChars: 60, cursor })))
    expect(e._tag, cursor).toBe("InvalidCursor")
    expect((e as { code: string }).code).toBe("INVALID_CURSOR")
    return e.message
  }

  it("a token that is no cursor, or a page cursor past its transcript's end, is malformed on both servers", async () => {
    const bad = ["hello", "p1.", "p1.!!!", "p1." + Buffer.from("[1,2]").toString("base64url"), "s1.abc.5.zz", "c2.zz", "s1." + "0".repeat(16) + ".5"]
    for (const token of bad) {
      for (const server of [servers.a, servers.plain]) {
        const m = await refusal(server, ONE, token)
        expect(m, token).toMatch(/^The cursor token is malformed/)
        expect(m, token).not.toMatch(/event's cursor|another|changed|redaction/)
      }
    }
    // a page cursor of this session and text, its offset edited past the text's end
    const page = await servers.a.runPromise(getSession({ id: ONE, maxChars: 60 }))
    const [uid, generation, , digest] = JSON.parse(Buffer.from(page.page.nextCursor!.slice(3), "base64url").toString("utf8"))
    const past = encodePageCursor({ sessionUid: uid, generation, offset: page.page.totalChars + 5, digest })
    expect(await refusal(servers.a, ONE, past)).toMatch(
      new RegExp(`^The cursor token is malformed: its offset \\(${page.page.totalChars + 5}\\) lies past the end of session ${ONE}'s transcript \\(${page.page.totalChars} characters\\)`)
    )
  })

  it("a page cursor whose offset was edited to inside a character or a redaction marker is malformed (tester39 F7)", async () => {
    const whole = await servers.d.runPromise(getSession({ id: THREE, maxChars: 100_000 }))
    const text = whole.page.text
    const page = await servers.d.runPromise(getSession({ id: THREE, maxChars: 10 }))
    const [uid, generation, , digest] = JSON.parse(Buffer.from(page.page.nextCursor!.slice(3), "base64url").toString("utf8"))
    const at = (offset: number) => encodePageCursor({ sessionUid: uid, generation, offset, digest })
    const emoji = text.indexOf("🎉")
    const marker = text.indexOf("[REDACTED:github-token]")
    expect(emoji).toBeGreaterThan(0)
    expect(marker).toBeGreaterThan(0)
    // between the halves of the emoji; one unit and 3 units into the marker, and at its last unit
    for (const offset of [emoji + 1, marker + 1, marker + 3, marker + "[REDACTED:github-token]".length - 1]) {
      expect(await refusal(servers.d, THREE, at(offset)), String(offset)).toBe(
        `The cursor token is malformed: its offset (${offset}) is no place a page of session ${THREE}'s transcript starts (inside a character or a redaction marker).`
      )
    }
    // where a page can start (before the emoji, after it, at the marker's edges): taken, the page from there
    for (const offset of [emoji, emoji + 2, marker, marker + "[REDACTED:github-token]".length]) {
      const a = await servers.d.runPromise(getSession({ id: THREE, maxChars: 10, cursor: at(offset) }))
      expect(a.page.fromChar).toBe(offset)
      expect(text.startsWith(a.page.text, offset)).toBe(true)
    }
  })

  it("an event's cursor is the other kind (get_events takes it), and get_events says a page cursor is one", async () => {
    const shown = (await servers.a.runPromise(getEvents({ id: ONE }))).events[1].cursor
    const stream = (await servers.plain.runPromise(getEvents({ id: ONE }))).events[1].cursor
    expect(shown).toMatch(/^s1\./)
    expect(stream).toMatch(/^c2\./)
    for (const server of [servers.a, servers.plain]) {
      for (const cursor of [shown, stream]) {
        expect(await refusal(server, ONE, cursor)).toMatch(/^The cursor is an event's cursor \(get_events takes it/)
      }
    }
    const page = await nextCursor(servers.a, ONE)
    const e = await servers.a.runPromise(Effect.flip(getEvents({ id: ONE, cursor: page })))
    expect(e._tag).toBe("InvalidCursor")
    expect(e.message).toMatch(/^The cursor is a get_session page cursor \(p1\.…\), not an event's cursor/)
  })

  it("a redacting server takes its own page cursors, not a --no-redact server's, and the other way round", async () => {
    expect(await refusal(servers.a, ONE, await nextCursor(servers.plain, ONE))).toMatch(
      /^With redaction on, get_session takes the page cursors its answers give \(naming the session by its shown uid, hses_…\), not one of a server run with --no-redact/
    )
    expect(await refusal(servers.plain, ONE, await nextCursor(servers.a, ONE))).toMatch(
      /^With redaction off \(--no-redact\), get_session takes the page cursors its answers give \(naming the session by its ses_… uid\), not a redacting server's/
    )
  })

  it("another session of this index, this session made by another index, a session this index does not hold", async () => {
    const two = await servers.a.runPromise(getSession({ id: TWO, maxChars: 60 }))
    expect(await refusal(servers.a, ONE, two.page.nextCursor!)).toBe(
      `The page cursor belongs to another session of this index, ${TWO} (${two.session.uid}), not session ${ONE}.`
    )
    expect(await refusal(servers.a, ONE, await nextCursor(servers.b, ONE))).toMatch(
      new RegExp(`^The page cursor is of a transcript the same as session ${ONE}'s, but another index made it .*so this index cannot verify it\\.$`)
    )
    expect(await refusal(servers.b, ONE, await nextCursor(servers.a, ONE))).toMatch(/another index made it/)
    // TWO's, of a.db, on b.db (which holds no TWO)
    expect(await refusal(servers.b, ONE, two.page.nextCursor!)).toMatch(
      /^The page cursor was not made by this index: its session uid names none of this index's sessions .*cannot verify it\.$/
    )
  })

  it("this session's transcript changed since: imported again (another generation), or another text (other redaction rules)", async () => {
    const before = await nextCursor(servers.c, ONE)
    // the cursor is taken as it is until then
    expect((await servers.c.runPromise(getSession({ id: ONE, maxChars: 60, cursor: before }))).page.fromChar).toBe(
      (await servers.c.runPromise(getSession({ id: ONE, maxChars: 60 }))).page.toChar
    )
    await write(files.c, [ONE], 2)
    expect(await refusal(servers.c, ONE, before)).toMatch(
      new RegExp(`^The transcript of session ${ONE} changed since this cursor was given: it was imported again \\(the cursor is of generation 1, the index holds generation 2\\)`)
    )
    // the same generation, another text: a server redacting "billing" too (a custom pattern)
    expect(await refusal(servers.custom, ONE, await nextCursor(servers.a, ONE))).toMatch(
      new RegExp(`^The transcript of session ${ONE} changed since this cursor was given: events were imported into it since, or the server redacts it with other rules`)
    )
  })
})
