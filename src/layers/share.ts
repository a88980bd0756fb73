/**
 * The output boundary of shareable outputs (issue 15): what a session
 * becomes before it is written as NDJSON export, ATIF, Markdown (and the
 * HTML replay, MCP answers), through the {@link Redaction} service. Every
 * shareable output is made here, so redaction is applied in one place; the
 * `Redaction` layer in force decides what is removed (`Redaction.off` for
 * `--no-redact`). `stream`, `show --format events|transcript` and
 * `transcript` (text, JSON) are the raw record and do not come here.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Chunk from "effect/Chunk"
import * as Stream from "effect/Stream"
import type { AtifInput, AtifTrajectory } from "../domain/atif.js"
import type { SessionEvent, Transcript } from "../domain/model.js"
import type { ReplaySource } from "../domain/replay/build.js"
import { Redaction, type RedactionShape, redactionWith, withShownIds } from "../services/Redaction.js"
import { Index } from "../services/Index.js"
import { keyedIds, runIds, type ShownIds } from "../domain/shown-ids.js"
import { sessionRedactor, type SessionRedactor } from "../domain/redaction/redact.js"
import { titleSourceIn } from "../domain/redaction/clipped.js"
import { attempt, Reruns, type Steps } from "../domain/redaction/pausable.js"
import type { InvalidArgument, StoreUnavailable } from "../domain/errors.js"
import type { CustomPattern } from "../domain/redaction/custom.js"
import { redactJoints, redactJointsSteps, redactTranscriptJoints, sameResponseText, sameUserMessage } from "../domain/redaction/joints.js"
import * as Layer from "effect/Layer"

/**
 * The ATIF builder (`../domain/atif.ts`), loaded on first use: its schemas are
 * built as the module loads, and only `export --format atif` needs them.
 */
const atif = Effect.promise(() => import("../domain/atif.js"))

/**
 * A `sessionRedactor` that has seen every event of `events` (one session's, in order; read once, a chunk at a time,
 * never held), so that its `event` redacts each event of a second read with all the secrets the session decides on
 * (tester25a F12: a value a later tool call names as a secret is hidden in the earlier events and the title too).
 * Fails as `events` does.
 */
export const seenSession = <E, R>(r: RedactionShape, events: Stream.Stream<SessionEvent, E, R>): Effect.Effect<SessionRedactor, E, R> =>
  Effect.gen(function*() {
    const sr = sessionRedactor(r)
    if (r.enabled) yield* Stream.runForEach(events, (e) => redactYielding(() => sr.see(e)))
    return sr
  })

/**
 * Events as a shareable output carries them (NDJSON export), a chunk at a time: `events` is read twice, first for
 * the secrets the session's events decide on ({@link seenSession}), then for the output, each event redacted with all
 * of them, so a secret a tool input decided on is redacted wherever the session restates it, before or after it.
 */
export const shareableEvents = <E, R>(events: Stream.Stream<SessionEvent, E, R>): Stream.Stream<SessionEvent, E, R | Redaction> =>
  Stream.unwrap(Effect.flatMap(Redaction, (r) =>
    r.enabled
      ? Effect.map(seenSession(r, events), (sr) => jointsRedacted(r.text, Stream.mapChunksEffect(events, (c) => Effect.map(mapYielding(Chunk.toReadonlyArray(c), sr.event), Chunk.unsafeFromArray))))
      : Effect.succeed(events)))

/**
 * Redacted `events` with each run of consecutive assistant text and thinking (and of one user message's text blocks)
 * redacted as one text (`redactJoints`, a secret cut across Claude Code's blocks, two or more), a run at a time: a run's events are held until an event
 * that does not go on it is seen (or the stream ends).
 */
const jointsRedacted = <E, R>(redact: (s: string) => string, events: Stream.Stream<SessionEvent, E, R>): Stream.Stream<SessionEvent, E, R> =>
  Stream.mapConcat(responseRuns(events), (run) => (run.length < 2 ? run : redactJoints(redact, run)))

/**
 * `events` in runs: consecutive events each of which goes on the one before (`sameResponseText`: consecutive assistant
 * text and thinking, or the text blocks of one user message), each other event a run of its own; in order, a run at a time (each ends where the next
 * event does not go on it, or where the stream ends).
 */
