/**
 * Redaction of a huge text a part at a time (tester33a F7: a 13.8 MB first prompt holding 300,000 caught passwords
 * took seconds of one synchronous step per rule pass and per restating pass, minutes in all, during which a replay
 * did not stop on SIGTERM and an MCP server did not see its client close its input).
 *
 * The redaction's functions are synchronous (`(s) => string`, called deep inside the walk of an event). The costly
 * steps on one text of {@link HUGE} characters or more (a rule pass over it: `textRedaction` in `./rules.ts`; the
 * search of it for a map's secrets: `occurrencesIn` in `./redact.ts`) are also written as generators that pause
 * between parts (a rule, a stretch of the text), and their answers are kept for that text. Run by
 * {@link attempt}, a redaction that meets such a step not done yet stops with {@link NeedsWork} (its generator);
 * the caller (an Effect: `redactYielding` in `src/layers/share.ts`) runs the generator with a yield to the scheduler
 * between parts, where a signal, a cancellation or the end of input lands, then runs the redaction again from its
 * start, which now finds the step's answer. Everything a redaction does before such a step is done again the same way
 * (its state is per call, or added to once, the same entries), so the answer is the one the synchronous redaction
 * gives, byte for byte. Outside {@link attempt} (every other caller, and the tests of the rules) the same generator
 * runs to its end at once.
 *
 * @module
 */

/** The fewest characters of a text whose costly redaction steps pause between parts (256 Ki characters). */
export const HUGE = 1 << 18

/** A pausable step: a generator that pauses (yields) between its parts and returns the step's answer. */
export type Steps<A> = Generator<void, A, void>

/** The work a redaction met that was not done yet (see the module doc): run it, then run the redaction again. */
export class NeedsWork {
  constructor(readonly steps: Steps<void>) {}
}

/** How many {@link attempt}s are running (a redaction inside one may stop with {@link NeedsWork}). */
let attempts = 0

/**
 * What the attempts of one redaction made that a later attempt takes again rather than make anew ({@link again}):
 * by key, in the order an attempt asked for them. An attempt runs the same steps in the same order as the one before
 * it (the redaction is deterministic), so its `n`th ask with a key is the `n`th ask of the attempt before it.
 */
export class Reruns {
  readonly made = new Map<unknown, Array<unknown>>()
}

/** The {@link Reruns} of the running {@link attempt} and how many times it asked for each key so far. */
let reruns: Reruns | undefined
let asked = new Map<unknown, number>()

/**
 * `make()`, or, inside an {@link attempt} run again after a pause, what `make()` gave in the attempt before it at the
 * same place (the `n`th call with `key` in this attempt: the `n`th call with it in the last one). For what a
 * redaction builds and adds to as it goes (an event's decided secrets, whose index is kept by the map: so an attempt
 * does not note and index 600,000 values again after each pause), and for answers that cost a pass over a huge text.
 * Outside an attempt: `make()`.
 */
export const again = <A>(key: unknown, make: () => A): A => {
  if (reruns === undefined) return make()
  const n = asked.get(key) ?? 0
  asked.set(key, n + 1)
  let list = reruns.made.get(key)
  if (list === undefined) reruns.made.set(key, list = [])
  if (n < list.length) return list[n] as A
  const v = make()
  list.push(v)
  return v
}

/**
 * `steps`' answer: run to its end at once outside an {@link attempt}; inside one, {@link NeedsWork} is thrown with
 * the steps, then `keep` given the answer, so that the next attempt finds it.
 */
export const stepped = <A>(steps: Steps<A>, keep: (a: A) => void): A => {
  if (attempts === 0) return finish(steps)
  throw new NeedsWork((function*() {
    keep(yield* steps)
  })())
}

/** A generator run to its end at once: its answer. */
export const finish = <A>(g: Steps<A>): A => {
  for (;;) {
    const r = g.next()
    if (r.done === true) return r.value
  }
}

/**
 * `f()` run so that a costly step on a huge text stops it with the work it needs ({@link NeedsWork}) rather than run
 * at once: `{ done: true, value }`, or `{ done: false, work }` (run `work`, pausing as it does, then attempt `f` again
 * with the same `runs`: what this attempt made with {@link again} is taken again). Any other exception passes through.
 */
export const attempt = <A>(f: () => A, runs: Reruns = new Reruns()): { readonly done: true; readonly value: A } | { readonly done: false; readonly work: Steps<void> } => {
  const outer = reruns
  const outerAsked = asked
  attempts++
  reruns = runs
  asked = new Map()
  try {
    return { done: true, value: f() }
  } catch (e) {
    if (e instanceof NeedsWork) return { done: false, work: e.steps }
    throw e
  } finally {
    attempts--
    reruns = outer
    asked = outerAsked
  }
}

/**
 * The answers kept of a step on huge texts, at most {@link KEPT} of them, by text (and whatever else the answer
 * depends on, compared by `same`): the last ones kept stay, the oldest go.
 */
export class Kept<K, A> {
  private readonly entries: Array<{ readonly text: string; readonly key: K; readonly value: A }> = []
  constructor(private readonly same: (a: K, b: K) => boolean) {}
  get(text: string, key: K): A | undefined {
    for (const e of this.entries) if (e.text === text && this.same(e.key, key)) return e.value
    return undefined
  }
  set(text: string, key: K, value: A): void {
    if (this.entries.length >= KEPT) this.entries.shift()
    this.entries.push({ text, key, value })
  }
}

/** The most answers a {@link Kept} holds (a huge text's redaction meets a few: the text, its view, its redaction). */
const KEPT = 8
