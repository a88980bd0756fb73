/**
 * Prefix bindings (src/layers/index/prefix.ts): whatever reads a stream makes
 * (from the start, or from a resume point before or after a verified prefix,
 * in steps of any size), the binding at any offset asked for is the sha256 of
 * the file's bytes up to it; verifyPrefix accepts exactly the unchanged prefix.
 * The bytes a binding needs beyond the stream's reads are read through
 * SourceAccess (its test double sees them).
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import { PrefixDigests, verifyPrefix } from "../../src/layers/index/prefix.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import type { SourceAccessShape } from "../../src/services/SourceAccess.js"
import { tempDir } from "../support/paths.js"
import { faultyAccess } from "../support/faulty-access.js"
import { unreadableOf } from "../../src/domain/unreadable.js"

const dir = tempDir()
let n = 0
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex")
const access = sourceAccessNode

describe("prefix bindings", () => {
  it.effect.prop(
    "the binding at any offset asked for is the sha256 of the bytes before it",
    [
      fc.uint8Array({ minLength: 1, maxLength: 5000 }),
      fc.option(fc.nat(), { nil: undefined }),
      fc.nat(),
      fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 30 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 8 })
    ],
    ([bytes, seedAt, from, steps, asks]) => Effect.gen(function*() {
      const file = path.join(dir, `f-${n++}`)
      fs.writeFileSync(file, bytes)
      const digests = new PrefixDigests(access)
      // A verified prefix seeds the digest; reads then start anywhere (before it: a resume re-reads its line).
      if (seedAt !== undefined) {
        const p = seedAt % (bytes.length + 1)
        const hash = yield* verifyPrefix(access, file, `${p}:${sha(bytes.subarray(0, p))}`)
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
      for (const o of offsets) expect(yield* digests.at("s", o)).toBe(`${o}:${sha(bytes.subarray(0, o))}`)
    }),
    { fastCheck: { numRuns: 300 } }
  )

  it.effect("verifyPrefix: unchanged prefix accepted (whatever follows); any changed byte, or a shorter file, refused", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "v")
      const bytes = Buffer.from("0123456789".repeat(300))
      fs.writeFileSync(file, bytes)
      const binding = `2000:${sha(bytes.subarray(0, 2000))}`
      expect(yield* verifyPrefix(access, file, binding)).not.toBeNull()
      fs.appendFileSync(file, "appended")
      expect(yield* verifyPrefix(access, file, binding)).not.toBeNull()
      for (const i of [0, 999, 1999]) {
        const changed = Buffer.from(bytes)
        changed[i] ^= 1
        fs.writeFileSync(file, changed)
        expect(yield* verifyPrefix(access, file, binding)).toBeNull()
      }
      fs.writeFileSync(file, bytes.subarray(0, 1999))
      expect(yield* verifyPrefix(access, file, binding)).toBeNull()
      expect(yield* verifyPrefix(access, file, "not a binding")).toBeNull()
    }))

  it.effect("the file is read through SourceAccess: its test double sees the reads, and a file it refuses verifies nothing", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "through-access")
      const bytes = Buffer.from("abcdefghij".repeat(100))
      fs.writeFileSync(file, bytes)
      const reads: Array<[number, number]> = []
      const recording: SourceAccessShape = {
        ...sourceAccessNode,
        open: (f) =>
          Effect.map(sourceAccessNode.open(f), (o) => ({
            ...o,
            read: (offset: number, length: number) => {
              reads.push([offset, length])
              return o.read(offset, length)
            }
          }))
      }
      const binding = `600:${sha(bytes.subarray(0, 600))}`
      expect(yield* verifyPrefix(recording, file, binding)).not.toBeNull()
      expect(reads).toEqual([[0, 600]])
      // A gap before the stream's first read is read through it too.
      const digests = new PrefixDigests(recording)
      digests.onRead({ sourceId: "s", path: file, offset: 700, bytes: bytes.subarray(700, 800) })
      reads.length = 0
      expect(yield* digests.at("s", 750)).toBe(`750:${sha(bytes.subarray(0, 750))}`)
      expect(reads).toEqual([[0, 700]])
      const refusing: SourceAccessShape = {
        ...sourceAccessNode,
        authorizeFile: (p) => sourceAccessNode.authorizeFile(p, [path.join(dir, "elsewhere")])
      }
      expect(yield* verifyPrefix(refusing, file, binding)).toBeNull()
      // A symlink in the file's place is not followed.
      const link = path.join(dir, "through-access-link")
      fs.symlinkSync(file, link)
      expect(yield* verifyPrefix(sourceAccessNode, link, binding)).toBeNull()
    }))

  it.effect("verifyPrefix: a file that cannot be read (permission, I/O error mid-prefix) fails, never reads as changed", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "unreadable")
      const bytes = Buffer.from("0123456789".repeat(300))
      fs.writeFileSync(file, bytes)
      const binding = `2000:${sha(bytes.subarray(0, 2000))}`
      for (const errno of ["EACCES", "EPERM", "EIO"] as const) {
        const denied = yield* Effect.flip(verifyPrefix(faultyAccess({ kind: "file", file, errno }), file, binding))
        expect(unreadableOf(denied)?.errno).toBe(errno)
      }
      // Mid-prefix: the bytes before the failure are fine, the read past them fails.
      const mid = yield* Effect.flip(verifyPrefix(faultyAccess({ kind: "mid-file", file, from: 1500, errno: "EIO" }), file, binding))
      expect(unreadableOf(mid)?.errno).toBe("EIO")
      // A failure past the prefix is not read at all: the prefix verifies.
      expect(yield* verifyPrefix(faultyAccess({ kind: "mid-file", file, from: 2500, errno: "EIO" }), file, binding)).not.toBeNull()
      // Its folder cannot be searched.
      const folder = yield* Effect.flip(verifyPrefix(faultyAccess({ kind: "folder", dir, errno: "EACCES" }), file, binding))
      expect(unreadableOf(folder)?.errno).toBe("EACCES")
      // A changed byte is still a change.
      const other = Buffer.from(bytes)
      other[10] = 0x41
      fs.writeFileSync(file, other)
      expect(yield* verifyPrefix(access, file, binding)).toBeNull()
    }))
})
