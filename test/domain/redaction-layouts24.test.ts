/**
 * tester24a F1: a tool call's input is redacted alike in every shareable output whatever layout the output gives
 * it: the Markdown document (`show --format markdown`) pretty-prints it over several lines, the NDJSON export, ATIF
 * and the replay carry it as one line of JSON (the event's `text`) and as a structured value (`toolInput`). What
 * the text rules catch in the one-line form (a value beside its name in another member, a docker `auth`) goes from
 * the structured value too, and the structured walk knows the names the text rules know (`pw`, an auth-named
 * `X-…-Auth` header in a header map).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { FIELD_MARK } from "../../src/domain/redaction/redact.js"
import { j, toolCallOutputs } from "../support/redaction-asserts.js"

const r = defaultRedaction
/** A docker config's `auth`: base64 of `user:password` (joined at run time: no scanner flags the file). */
const DOCKER_AUTH = Buffer.from(j("bob:", "Hunter2Reg99")).toString("base64")

/** Tool inputs, each with the values no output may show and words every output keeps. */
const CASES: ReadonlyArray<{ readonly input: unknown; readonly secrets: ReadonlyArray<string>; readonly keep: ReadonlyArray<string> }> = [
  {
    // tester24a C22: a header map's auth-named header and a body's `pw`
    input: { url: "https://api.x", headers: { "X-Custom-Auth": j("HdrCustomAuth", "8812abcdef") }, body: { login: "bob", pw: j("BodyPw", "8812xyz") } },
    secrets: [j("HdrCustomAuth", "8812abcdef"), j("BodyPw", "8812xyz")],
    keep: ["https://api.x", "X-Custom-Auth", "bob"]
  },
  {
    // only a text rule knows it (`docker-auth` reads `"auth": "<base64 of user:password>"`): no key names it
    input: { registry: "registry.example.com", auths: { "registry.example.com": { auth: DOCKER_AUTH } } },
    secrets: [DOCKER_AUTH],
    keep: ["registry.example.com"]
  },
  {
    // the same after 1100 characters: the event's `text` is cut before it (1000), its structured input is whole
    input: { notes: "a".repeat(1100), auths: { "r.example.org": { auth: DOCKER_AUTH } } },
    secrets: [DOCKER_AUTH],
    keep: ["r.example.org"]
  },
  {
    input: { accounts: [{ login: "carol", pw: j("Carol", "9911pw") }], config: { "X-Auth": j("Zq81Long", "HdrValue") } },
    secrets: [j("Carol", "9911pw"), j("Zq81Long", "HdrValue")],
    keep: ["carol", "X-Auth"]
  }
]

describe("a tool call's input in every shareable output (tester24a F1)", () => {
  it.effect("the Markdown, the NDJSON export, ATIF and the replay hide the same values", () =>
    Effect.gen(function*() {
      for (const c of CASES) {
        const outputs = yield* toolCallOutputs([c.input])
        for (const [name, out] of Object.entries(outputs)) {
          for (const s of c.secrets) expect(out, `${name}: ${JSON.stringify(c.input).slice(0, 80)}`).not.toContain(s)
          expect(out, name).toContain("[REDACTED:")
          for (const k of c.keep) expect(out, `${name} keeps ${k}`).toContain(k)
        }
      }
    }).pipe(Effect.provide(Redaction.layer)))

  it.effect("values that are no secrets stay in every output alike", () =>
    Effect.gen(function*() {
      const outputs = yield* toolCallOutputs([{ pw: "ok", home: { pw: "/srv/app" }, headers: { "X-Auth-User": "bob", "X-Custom-Auth": "true" } }])
      for (const [name, out] of Object.entries(outputs)) {
        expect(out, name).not.toContain("[REDACTED:")
        for (const k of ["ok", "/srv/app", "bob", "true"]) expect(out, `${name} keeps ${k}`).toContain(k)
      }
    }).pipe(Effect.provide(Redaction.layer)))
})

describe("secret-named keys of a structured value: the names the text rules know (tester24a F1)", () => {
  it("an auth-named `X-…` header in a header map goes when it looks like a secret", () => {
    const v = j("Hdr", "CustomAuth8812abcdef")
    expect(r.value({ headers: { "X-Custom-Auth": v } })).toEqual({ headers: { "X-Custom-Auth": FIELD_MARK } })
    expect(r.value({ headers: { "x-auth": v, "X-Client-Auth-V2": v } })).toEqual({ headers: { "x-auth": FIELD_MARK, "X-Client-Auth-V2": FIELD_MARK } })
    expect(r.value({ headers: { "X-Custom-Auth": "true", "X-Auth-User": "bob", "X-Author": "Ann99" } })).toEqual({
      headers: { "X-Custom-Auth": "true", "X-Auth-User": "bob", "X-Author": "Ann99" }
    })
  })

  it("`pw` alone as `pass` alone: a value with a letter and a digit, no path", () => {
    expect(r.value({ login: "bob", pw: j("BodyPw", "8812xyz") })).toEqual({ login: "bob", pw: FIELD_MARK })
    expect(r.value({ PW: "s3cretpw" })).toEqual({ PW: FIELD_MARK })
    expect(r.value({ pw: "ok", Pw: "/srv/app1" })).toEqual({ pw: "ok", Pw: "/srv/app1" })
  })

  it("`passwd` and an `X-…-Auth` header given as a pair", () => {
    expect(r.value({ user: "bob", passwd: "hunter" })).toEqual({ user: "bob", passwd: FIELD_MARK })
    expect(r.value([["X-Custom-Auth", j("Zq81Long", "HdrValue")]])).toEqual([["X-Custom-Auth", "[REDACTED:secret-pair]"]])
  })
})