export const responseRuns = <E, R>(events: Stream.Stream<SessionEvent, E, R>): Stream.Stream<ReadonlyArray<SessionEvent>, E, R> =>
  events.pipe(
    Stream.mapAccum({ n: 0, last: null as SessionEvent | null }, (s, e) => {
      const n = s.last !== null && sameResponseText(s.last, e) ? s.n : s.n + 1
      return [{ n, last: e }, [n, e] as const] as const
    }),
    Stream.groupAdjacentBy(([n]) => n),
    Stream.map(([, run]) => Chunk.toReadonlyArray(run).map(([, e]) => e))
  )

/**
 * `r.event` for the events of one session and its subagents given whole (ATIF, the replay): the secrets every
 * one of their tool inputs decides on are noted first, then each event is redacted with them, so a secret is
 * gone wherever the session restates it, before or after its tool call.
 */
const wholeSessionRedaction = (r: RedactionShape, eventLists: ReadonlyArray<ReadonlyArray<SessionEvent>>): Effect.Effect<{
  readonly event: (e: SessionEvent) => SessionEvent
  /**
   * A title of the session or a subagent, with the same secrets (tester17 F1b: the first prompt's are its title's);
   * cut from its first prompt redacted whole when it was cut from one of `events` (its session's: tester22c F1).
   * Yields as {@link redactYielding} does.
   */
  readonly title: (t: string | null | undefined, events: ReadonlyArray<SessionEvent>) => Effect.Effect<string | null | undefined>
}> =>
  Effect.gen(function*() {
    const sr = sessionRedactor(r)
    for (const es of eventLists) yield* mapYielding(es, sr.see)
    // a snapshot: `sr.event` adds nothing new to what every event was seen for
    const known = new Map(sr.known)
    return {
      event: sr.event,
      title: (t, events) => (t == null ? Effect.succeed(t) : redactYielding(() => r.title(t, known, titleSourceIn(t, events.map((e) => e.text)))))
    }
  })

/**
 * A window of one session (`show --around`): `events`, with the events just before it and just after it (`before`,
 * `after`, in order: read for the joints at the window's edges; none at the session's edge): the event next to the
 * window, and with it the rest of the run of consecutive assistant text and thinking the window's edge event is in
 * ({@link outsideRuns}), and `session`, the session's events in order from its first (read up to the window only).
 */
export interface SessionWindow<E, R> {
  readonly session: Stream.Stream<SessionEvent, E, R>
  readonly before: ReadonlyArray<SessionEvent>
  readonly events: ReadonlyArray<SessionEvent>
  readonly after: ReadonlyArray<SessionEvent>
}

/**
 * The events outside a window (`events[from, to)` of a slice of a session that holds it) a {@link SessionWindow}
 * reads: the one next to each edge, and, when the edge event goes on in it, the rest of the run of consecutive assistant
 * text and thinking (`sameResponseText`: of consecutive responses too) it is in. `cut` says where such a run reaches the slice's edge (the
 * slice may not hold all of it: read a wider slice, unless the slice is the session's own edge).
 */
export const outsideRuns = (slice: ReadonlyArray<SessionEvent>, from: number, to: number): {
  readonly before: ReadonlyArray<SessionEvent>
  readonly after: ReadonlyArray<SessionEvent>
  /** Whether the run before the window reaches the slice's first event, the run after it the slice's last. */
  readonly cut: { readonly before: boolean; readonly after: boolean }
} => {
  const goesOnBefore = from > 0 && from < slice.length && sameResponseText(slice[from - 1], slice[from])
  let b = Math.max(0, from - 1)
  while (goesOnBefore && b > 0 && sameResponseText(slice[b - 1], slice[b])) b--
  const goesOnAfter = to > 0 && to < slice.length && sameResponseText(slice[to - 1], slice[to])
  let a = Math.min(slice.length, to + 1)
  while (goesOnAfter && a < slice.length && sameResponseText(slice[a - 1], slice[a])) a++
  return {
    before: slice.slice(b, from),
    after: slice.slice(to, a),
    cut: { before: goesOnBefore && b === 0, after: goesOnAfter && a === slice.length }
  }
}

/** A window as {@link shareableWindow} answers it: each event redacted when the Redaction in force is on. */
export interface WindowShown {
  /** The calls of the window's results that lie before the window (the latest of each id), in their order. */
  readonly calls: ReadonlyArray<SessionEvent>
  /** The window's events. */
  readonly events: ReadonlyArray<SessionEvent>
  /** The events just outside it (as given), for the Markdown's joints at its edges ({@link shareableWindowTranscript}). */
  readonly before: ReadonlyArray<SessionEvent>
  readonly after: ReadonlyArray<SessionEvent>
  /** With redaction on, the secrets the whole session's events decide on (its title is redacted with them). */
  readonly known?: ReadonlyMap<string, string>
}

