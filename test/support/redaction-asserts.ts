/** Assertions the redaction rule tests share (default rules). */
import { expect } from "@effect/vitest"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction

/** `text` redacted: the secret gone, what stays around it (`keep`) still there, and redacting again changes nothing. */
export const gone = (text: string, secret: string, ...keep: Array<string>) => {
  const out = r.text(text)
  expect(out, text).not.toContain(secret)
  expect(out, text).toContain("[REDACTED:")
  for (const k of keep) expect(out, text).toContain(k)
  expect(r.text(out), `idempotent: ${text}`).toBe(out)
  return out
}
/** `text` left exactly as it is. */
export const stays = (text: string) => expect(r.text(text), text).toBe(text)
/** Text held in a JSON string (its quotes escaped), without the string's own quotes. */
export const inString = (text: string) => JSON.stringify(text).slice(1, -1)
