/**
 * Session 23 (tester23c F1): a whole key at a line's end took the next line's first word into its marker when that
 * word was made of the key's characters: `GITHUB_TOKEN=ghp_…` then `AWS_DEFAULT_REGION=us-east-1` became
 * `GITHUB_TOKEN=[REDACTED:github-token]_DEFAULT_REGION=us-east-1`; in a `.env` dump, `OPENAI_API_KEY=sk-…` then
 * `ANTHROPIC_API_KEY=…` lost the name and the line break. A line that starts a statement of its own (a name then `=`
 * or `:`, `export NAME=`, or a key of another prefixed rule) is no key's rest: the key goes alone and the next line
 * stays, its break with it. Wrapped keys whose rest is base64-like characters keep going whole
 * (redaction-wrapped20/23 tests).
 */
import { describe, expect, it } from "@effect/vitest"
import { titleOf } from "../../src/domain/muse-agents/summary.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { inString, j } from "../support/redaction-asserts.js"

const r = defaultRedaction
const GH = marker("github-token")
const OA = marker("openai-key")
const GHP = j("gh", "p_R8f2Kq9LmN3pX7vT1wY5zA6bC4dE0gH2jS9u")
const OPENAI = j("sk-", "proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12Wx34Yz56T3BlbkFJab12cd34ef56")

describe("session 23 (tester23c F1): the line after a whole key that starts a statement stays", () => {
  it("the tester's .env texts: the next line's name and the line break stay", () => {
    expect(r.text(`GITHUB_TOKEN=${GHP}\nAWS_DEFAULT_REGION=us-east-1`)).toBe(`GITHUB_TOKEN=${GH}\nAWS_DEFAULT_REGION=us-east-1`)
    expect(r.text(`GITHUB_TOKEN=${GHP}\nSENTRY_ENVIRONMENT_NAME=prod`)).toBe(`GITHUB_TOKEN=${GH}\nSENTRY_ENVIRONMENT_NAME=prod`)
    const out = r.text(`OPENAI_API_KEY=${OPENAI}\nANTHROPIC_API_KEY=changeme`)
    expect(out.startsWith(`OPENAI_API_KEY=${OA}\nANTHROPIC_API_KEY=`), out).toBe(true)
    expect(out).not.toContain("changeme")
  })

  it("YAML, shell assignments, a log line, CRLF and JSON text after the key", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`token: ${GHP}\nAWS_REGION_NAME_LONG: eu-west-1`, `token: ${GH}\nAWS_REGION_NAME_LONG: eu-west-1`],
      [`  token: ${GHP}\n  SOME_OTHER_SETTING_1: yes`, `  token: ${GH}\n  SOME_OTHER_SETTING_1: yes`],
      [`export GITHUB_TOKEN=${GHP}\nexport AWS_DEFAULT_REGION=us-east-1`, `export GITHUB_TOKEN=${GH}\nexport AWS_DEFAULT_REGION=us-east-1`],
      [`GITHUB_TOKEN=${GHP}\nDEFAULT_REGION_2 = us-east-1`, `GITHUB_TOKEN=${GH}\nDEFAULT_REGION_2 = us-east-1`],
      [`GITHUB_TOKEN=${GHP}\r\nAWS_DEFAULT_REGION=us-east-1\r\n`, `GITHUB_TOKEN=${GH}\r\nAWS_DEFAULT_REGION=us-east-1\r\n`],
      [`token ${GHP}\n2026-11-20T10:00:01 INFO started`, `token ${GH}\n2026-11-20T10:00:01 INFO started`]
    ]
    for (const [text, want] of cases) {
      expect(r.text(text), text).toBe(want)
      expect(r.text(inString(text)), `JSON: ${text}`).toBe(inString(want))
    }
  })

  it("a key of another prefixed rule on the next line is a key of its own", () => {
    const out = r.text(`OPENAI_API_KEY=${OPENAI}\n${GHP}`)
    expect(out).toBe(`OPENAI_API_KEY=${OA}\n${GH}`)
  })

  it("in a title (white space made one space): the next assignment stays", () => {
    const t = titleOf(`use ${GHP.slice(0, 20)}\n${GHP.slice(20)}\nAWS_DEFAULT_REGION=us-east-1 please`)
    expect(t).toBeDefined()
    const out = r.title(t!)
    expect(out).not.toContain(GHP.slice(0, 20))
    expect(out).not.toContain(GHP.slice(20))
    expect(out.startsWith(`use ${GH} AWS_DEFAULT_REGION=us-east-1`), out).toBe(true)
  })

  it("still: a wrapped key whose last line is followed by text goes whole, what follows stays", () => {
    expect(r.text(`${GHP.slice(0, 22)}\n${GHP.slice(22)} && make`)).toBe(`${GH} && make`)
    expect(r.text(`T=${GHP.slice(0, 22)}\n${GHP.slice(22)}\nAWS_DEFAULT_REGION=us-east-1`)).toBe(`T=${GH}\nAWS_DEFAULT_REGION=us-east-1`)
  })
})