/**
 * A window of one session as the whole session's output has it (tester22b F2): with redaction on, each event is
 * redacted with the secrets the session's events decide on, later ones' too (`sessionRedactor`: every event of the
 * session is read, a page at a time, never held; tester25a F12), those secrets given as `known` for its title, and each joint of two consecutive assistant texts redacted as one, the
 * window's edges with the events just outside it (`redactJoints`), so the window's events equal the matching
 * slice of the whole session's shareable events ({@link shareableEvents}: `export`). With them come the tool
 * calls (redacted as the whole session has them) of the window's tool results whose calls lie before the window:
 * the window's transcript then pairs each result with its call, as the session's does, and counts no result as
 * an orphan output that is one only of the window. The session is read only when one of the two needs it. Fails
 * as `session` does.
 */
export const shareableWindow = <E, R>(w: SessionWindow<E, R>): Effect.Effect<WindowShown, E, R | Redaction> =>
  Effect.gen(function*() {
    const r = yield* Redaction
    // the results of the window with no earlier call in it (`transcriptFromEvents` pairs a result with an earlier call)
    const inWindow = new Set<string>()
    const wanted = new Set<string>()
    for (const e of w.events) {
      if (e.toolCallId === null) continue
      if (e.kind === "tool-call") inWindow.add(e.toolCallId)
      else if (e.kind === "tool-result" && !inWindow.has(e.toolCallId)) wanted.add(e.toolCallId)
    }
    if (!r.enabled && wanted.size === 0) return { calls: [], events: w.events, before: w.before, after: w.after }
    const sr = sessionRedactor(r)
    // the calls: read up to the window's first event (the event just before it may be a call of one of its results);
    // the secrets: read the whole session (tester25a F12: a later event may decide on a value an earlier one states)
    const first = w.events[0]
    const calls = new Map<string, SessionEvent>()
    if (first !== undefined) {
      let before = true
      yield* Stream.runForEach(
        r.enabled ? w.session : Stream.takeWhile(w.session, (e) => e.sequence !== first.sequence || e.eventId !== first.eventId),
        (e) =>
          Effect.sync(() => {
            if (before && e.sequence === first.sequence && e.eventId === first.eventId) before = false
            if (before && e.kind === "tool-call" && e.toolCallId !== null && wanted.has(e.toolCallId)) {
              calls.delete(e.toolCallId)
              calls.set(e.toolCallId, e)
            }
          }).pipe(Effect.zipRight(r.enabled ? redactYielding(() => sr.see(e)) : Effect.void))
      )
      // redacted with every secret known (the same event objects: `sr.event` restates what `see` redacted)
      if (r.enabled) for (const [id, e] of calls) calls.set(id, yield* redactYielding(() => sr.event(e)))
    }
    if (!r.enabled) return { calls: [...calls.values()], events: w.events, before: w.before, after: w.after }
    const edged = redactJoints(r.text, yield* mapYielding([...w.before, ...w.events, ...w.after], sr.event))
    const from = w.before.length
    return {
      calls: [...calls.values()],
      events: edged.slice(from, from + w.events.length),
      before: edged.slice(0, from),
      after: edged.slice(from + w.events.length),
      known: new Map(sr.known)
    }
  })

/** An assistant's text or thinking with text: a block a Markdown joint may join with the next (`redactTranscriptJoints`). */
const assistantText = (e: SessionEvent): boolean =>
  (e.kind === "message" || e.kind === "thinking") && e.role === "assistant" && typeof e.text === "string" && e.text.length > 0

/**
 * Whether the Markdown reads `a` and `b` (consecutive events) in one text at their joint (`redactTranscriptJoints`):
 * an assistant turn's adjacent text and thinking, or the text blocks of one user message (`sameUserMessage`).
 */
const markdownJoins = (a: SessionEvent, b: SessionEvent | undefined): boolean =>
  assistantText(a) || (b !== undefined && sameUserMessage(a, b))

/**
 * The transcript of a window ({@link shareableWindow}) as the shareable Markdown carries it, as the whole
 * session's Markdown has the window's blocks: `build` makes a transcript of events (the session's, as the whole
 * one is made); the events just outside an edge that are an assistant's text or thinking, or text blocks of the user
 * message the edge's block is in, up to the edge, are redacted with the window (the Markdown reads adjacent text and
 * thinking blocks of an assistant turn, and the blocks of one user message, as one text: `redactTranscriptJoints`)
 * and their blocks then left out. The window's own times, diagnostics and parse
 * warnings are kept.
 */
