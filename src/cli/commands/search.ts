/**
 * `session-ingest search <query>`: full-text search over the index (issue
 * 14; a SQLite file, or a PostgreSQL team index, issue 17), best first, each
 * hit with its session, event, snippet and cursor.
 *
 * @module
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { incompleteNote } from "../../domain/incomplete.js"
import { humanTime, oneLineField, shownName, visibleControls } from "../../domain/render.js"
import { MAX_SEARCH_LIMIT } from "../../domain/search/limits.js"
import { shellWord } from "../../domain/shell-word.js"
import type { SearchHit } from "../../services/Index.js"
import { errors, queryRuntime } from "../lazy.js"
import * as O from "../options.js"
import { envelope, jsonText, stdoutColor, type TextPiece, writeMarked, writeStderr, writeStdout } from "../output.js"
import { kindOption, timeRange, workspaceOption } from "../filters.js"

/** Hits listed when `--limit` is not given. */
const DEFAULT_LIMIT = 20

/** Whether `w` is one shell word as it is that no command line reads as an option: no quoting, no leading `-`. */
const plainWord = (w: string): boolean => /^[A-Za-z0-9_@%+=:,./][A-Za-z0-9_@%+=:,./-]*$/.test(w)

/**
 * `--around <event id>` as a shell and `show` read it back: the id as it is when plain, `--around=<quoted>` when it
 * needs quoting or starts with `-`, in its escaped one-line form only when it holds a character no terminal line should
 * carry (a control character: not runnable as printed, never raw).
 */
const aroundOption = (eventId: string): string =>
  plainWord(eventId)
    ? `--around ${eventId}`
    : visibleControls(oneLineField(eventId)) !== eventId
    ? `--around ${oneLineField(eventId)}`
    : `--around=${shellWord(eventId)}`

/**
 * The hits for people: per hit a head line (time, provider, session, kind
 * and role, event id; `on <machine>` after the provider when the hits come
 * from more than one machine, a team index), the session's title, and the
 * snippet with its matches marked; then how to see a hit in context (the
 * session by its uid when the hits come from several machines). A hit of an
 * incomplete session (`sessionStatus`) has a `!` after its session id and a
 * note under the hits. Content shown safe (`markedText`).
 */
export const renderHits = (hits: ReadonlyArray<SearchHit>, local: boolean): Array<TextPiece> => {
  if (hits.length === 0) return [{ text: "no hits\n" }]
  const out: Array<TextPiece> = []
  const machines = new Set(hits.map((h) => h.machine).filter((m) => m !== null)).size > 1
  hits.forEach((h, i) => {
    const time = h.occurredAt !== null ? humanTime(h.occurredAt, { local, seconds: true }) : "-"
    const what = h.eventId === null ? "title" : `${h.kind ?? "-"}${h.role !== null ? ` (${h.role})` : ""}  ${h.eventId}`
    const on = machines && h.machine !== null ? ` on ${oneLineField(h.machine)}` : ""
    // `!`: a hit of an incomplete session (as `sessions` marks it), said in a note under the hits
    const mark = h.sessionStatus === "incomplete" ? "!" : ""
    out.push({ text: `${i + 1}. ${time}  ${h.provider}${on}  ${oneLineField(h.sessionId)}${mark}  ${what}\n` })
    if (h.title !== null && h.eventId !== null) out.push({ text: `   ${h.title.replace(/\s+/g, " ").slice(0, 100)}\n` })
    out.push({ text: `   ${h.snippet.field === "input" ? "[input] " : ""}` })
    let at = 0
    for (const [a, b] of h.snippet.marks) {
      out.push({ text: h.snippet.text.slice(at, a) }, { text: h.snippet.text.slice(a, b), mark: true })
      at = b
    }
    out.push({ text: h.snippet.text.slice(at) + "\n" })
  })
  const first = hits.find((h) => h.eventId !== null)
  // Hits of several machines: the session by its uid, the one copy the hit is in (its native id names every machine's);
  // an id a shell would not read back as itself, or that reads as an option (`-rf`), by its uid too: the hint runs as
  // printed (tester32a F12).
  const shown = first === undefined ? "" : machines || !plainWord(first.sessionId) ? first.sessionUid : first.sessionId
  out.push({
    text: `\n${hits.length} hit${hits.length === 1 ? "" : "s"}, best first${
      first !== undefined ? `; in context: session-ingest show ${shown} ${aroundOption(first.eventId!)}` : ""
    }\n`
  })
  const incomplete = [...new Map(hits.filter((h) => h.sessionStatus === "incomplete").map((h) => [h.sessionUid, h])).values()]
  if (incomplete.length > 0) {
    out.push({ text: `${incompleteNote(incomplete.map((h) => ({ sessionId: h.sessionId, eventCount: 0, machine: h.machine === null ? null : shownName(h.machine) })), "!")}\n` })
  }
  return out
}

