/**
 * tester33a F6: a key cut by a shell's line continuation in a first prompt (`export GITHUB_TOKEN=ghp_…\` then the
 * key's rest on the next line) is hidden in the prompt (`wrapped-key`, docs/redaction.md "Line continuations"), but
 * its title (`titleOf`: each white space run one space) read `ghp_…\ rest`, where no rule sees a continuation: the
 * title kept the key's tail, or the whole key in two pieces. A title is redacted as its first prompt is.
 */
import { describe, expect, it } from "@effect/vitest"
import { titleOf } from "../../src/domain/muse-agents/summary.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
const GH = marker("github-token")
/** A 40-character GitHub token (`ghp_` and 36), cut after its 24th character. */
const TOKEN = "ghp_" + "A1bCdEfGhIjKlMnOpQrStUvWxYz0123456789".slice(0, 36)
const HEAD = TOKEN.slice(0, 24)
const TAIL = TOKEN.slice(24)

describe("tester33a F6: a title is redacted as its first prompt is across a shell's line continuation", () => {
  const cases = [
    { prompt: `export GITHUB_TOKEN=${HEAD}\\\n${TAIL}`, want: `export GITHUB_TOKEN=${GH}` },
    { prompt: `run it\nexport X=${HEAD}\\\n${TAIL} done`, want: `run it export X=${GH} done` }
  ]
  for (const { prompt, want } of cases) {
    it(JSON.stringify(prompt), () => {
      // the prompt itself: the whole key is its rule's marker (the continuation goes with it)
      expect(r.text(prompt)).not.toContain(TAIL)
      const title = titleOf(prompt)
      expect(title).toContain(`${HEAD}\\ ${TAIL}`)
      const red = r.title(title)
      expect(red).toBe(want)
      expect(red).not.toContain(TAIL)
      expect(red).not.toContain(HEAD.slice(4))
    })
  }

  it("a title cut short (80 characters) after the key, and one cut inside the key's rest", () => {
    const after = titleOf(`run: export GITHUB_TOKEN=${HEAD}\\\n${TAIL} and then deploy the billing service to production now`)
    expect(after).toBe(`run: export GITHUB_TOKEN=${HEAD}\\ ${TAIL} and then de\u2026`)
    // redacted before the ellipsis, then the last word the cut may have left of a secret goes (`redactClipped`)
    expect(r.title(after)).toBe(`run: export GITHUB_TOKEN=${GH} and then\u2026`)
    const inside = titleOf(`please run this now: export GITHUB_TOKEN=${HEAD}\\\n${TAIL} and then deploy`)
    expect(inside).toBe(`please run this now: export GITHUB_TOKEN=${HEAD}\\ ${TAIL.slice(0, 12)}\u2026`)
    const red = r.title(inside)
    expect(red).not.toContain(TAIL.slice(0, 12))
    expect(red).not.toContain(HEAD.slice(4))
    expect(red.startsWith("please run this now: export GITHUB_TOKEN=")).toBe(true)
  })

  it("a backslash and a space that are no continuation keep their words, and no line break is left in a title", () => {
    const title = titleOf("open C:\\ drive and my\\ file.txt please")
    expect(r.title(title)).toBe("open C:\\ drive and my\\ file.txt please")
  })
})