export const shareableWindowTranscript = (build: (events: ReadonlyArray<SessionEvent>) => Transcript, w: WindowShown): Effect.Effect<Transcript, never, Redaction> =>
  Effect.gen(function*() {
    const own = build([...w.calls, ...w.events])
    const r = yield* Redaction
    let b = w.before.length
    while (r.enabled && b > 0 && markdownJoins(w.before[b - 1], b < w.before.length ? w.before[b] : w.events[0])) b--
    let a = 0
    while (r.enabled && a < w.after.length && markdownJoins(w.after[a], a > 0 ? w.after[a - 1] : w.events[w.events.length - 1])) a++
    const before = w.before.slice(b), after = w.after.slice(0, a)
    if (before.length === 0 && after.length === 0) return yield* shareableTranscript(own, w.known)
    const shared = yield* shareableTranscript(build([...w.calls, ...before, ...w.events, ...after]), w.known)
    const blocks = shared.turns.flatMap((t) => t.blocks)
    blocks.splice(blocks.length - after.length, after.length)
    // the calls make a block each, then the events before the window
    blocks.splice(w.calls.length, before.length)
    if (blocks.length !== own.turns.reduce((n, t) => n + t.blocks.length, 0)) return yield* shareableTranscript(own, w.known)
    let k = 0
    return {
      ...shared,
      startedAt: own.startedAt,
      endedAt: own.endedAt,
      parseWarnings: own.parseWarnings,
      diagnostics: own.diagnostics,
      turns: own.turns.map((t) => ({ ...t, blocks: t.blocks.map(() => blocks[k++]) }))
    }
  })

/**
 * How the output in force names sources and sessions (`src/domain/shown-ids.ts`): keyed digests with redaction on (a
 * session uid a shareable text names, such as a usage line's copy counted elsewhere, goes through `sessionUid`), the
 * real ids with it off.
 */
export const shownIds: Effect.Effect<ShownIds, never, Redaction> = Effect.map(Redaction, (r) => r.ids)

/**
 * The text redaction in force (the identity with redaction off): for a name an output takes from the index rather
 * than from the redacted events (a model `show`'s usage line names as without a price), redacted as the events are.
 */
export const shownText: Effect.Effect<(s: string) => string, never, Redaction> = Effect.map(Redaction, (r) => (r.enabled ? r.text : (s: string) => s))

/**
 * A transcript as a shareable output carries it (Markdown, the replay): each secret any of its turns decides on, and
 * each of `known` (the secrets of the session it is a part of: a window's), redacted in every turn and the title.
 */
export const shareableTranscript = (t: Transcript, known?: ReadonlyMap<string, string>): Effect.Effect<Transcript, never, Redaction> =>
  Effect.flatMap(Redaction, (r) => (r.enabled ? Effect.sync(() => redactTranscriptJoints(r.text, r.transcript(t, known))) : Effect.succeed(r.transcript(t))))

/**
 * An ATIF trajectory as `export --format atif` writes it: built from the
 * redacted events and session titles (so every step, tool call, observation
 * and `extra` derived from them is redacted, and ids still link), and the
 * models its usage names without a price redacted ({@link redactUnpricedModels}).
 */
export const shareableTrajectory = (input: AtifInput): Effect.Effect<AtifTrajectory, never, Redaction> =>
  Effect.flatMap(Effect.zip(Redaction, atif), ([r, { toAtif }]) => {
    // (tester31b F1) the document says whether it was redacted, as a Muse Code export's `redaction` does (seed 001).
    if (!r.enabled) return Effect.sync(() => toAtif({ ...input, session: { ...input.session, redaction: "none" } }))
    return Effect.gen(function*() {
      const whole = yield* wholeSessionRedaction(r, [input.events, ...input.subagents.map((s) => s.events)])
      const event = whole.event
      const session = (s: AtifInput["session"], events: ReadonlyArray<SessionEvent>) =>
        Effect.map(whole.title(s.title, events), (title) => ({ ...s, sessionId: r.id(s.sessionId), title, model: s.model == null ? s.model : r.text(s.model) }))
      const events = yield* redactJointsYielding(r.text, yield* mapYielding(input.events, event))
      const top = { ...(yield* session(input.session, input.events)), redaction: "redacted" as const }
      const subagents: Array<AtifInput["subagents"][number]> = []
      for (const sub of input.subagents) {
        subagents.push({ ...sub, session: yield* session(sub.session, sub.events), events: yield* redactJointsYielding(r.text, yield* mapYielding(sub.events, event)) })
      }
      return redactUnpricedModels(toAtif({ ...input, session: top, events, subagents }), r.text)
    })
  })