/** The command. */
export const search = Command.make(
  "search",
  {
    query: Args.text({ name: "query" }).pipe(
      Args.atLeast(1),
      Args.withDescription(
        "What to find: words (all must match), \"exact phrases\", prefix*, AND, OR, NOT or -word, ( ) groups. Several arguments are one query."
      )
    ),
    json: O.json,
    local: O.local,
    index: O.index,
    config: O.config,
    provider: O.providerFilter,
    machine: O.machineFilter,
    since: Options.text("since").pipe(O.plainValue, Options.withPseudoName("DATE"), Options.optional, Options.withDescription("Events at or after DATE (a bare YYYY-MM-DD is a UTC day; give a time with an offset for another zone).")),
    until: Options.text("until").pipe(O.plainValue, Options.withPseudoName("DATE"), Options.optional, Options.withDescription("Events at or before DATE (a bare date: to the end of that UTC day).")),
    session: Options.text("session").pipe(
      O.plainValue,
      Options.withPseudoName("SID"),
      Options.optional,
      Options.withDescription("Only this session (its id, ses_… uid, or a prefix naming one).")
    ),
    workspace: Options.text("workspace").pipe(
      O.plainValue,
      Options.withPseudoName("DIR"),
      Options.optional,
      Options.withDescription("Only sessions whose workspace / working directory is DIR or below it.")
    ),
    role: Options.choice("role", ["user", "assistant", "system"]).pipe(Options.optional, Options.withDescription("Only events of this role.")),
    kind: Options.text("kind").pipe(
      O.plainValue,
      Options.withPseudoName("KIND"),
      Options.optional,
      Options.withDescription("Only events of this kind, exactly: message, thinking, tool-call, tool-result, summary, result, meta, or a provider's own (Muse Code: side_effect_intent, …).")
    ),
    limit: O.decimalInteger("limit", "hits").pipe(
      Options.withPseudoName("N"),
      Options.optional,
      Options.withDescription(`At most N hits (default ${DEFAULT_LIMIT}).`)
    )
  },
  (o) =>
    Effect.gen(function*() {
      const rt = yield* queryRuntime
      // The arguments first: a bad one is INVALID_ARGUMENT / INVALID_SEARCH_QUERY whether or not there is an index.
      const query = o.query.join(" ")
      yield* rt.compileQuery(query)
      const limit = Option.getOrElse(o.limit, () => DEFAULT_LIMIT)
      if (limit < 1 || limit > MAX_SEARCH_LIMIT) {
        const { InvalidArgument } = yield* errors
        return yield* new InvalidArgument({
          message: `--limit ${limit}: the number of hits must be 1 to ${MAX_SEARCH_LIMIT}.`,
          remediation: `Pass --limit N with N from 1 to ${MAX_SEARCH_LIMIT}, or leave it out for ${DEFAULT_LIMIT}; narrow a larger search with --session, --kind, --since or more words.`
        })
      }
      const kind = yield* kindOption(o.kind)
      const { since, until } = yield* timeRange(o.since, o.until)
      const workspace = workspaceOption(o.workspace)
      const file = yield* rt.existingIndex(o.index, o.config)
      const hits = yield* Effect.gen(function*() {
        const machine = yield* rt.machineFilter(Option.getOrUndefined(o.machine), "--machine")
        const session = Option.isSome(o.session) ? yield* rt.searchSessionFilter(o.session.value) : undefined
        const index = yield* rt.Index
        // An index not migrated to folded search words yet: say what it misses and what fixes it (tester29b F2).
        const note = rt.searchFoldNote(index.searchFold)
        if (note !== null) writeStderr(`note: ${note}\n`)
        return yield* index.search(query, {
          provider: Option.getOrUndefined(o.provider),
          machine,
          since,
          until,
          ...session,
          workspace,
          role: Option.getOrUndefined(o.role),
          kind,
          limit
        })
      }).pipe(Effect.provide(rt.readIndexLayer(file)))
      if (o.json) return yield* writeStdout(jsonText(envelope("search", { query, hits }, null)) + "\n")
      yield* writeMarked(renderHits(hits, o.local), stdoutColor())
    })
).pipe(Command.withDescription("Search every event in the index (messages, thinking, tool inputs and results, summaries, titles), best first."))
