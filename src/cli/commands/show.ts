/**
 * `session-ingest show <session-id>`: one session from the index, as events
 * (NDJSON), a transcript, or Markdown (redacted unless `--no-redact`).
 * `--json` (events) carries the session's `usage` (tokens and cost, each
 * null where unknown); the text and Markdown transcripts end with a usage
 * line where the source reports any. A session not imported whole yet
 * (`status` `incomplete`) gets a note on stderr; its Markdown, shareable, is
 * refused (`STORE_UNAVAILABLE` `session-incomplete`, as `export`'s).
 *
 * @module
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Chunk from "effect/Chunk"
import * as Option from "effect/Option"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import type { SessionEvent, Transcript } from "../../domain/model.js"
import { markdownField, renderTranscriptText, transcriptMarkdownParts, usageLine } from "../../domain/render.js"
import { errors, queryRuntime, shareRuntime } from "../lazy.js"
import * as O from "../options.js"
import { noteIncomplete, noteOtherSources as noteOthers } from "../session-note.js"
import { ndjson, printResult, writeHumanParts, writeStderr, writeStdout } from "../output.js"

/** Events shown before and after the one `--around` names, when `--context` is not given. */
const DEFAULT_CONTEXT = 3

/** The command. */
export const show = Command.make(
  "show",
  {
    id: Args.text({ name: "session-id" }).pipe(O.plainArg, Args.withDescription("A session id (native, or the index's ses_… uid), or a prefix of one that names one session.")),
    format: Options.choice("format", ["events", "transcript", "markdown"]).pipe(
      Options.withDefault("events" as const),
      Options.withDescription("events (NDJSON, default), transcript (text; JSON with --json) or markdown.")
    ),
    around: Options.text("around").pipe(
      O.plainValue,
      Options.withPseudoName("EVENT"),
      Options.optional,
      Options.withDescription("Only the events around this one (its event id, as `search` shows it, or its evt_… uid).")
    ),
    context: O.decimalInteger("context", "events").pipe(
      Options.withPseudoName("N"),
      Options.optional,
      Options.withDescription(`With --around: N events before it and N after it (default ${DEFAULT_CONTEXT}).`)
    ),
    json: O.json,
    local: O.local,
    noRedact: O.noRedact("Markdown (--format markdown)"),
    index: O.index,
    config: O.config
  },
  (o) =>
    Effect.gen(function*() {
      const rt = yield* queryRuntime
      if (Option.isSome(o.context) && (Option.isNone(o.around) || o.context.value < 0)) {
        const { InvalidArgument } = yield* errors
        return yield* new InvalidArgument({
          message: Option.isNone(o.around)
            ? "--context says how many events to show around the one --around names; --around is missing."
            : `--context ${o.context.value}: the number of events around must be 0 or more.`,
          remediation: "Pass --around EVENT (an event id from `session-ingest search`) with --context N, N of 0 or more."
        })
      }
      const file = yield* rt.existingIndex(o.index, o.config)
      // A session loaded whole (Markdown, transcript) is held to the config's limits.maxDocumentBytes.
      const indexLayer = Layer.merge(rt.readIndexLayer(file), rt.readLimitsLayer(Option.getOrUndefined(o.config)))
      /** A transcript as the shareable Markdown carries it: through the Redaction service (the output boundary, layers/share.ts). */
      const shareable = (t: Transcript) =>
        Effect.flatMap(shareRuntime, (share) =>
          Effect.all([share.shareableTranscript(t), share.shownIds, share.shownText] as const).pipe(
            Effect.provide(share.redactionLayer(!o.noRedact, share.loadRedactionPatterns(Option.getOrUndefined(o.config))).pipe(Layer.provide(indexLayer)))
          ))
      if (Option.isSome(o.around)) {
        // The events around one: a bounded slice, printed as a whole session is.
        const eventId = o.around.value
        const n = Option.getOrElse(o.context, () => DEFAULT_CONTEXT)
        const { all, events, from, others, session, to } = yield* Effect.gen(function*() {
          const found = yield* rt.findSession(o.id)
          // one more on each side: the events just outside the window, for the joints at its edges
          const slice = yield* Effect.flatMap(rt.Index, (i) => i.eventsAround(found.session.sessionUid, eventId, n + 1, n + 1))
          if (Option.isNone(slice)) {
            const { SourceNotFound } = yield* errors
            return yield* new SourceNotFound({
              message: `Session ${found.session.sessionId} holds no event ${eventId}.`,
              remediation: "Pass an event id of this session, as `session-ingest search` lists it with its session (or its evt_… uid)."
            })
          }
          const { at, events: all } = slice.value
          const from = Math.max(0, at - n)
          return { ...found, all, from, to: Math.min(all.length, at + n + 1), events: all.slice(from, at + n + 1) }
        }).pipe(Effect.provide(indexLayer))
        noteOthers(session, others)
        // Markdown is shareable: a part of a session is never shared as the session (tester28a F3); else a note says it.
        if (o.format === "markdown") yield* rt.requireComplete(session)
        noteIncomplete(session)
        if (o.format === "events") {
          return yield* (o.json ? printResult("show", true, { session, events, around: eventId }, () => "") : writeStdout(ndjson(events)))
        }
        // The window as the whole session has it (layers/share.ts `shareableWindow`): the calls of its results that
        // lie before it, and in Markdown each event redacted with the session's earlier secrets and the joints at its edges.
        const markdown = o.format === "markdown"
        const share = yield* shareRuntime
        const redaction = share.redactionLayer(markdown && !o.noRedact, share.loadRedactionPatterns(Option.getOrUndefined(o.config)))
        // The events just outside the window: the next one on each side and the rest of a run of one response's text
        // the window's edge goes on in (read wider while such a run reaches the slice's edge).
        const { after, before } = yield* Effect.gen(function*() {
          let edges = share.outsideRuns(all, from, to)
          for (let k = 2 * (n + 1); edges.cut.before || edges.cut.after; k *= 2) {
            const wider = yield* Effect.flatMap(rt.Index, (i) => i.eventsAround(session.sessionUid, eventId, k + n, k + n))
            if (Option.isNone(wider)) break
            const { at, events: more } = wider.value
            edges = share.outsideRuns(more, Math.max(0, at - n), Math.min(more.length, at + n + 1))
            if (edges.cut.before && at < k + n) edges = { ...edges, cut: { ...edges.cut, before: false } }
            if (edges.cut.after && more.length - at - 1 < k + n) edges = { ...edges, cut: { ...edges.cut, after: false } }
          }
          return edges
        }).pipe(Effect.provide(indexLayer))
        const build = (es: ReadonlyArray<SessionEvent>) => rt.sessionTranscript({ session, events: es })
        const { shared, shown } = yield* Effect.gen(function*() {
          const shown = yield* share.shareableWindow({ session: (yield* rt.Index).eventsStream(session.sessionUid), before, events, after })
          // Markdown is shareable, a slice of a session as a whole one: redacted unless --no-redact.
          return { shown, shared: markdown ? yield* share.shareableWindowTranscript(build, shown) : undefined }
        }).pipe(Effect.provide(redaction.pipe(Layer.provideMerge(indexLayer))))
        if (shared !== undefined) {
          if (!o.json) return yield* writeHumanParts(transcriptMarkdownParts(shared, { local: o.local }))
          return yield* printResult("show", true, shared, () => "")
        }
        const t = build([...shown.calls, ...shown.events])
        return yield* printResult("show", o.json, t, () => renderTranscriptText(t, { local: o.local }))
      }
      if (o.format === "events" && !o.json) {
        // NDJSON a page at a time: a session of any length in bounded memory.
        return yield* Effect.gen(function*() {
          const { others, session } = yield* rt.findSession(o.id)
          noteOthers(session, others)
          noteIncomplete(session)
          const index = yield* rt.Index
          yield* index.eventsStream(session.sessionUid).pipe(
            Stream.mapChunks((c) => Chunk.of(ndjson(c))),
            Stream.runForEach(writeStdout)
          )
        }).pipe(Effect.provide(indexLayer))
      }
      const prices = yield* rt.loadPriceTable(Option.getOrUndefined(o.config))
      const { events, others, session, usage } = yield* Effect.gen(function*() {
        const loaded = yield* rt.loadSession(o.id)
        const uid = loaded.session.sessionUid
        const summary = (yield* rt.usageBySession(prices, [uid])).get(uid)
        // What the cost leaves out or sets aside, named as `usage` names it (docs/usage-and-cost.md): keys only when there are some.
        const caveats = {
          ...(summary !== undefined && summary.unpriced.length > 0 ? { unpriced: summary.unpriced } : {}),
          ...(summary?.longContextUnpriced !== undefined ? { longContextUnpriced: summary.longContextUnpriced } : {}),
          ...(summary?.fastUnpriced !== undefined ? { fastUnpriced: summary.fastUnpriced } : {}),
          ...(summary?.runsSetAside !== undefined ? { runsSetAside: summary.runsSetAside } : {})
        }
        const usage = { ...rt.usageView(summary, (yield* rt.usageElsewhereBySession([uid])).get(uid)), ...caveats }
        return { ...loaded, usage }
      }).pipe(Effect.provide(indexLayer))
      noteOthers(session, others)
      if (o.format === "markdown") yield* rt.requireComplete(session)
      noteIncomplete(session)
      if (o.format === "events") return yield* printResult("show", true, { session: { ...session, usage }, events }, () => "")
      /** The usage line under the output, the uids of the copies it names as `uid` shows them (a redacted output's: keyed). */
      const usageText = (uid: (u: string) => string, model: (m: string) => string = (m) => m) =>
        usageLine({
          ...usage,
          countedElsewhere: usage.countedElsewhere?.map((c) => ({ ...c, sessionUid: uid(c.sessionUid) })),
          // the models it names come from the index: redacted as the events are in a shareable output
          ...(usage.unpriced !== undefined ? { unpriced: usage.unpriced.map((u) => ({ ...u, model: u.model === null ? null : model(u.model) })) } : {}),
          ...(usage.longContextUnpriced !== undefined
            ? { longContextUnpriced: usage.longContextUnpriced.map((u) => ({ ...u, model: u.model === null ? null : model(u.model) })) }
            : {}),
          ...(usage.fastUnpriced !== undefined
            ? { fastUnpriced: usage.fastUnpriced.map((u) => ({ ...u, model: u.model === null ? null : model(u.model) })) }
            : {})
        }, session)
      const under = (line: string | null) => (text: string) => (line === null ? text : `${text}${text.endsWith("\n") ? "" : "\n"}\n${line}\n`)
      const withUsage = under(usageText((u) => u))
      /** The usage line as the Markdown carries it: the session ids it names are text a source wrote (inert). */
      const markdownLine = (line: string | null) => (line === null ? null : markdownField(line))
      const t = rt.sessionTranscript({ session, events })
      if (t.turns.length === 0 && events.length > 0) {
        writeStderr(
          `note: session ${session.sessionId} holds no conversation events (${session.provider} records runtime facts); use --format events.\n`
        )
      }
      if (o.format === "markdown") {
        // Markdown is shareable: redacted unless --no-redact (the output boundary, layers/share.ts).
        const [shared, ids, shownText] = yield* shareable(t)
        if (!o.json) {
          return yield* writeHumanParts(transcriptMarkdownParts(shared, { local: o.local }), under(markdownLine(usageText(ids.sessionUid, shownText))))
        }
        return yield* printResult("show", true, shared, () => "")
      }
      yield* printResult("show", o.json, t, () => withUsage(renderTranscriptText(t, { local: o.local })))
    })
).pipe(Command.withDescription("Show one session from the index: its events (NDJSON), transcript or Markdown."))