/**
 * `t` with the models of its `final_metrics.extra.unpriced_models`, `long_context_unpriced_models` and
 * `fast_unpriced_models`, and its
 * `notes` that name them (and its subagent trajectories'), redacted by
 * `text`, as its `model_name`s are (tester23b F9): those names come from the usage the index counted, whose
 * models stay as their sources wrote them so that they are priced as `usage` prices them, not from the redacted
 * events.
 */
const redactUnpricedModels = (t: AtifTrajectory, text: (s: string) => string): AtifTrajectory => {
  const extra = t.final_metrics?.extra
  const names = extra?.unpriced_models
  const long = extra?.long_context_unpriced_models
  const fast = extra?.fast_unpriced_models
  const each = (v: unknown) => (Array.isArray(v) ? v.map((n) => (typeof n === "string" ? text(n) : n)) : v)
  return {
    ...t,
    // (session 28) the notes that name them too
    ...(typeof t.notes === "string" ? { notes: text(t.notes) } : {}),
    ...(t.final_metrics != null && (Array.isArray(names) || Array.isArray(long) || Array.isArray(fast))
      ? {
        final_metrics: {
          ...t.final_metrics,
          extra: {
            ...extra,
            ...(Array.isArray(names) ? { unpriced_models: each(names) } : {}),
            ...(Array.isArray(long) ? { long_context_unpriced_models: each(long) } : {}),
            ...(Array.isArray(fast) ? { fast_unpriced_models: each(fast) } : {})
          }
        }
      }
      : {}),
    ...(t.subagent_trajectories != null ? { subagent_trajectories: t.subagent_trajectories.map((s) => redactUnpricedModels(s, text)) } : {})
  }
}

/** Events {@link mapYielding} maps between two yields: a few milliseconds of redaction. */
const SLICE = 500

/**
 * `xs.map(f)`, a slice of {@link SLICE} elements at a time with a yield to the
 * scheduler between slices, so that an interruption (Ctrl-C) lands within
 * one slice of a long array (the CLI's scheduler lets the event loop in:
 * `src/cli/scheduler.ts`); each `f` (a redaction) run as {@link redactYielding} runs it, so that one huge text
 * does not hold the event loop either.
 */
export const mapYielding = <A, B>(xs: ReadonlyArray<A>, f: (a: A) => B): Effect.Effect<Array<B>> =>
  Effect.gen(function*() {
    const out = new Array<B>(xs.length)
    for (let i = 0; i < xs.length; i++) {
      if (i > 0 && i % SLICE === 0) yield* Effect.yieldNow()
      const x = xs[i]
      out[i] = yield* redactYielding(() => f(x))
    }
    return out
  })

/**
 * A turn of Node's event loop (`setImmediate`: after pending I/O and signal callbacks), whatever scheduler runs the
 * fiber: Effect's default one (the MCP server's calls) resumes a yielding fiber in a microtask 2,048 times before the
 * event loop runs, so a yield there let no end of input in (tester33a F7). Interruptible.
 */
const eventLoopTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  const t = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(t))
})

/** A generator run to its end with a turn of the event loop after each of its pauses (each a part of a huge text's redaction). */
export const runSteps = (steps: Steps<void>): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (steps.next().done !== true) yield* eventLoopTurn
  })

/**
 * `f()`, a redaction (of an event, a title, a transcript), run so that its costly steps on a huge text (tester33a F7:
 * a 13.8 MB first prompt holding 300,000 caught passwords) pause, each pause a yield to the scheduler where a
 * signal, a cancellation or the end of an MCP client's input lands (`src/domain/redaction/pausable.ts`): the
 * answer is `f()`'s, byte for byte. `f` must be a redaction (run again from its start after each pause: its state
 * per call, or added to the same way again).
 */
