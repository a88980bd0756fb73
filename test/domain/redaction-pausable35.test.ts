/**
 * tester33a F7, tester34c F3 (session 35): what still ran whole between two pauses of a huge text's redaction (session
 * 34's `./pausable.ts`) pauses too, and an attempt run again after a pause does not do again what the one before did:
 * - the values the rules caught in the text (`caughtSteps`: a pause every 65,536 markers), kept by text;
 * - the index of an event's decided secrets (`indexOf`: a pause every 32,768 entries), the decided map being the same
 *   map from one attempt to the next (`again`: the redaction adds the same entries to it in the same order);
 * - the union of the rules' redaction and the secrets' places (`unionHidden`: a pause every 65,536 kept texts).
 * The answer is the one the redaction gives at once, byte for byte: a prompt of tester33a's shape (`user<i> pass
 * Zx<i>qW! mysql -pS3cr<i> `, 80,000 times: 3.7 MB, 80,000 caught values, matches standing across the edges of every
 * rule's stretches), its event, the session's known secrets, a restating event and the title cut from the prompt.
 */
import { describe, expect, it } from "vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { HUGE } from "../../src/domain/redaction/pausable.js"
import { redactedAtOnceAndPaused } from "../support/pausable-redaction.js"

const N = 80_000
const parts: Array<string> = []
for (let i = 0; i < N; i++) parts.push(`user${i} pass Zx${String(i).padStart(5, "0")}qW! mysql -pS3cr${String(i).padStart(5, "0")} `)
const prompt = "Fix the Deploy: password is Zx0001qWpA1 and token " + parts.join("")

describe("a huge text full of caught values: redacted a pause at a time, each attempt taking up the last one's work (tester33a F7)", () => {
  it("answers what the redaction answers at once, and pauses in each of its long steps", () => {
    expect(prompt.length).toBeGreaterThan(12 * HUGE)
    // at once, and by a fresh redaction (nothing kept from the run at once); each call attempted, with the same
    // `Reruns`, until done
    const { want, got, pauses, attempts } = redactedAtOnceAndPaused(prompt, "I used Zx00417qW! and S3cr79999 there, not Zx99999qW!.")
    // (booleans and counts first: a failure does not print megabytes)
    expect(got.events[0].text === want.events[0].text).toBe(true)
    expect(got.known.length).toBe(want.known.length)
    expect(got).toEqual(want)
    expect(got.events[1].text?.includes("S3cr79999")).toBe(false)
    expect(got.events[0].text?.includes("S3cr00417 ")).toBe(false)
    expect(got.events[1].text?.includes(marker("cli-password"))).toBe(true)
    // 80,000 caught values (the `mysql -p` passwords): pauses in the catching (every 65,536), the index (every 32,768), the union
    expect(want.known.length).toBeGreaterThan(2 * (1 << 15))
    expect(pauses).toBeGreaterThan(20)
    expect(attempts).toBeLessThan(pauses)
  }, 300_000)
})
