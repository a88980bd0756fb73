/** The session redactor run at once and run a pause at a time, as the tests of `src/domain/redaction/pausable.ts` compare them. */
import { sessionRedactor } from "../../src/domain/redaction/redact.js"
import { builtinRules } from "../../src/domain/redaction/rules.js"
import { attempt, Reruns } from "../../src/domain/redaction/pausable.js"
import { defaultRedaction, makeRedaction } from "../../src/services/Redaction.js"
import { sessionEvent as ev } from "./redaction-asserts.js"

/**
 * A session of a user's `prompt` (event 1) and an assistant's `said` (event 2), whose title is the prompt's first 79
 * characters and an ellipsis, redacted twice (tester33a F7): `want`, what {@link defaultRedaction}'s session redactor
 * answers at once (the two events redacted, the known secrets, the title); `got`, the same asked of a fresh redaction
 * of the built-in rules (nothing kept from the first), each call attempted with its own `Reruns` and its work run a
 * pause at a time until an attempt is done. `pauses`: the pauses taken; `attempts`: the attempts made.
 */
export const redactedAtOnceAndPaused = (prompt: string, said: string) => {
  const e = ev(1, { kind: "message", role: "user", text: prompt })
  const s = ev(2, { kind: "message", role: "assistant", text: said })
  const title = prompt.slice(0, 79) + "\u2026"

  const once = sessionRedactor(defaultRedaction)
  once.see(e)
  once.see(s)
  const want = { events: [once.event(e), once.event(s)], known: [...once.known], title: defaultRedaction.title(title, once.known, prompt) }

  const r = makeRedaction(builtinRules, defaultRedaction.ids)
  let pauses = 0
  let attempts = 0
  const run = <A>(f: () => A): A => {
    const runs = new Reruns()
    for (;;) {
      attempts++
      const a = attempt(f, runs)
      if (a.done) return a.value
      while (a.work.next().done !== true) pauses++
    }
  }
  const sr = sessionRedactor(r)
  run(() => sr.see(e))
  run(() => sr.see(s))
  const got = { events: [run(() => sr.event(e)), run(() => sr.event(s))], known: [...sr.known], title: run(() => r.title(title, sr.known, prompt)) }
  return { want, got, pauses, attempts }
}
