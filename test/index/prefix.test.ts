/**
 * Prefix bindings (src/layers/index/prefix.ts): whatever reads a stream makes
 * (from the start, or from a resume point before or after a verified prefix,
 * in steps of any size), the binding at any offset asked for is the sha256 of
 * the file's bytes up to it; verifyPrefix accepts exactly the unchanged prefix.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { PrefixDigests, verifyPrefix } from "../../src/layers/index/prefix.js"
import { tempDir } from "../support/paths.js"

const dir = tempDir()
let n = 0
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex")

describe("prefix bindings", () => {
  it.prop(
    "the binding at any offset asked for is the sha256 of the bytes before it",
    [
      fc.uint8Array({ minLength: 1, maxLength: 5000 }),
      fc.option(fc.nat(), { nil: undefined }),
      fc.nat(),
      fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 30 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 8 })
    ],
    ([bytes, seedAt, from, steps, asks]) => {
      const file = path.join(dir, `f-${n++}`)
      fs.writeFileSync(file, bytes)
      const digests = new PrefixDigests()
      // A verified prefix seeds the digest; reads then start anywhere (before it: a resume re-reads its line).
      if (seedAt !== undefined) {
        const p = seedAt % (bytes.length + 1)
        const hash = verifyPrefix(file, `${p}:${sha(bytes.subarray(0, p))}`)
        expect(hash).not.toBeNull()
        digests.seed("s", file, p, hash!)
      }
      let at = from % (bytes.length + 1)
      if (seedAt === undefined && at >= bytes.length) return // never read: no binding to ask for
      for (const step of steps) {
        if (at >= bytes.length) break
        digests.onRead({ sourceId: "s", path: file, offset: at, bytes: bytes.subarray(at, at + step) })
        at += step
      }
      const read = Math.min(at, bytes.length)
      const offsets = [...new Set(asks.map((a) => a % (read + 1)))].sort((a, b) => a - b)
      for (const o of offsets) expect(digests.at("s", o)).toBe(`${o}:${sha(bytes.subarray(0, o))}`)
    },
    { fastCheck: { numRuns: 300 } }
  )

  it("verifyPrefix: unchanged prefix accepted (whatever follows); any changed byte, or a shorter file, refused", () => {
    const file = path.join(dir, "v")
    const bytes = Buffer.from("0123456789".repeat(300))
    fs.writeFileSync(file, bytes)
    const binding = `2000:${sha(bytes.subarray(0, 2000))}`
    expect(verifyPrefix(file, binding)).not.toBeNull()
    fs.appendFileSync(file, "appended")
    expect(verifyPrefix(file, binding)).not.toBeNull()
    for (const i of [0, 999, 1999]) {
      const changed = Buffer.from(bytes)
      changed[i] ^= 1
      fs.writeFileSync(file, changed)
      expect(verifyPrefix(file, binding)).toBeNull()
    }
    fs.writeFileSync(file, bytes.subarray(0, 1999))
    expect(verifyPrefix(file, binding)).toBeNull()
    expect(verifyPrefix(file, "not a binding")).toBeNull()
  })
})
