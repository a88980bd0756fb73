/**
 * tester33a F7: a first prompt of 300,000 caught passwords (`user<i> pass Zx<i>qW! mysql -pS3cr<i>`) made a listing
 * and a replay run for minutes. The known secrets' index kept, under each prefix of {@link PREFIX} characters, a list
 * of the secrets that start with it, and compared every one of them at each place the prefix stands in a text:
 * `S3cr00000` ... `S3cr09999` share `S3cr00` ... `S3cr09` by the thousand, so restating was quadratic in them. The index
 * now looks a place up once per distinct length of the forms under its prefix. Measured by the work counter
 * `restateWork.lookups` (forms looked up or compared at a place), never by time.
 */
import { describe, expect, it } from "vitest"
import { restateText, restateWork } from "../../src/domain/redaction/redact.js"
import { marker } from "../../src/domain/redaction/rules.js"

/** `n` secrets `S3cr00000`, `S3cr00001`, ...: a thousand share each first six characters. */
const secrets = (n: number): Array<string> => Array.from({ length: n }, (_, i) => `S3cr${String(i).padStart(5, "0")}`)

describe("redaction 33 (F7): known secrets sharing a prefix are found in time linear in the text", () => {
  it("restateText of 2,000 and 8,000 secrets of one prefix family: each hidden, lookups a few per place", () => {
    const work: Array<number> = []
    for (const n of [2000, 8000]) {
      const all = secrets(n)
      const known = new Map(all.map((s, i) => [s, marker(`k${i % 5}`)] as const))
      // each secret as a token, and once inside a word (not a token: it stays)
      const text = all.map((s) => `pw ${s} ; in${s}x`).join("\n")
      const before = restateWork.lookups
      const got = restateText(text, known)
      work.push(restateWork.lookups - before)
      const lines = got.split("\n")
      all.forEach((s, i) => expect(lines[i]).toBe(`pw ${marker(`k${i % 5}`)} ; in${s}x`))
      // the prefix stands at 2n places, one length of form under it: 2n lookups (a list per prefix compared
      // 1,000 secrets at each: 2n x 1,000)
      expect(restateWork.lookups - before).toBeLessThanOrEqual(2 * n)
    }
    // four times the secrets and the text: four times the work (the list did sixteen)
    expect(work[1] / work[0]).toBeLessThanOrEqual(4)
  })

  it("forms of several lengths under one prefix, a secret inside a longer one: the map's order decides as before", () => {
    const known = new Map<string, string>([
      ["Pw1234", marker("a")],
      ["Pw1234!", marker("b")],
      ["Pw1234!x9", marker("c")],
      ...secrets(20).map((s) => [s, marker("d")] as const)
    ])
    expect(restateText("say Pw1234 and Pw1234! and Pw1234!x9 and S3cr00007.", known)).toBe(
      `say ${marker("a")} and ${marker("a")}! and ${marker("a")}!x9 and ${marker("d")}.`
    )
  })
})
