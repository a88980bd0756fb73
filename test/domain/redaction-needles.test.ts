/**
 * The needle scanner behind the redaction's prefilter (src/domain/redaction/needles.ts):
 * for any string it finds exactly the needles `includes` finds, also when
 * characters outside ASCII share a low byte with a needle's characters, at
 * the string's ends, overlapping, and repeated; the needles found listed once
 * each; and the flagged characters (the view's, in the same pass) exactly
 * where a string holds one, not where a character merely shares a low byte.
 */
import { describe, expect, it } from "@effect/vitest"
import { needleScanner } from "../../src/domain/redaction/needles.js"

const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe("needle scanner", () => {
  it("finds exactly what includes finds, for random needles and strings", () => {
    const next = prng(42)
    const int = (n: number) => Math.floor(next() * n)
    const ascii = "ab-_@:/=AZ\\\n\u0000 "
    // characters whose low byte is one of the ASCII ones above (U+0161 ends like "a"), and astral ones
    const others = [...ascii].map((c) => String.fromCharCode(0x100 | c.charCodeAt(0))).concat(["é", "日", "😀", "\u2028"])
    for (let round = 0; round < 300; round++) {
      const needles = Array.from({ length: 1 + int(12) }, () => Array.from({ length: 1 + int(5) }, () => ascii[int(ascii.length)]).join(""))
      const scanner = needleScanner(needles)
      for (let j = 0; j < 40; j++) {
        const pool = next() < 0.5 ? [...ascii] : [...ascii, ...others, ...needles]
        const s = Array.from({ length: int(60) }, () => pool[int(pool.length)]).join("")
        const want = needles.map((n) => s.includes(n))
        expect(scanner.scan(s), JSON.stringify([needles, s])).toBe(want.some((x) => x))
        for (let i = 0; i < needles.length; i++) expect(scanner.has(i), JSON.stringify([needles[i], s])).toBe(want[i])
        const listed = Array.from({ length: scanner.foundCount() }, (_, j) => scanner.foundAt(j)).sort((a, b) => a - b)
        expect(listed, JSON.stringify([needles, s])).toEqual(needles.flatMap((_, i) => (want[i] ? [i] : [])))
        expect(scanner.flagged()).toBe(false)
      }
    }
  }, 60_000)

  it("flags the flagged characters in the same pass, whatever shares their low byte", () => {
    const next = prng(7)
    const int = (n: number) => Math.floor(next() * n)
    const flagged = "\x1b\x9b\u00ad\u200b\u2060\ufeff"
    // the flagged ones, and characters sharing a low byte with them (\v, ` and U+00FF with U+200B, U+2060, U+FEFF)
    const pool = [..."ab@\x0b`\u00ff\u011b\u1b1b\u0160x", ...flagged]
    for (let round = 0; round < 100; round++) {
      const needles = Array.from({ length: 1 + int(4) }, () => Array.from({ length: 1 + int(3) }, () => "ab@x"[int(4)]).join(""))
      const scanner = needleScanner(needles, flagged)
      for (let j = 0; j < 40; j++) {
        const s = Array.from({ length: int(30) }, () => pool[int(pool.length)]).join("")
        const want = needles.map((n) => s.includes(n))
        expect(scanner.scan(s), JSON.stringify([needles, s])).toBe(want.some((x) => x))
        for (let i = 0; i < needles.length; i++) expect(scanner.has(i)).toBe(want[i])
        expect(scanner.flagged(), JSON.stringify(s)).toBe([...flagged].some((c) => s.includes(c)))
      }
    }
  })

  it("answers about the last string scanned only; nothing before a scan", () => {
    const scanner = needleScanner(["ab", "@", "ab"])
    expect(scanner.has(0)).toBe(false)
    expect(scanner.scan("xxab")).toBe(true)
    expect([scanner.has(0), scanner.has(1), scanner.has(2)]).toEqual([true, false, true])
    expect(scanner.scan("a@b")).toBe(true)
    expect([scanner.has(0), scanner.has(1)]).toEqual([false, true])
    expect(scanner.scan("")).toBe(false)
    expect(scanner.has(1)).toBe(false)
    expect(scanner.scan("ab".repeat(50_000) + "\u0140")).toBe(true)
    expect(scanner.has(1)).toBe(false)
  })

  it("refuses an empty needle", () => {
    expect(() => needleScanner([""])).toThrow()
  })

  it("session 26: needles outside ASCII (a password's word in Russian, Japanese, Chinese) found exactly as includes finds them", () => {
    const next = prng(26)
    const int = (n: number) => Math.floor(next() * n)
    // Cyrillic, kana and Han letters, and characters sharing their low bytes (U+041F and U+001F, U+0430 and "0",
    // U+30D1 and U+00D1, U+5BC6 and U+00C6), ASCII ones, an astral one
    const chars = [..."\u041f\u0430\u0440\u043e\u001f0@\u00d1\u30d1\u30b9\u5bc6\u7801\u00c6\u0101ab :", "\u{1F600}"]
    for (let round = 0; round < 300; round++) {
      const needles = Array.from({ length: 1 + int(8) }, () => Array.from({ length: 1 + int(4) }, () => chars[int(chars.length)]).join(""))
      const scanner = needleScanner(needles)
      for (let j = 0; j < 40; j++) {
        const pool = [...chars, ...needles]
        const s = Array.from({ length: int(50) }, () => pool[int(pool.length)]).join("")
        const want = needles.map((n) => s.includes(n))
        expect(scanner.scan(s), JSON.stringify([needles, s])).toBe(want.some((x) => x))
        for (let i = 0; i < needles.length; i++) expect(scanner.has(i), JSON.stringify([needles[i], s])).toBe(want[i])
      }
    }
    const words = needleScanner(["\u0430\u0440\u043e\u043b\u044c", "\u30d1\u30b9\u30ef\u30fc\u30c9", "\u5bc6\u7801"])
    expect(words.scan("\u041f\u0430\u0440\u043e\u043b\u044c: x")).toBe(true)
    expect([words.has(0), words.has(1), words.has(2)]).toEqual([true, false, false])
    expect(words.scan("\u5bc6\u7801\u662f x")).toBe(true)
    expect([words.has(0), words.has(1), words.has(2)]).toEqual([false, false, true])
    // the same low bytes in other characters: no needle
    expect(words.scan("\u0130\u0140\u013e\u013b\u014c 0@>;L")).toBe(false)
  }, 60_000)
})