export const redactYielding = <A>(f: () => A, runs?: Reruns): Effect.Effect<A> =>
  Effect.suspend(() => {
    const kept = runs ?? new Reruns()
    const go = (n: number): Effect.Effect<A> =>
      Effect.suspend(() => {
        // past MAX_ATTEMPTS, f runs whole (its steps at once): the same answer, never an endless round of attempts
        // (tester35c F2: a redaction whose steps' answers a later attempt could not find again paused forever)
        if (n >= MAX_ATTEMPTS) return Effect.sync(f)
        const r = attempt(f, kept)
        return r.done ? Effect.succeed(r.value) : Effect.zipRight(runSteps(r.work), go(n + 1))
      })
    return go(0)
  })

/**
 * The most attempts {@link redactYielding} makes of one redaction before it runs it whole: a huge text's redaction
 * takes a few dozen (one per costly step it meets); a redaction that stops on the same step again and again (its
 * step's answer not found by the next attempt) would never end.
 */
const MAX_ATTEMPTS = 256

/**
 * `redactJoints(redact, events)` with a yield to the scheduler after each few hundred joints
 * (`redactJointsSteps`), so that an interruption (a signal, an MCP cancellation) lands within a slice of a long
 * run of one response's blocks (tester32a F13: 22,000 consecutive assistant texts are seconds of joints).
 */
export const redactJointsYielding = (redact: (s: string) => string, events: ReadonlyArray<SessionEvent>): Effect.Effect<Array<SessionEvent>> =>
  Effect.gen(function*() {
    const steps = redactJointsSteps(redact, events)
    for (;;) {
      const r = steps.next()
      if (r.done === true) return r.value
      yield* Effect.yieldNow()
    }
  })

/**
 * The Redaction of a command's shareable output: off (`--no-redact`), or the built-in rules with `patterns`, naming
 * sources and sessions by the shown ids of the index in context (`src/domain/shown-ids.ts`: keyed by its
 * `shownIdKey`; an index that holds none, one from before the key read without migrating, by a key of this run).
 */
export const redactionLayer = <E, R>(
  redact: boolean,
  patterns: Effect.Effect<ReadonlyArray<CustomPattern>, E, R>
): Layer.Layer<Redaction, E | InvalidArgument | StoreUnavailable, R | Index> =>
  redact
    ? Layer.effect(
      Redaction,
      Effect.gen(function*() {
        const r = yield* Effect.flatMap(patterns, (p) => redactionWith(p))
        const key = yield* Effect.flatMap(Index, (i) => i.shownIdKey)
        return withShownIds(r, key === null ? runIds() : keyedIds(key))
      })
    )
    : Redaction.off

/**
 * The Redaction of a shareable output made from a source file with no index (`transcript --format markdown`): as
 * {@link redactionLayer}, with a key of this run for the shown ids (no index keeps one; a transcript shows no source
 * id or session uid anyway).
 */
export const fileRedactionLayer = <E, R>(
  redact: boolean,
  patterns: Effect.Effect<ReadonlyArray<CustomPattern>, E, R>
): Layer.Layer<Redaction, E | InvalidArgument, R> =>
  redact ? Layer.effect(Redaction, Effect.flatMap(patterns, (p) => Effect.map(redactionWith(p), (r) => withShownIds(r, runIds())))) : Redaction.off

/**
 * A replay's source as the HTML replay shows it (issue 15): the session's and
 * every subagent's title, model and workspace, and their events, redacted
 * (ids and links kept, so subagents still nest under their calls).
 */
export const shareableReplaySource = (source: ReplaySource): Effect.Effect<ReplaySource, never, Redaction> =>
  Effect.flatMap(Redaction, (r) => {
    if (!r.enabled) return Effect.succeed(source)
    const text = (v: string | null | undefined) => (v == null ? v : r.text(v))
    const lists: Array<ReadonlyArray<SessionEvent>> = []
    const all = (s: ReplaySource): void => {
      lists.push(s.events)
      s.subagents.forEach(all)
    }
    all(source)
    const redact = (whole: Effect.Effect.Success<ReturnType<typeof wholeSessionRedaction>>, s: ReplaySource): Effect.Effect<ReplaySource> =>
      Effect.gen(function*() {
        const events = yield* redactJointsYielding(r.text, yield* mapYielding(s.events, whole.event))
        const subagents: Array<ReplaySource> = []
        for (const sub of s.subagents) subagents.push(yield* redact(whole, sub))
        return { ...s, session: { ...s.session, sessionId: r.id(s.session.sessionId), title: yield* whole.title(s.session.title, s.events), model: text(s.session.model), workspace: text(s.session.workspace) }, events, subagents }
      })
    return Effect.flatMap(wholeSessionRedaction(r, lists), (whole) => redact(whole, source))
  })
