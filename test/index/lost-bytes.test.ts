/**
 * `lostBytes` (`src/layers/index/emptied.ts`): what a changed source's file
 * holds where it held what was imported. A NUL run that begins in the
 * imported part and runs to the file's end (any length), is at least
 * `ZEROED_RUN` (512) bytes, or begins at a sector's start (a multiple of 512,
 * any length) is `zeroed`; NUL bytes only past the imported part, or a
 * shorter run begun elsewhere with other bytes after it, are not damage (a
 * change); a file of nothing but NUL bytes and white space is `nothing`.
 * Runs across the 1 MiB read steps are told as in one read.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { lostBytes, ZEROED_RUN } from "../../src/layers/index/emptied.js"
import * as SourceAccessNode from "../../src/layers/SourceAccessNode.js"
import { SourceAccess } from "../../src/services/SourceAccess.js"
import { tempDir } from "../support/paths.js"

const MiB = 1024 * 1024
const text = (n: number) => Buffer.alloc(n, "{\"a\":1}\n")
const nul = (n: number) => Buffer.alloc(n)

const lost = (bytes: Buffer, imported: number) =>
  Effect.gen(function*() {
    const file = path.join(tempDir("si-lost-"), "s.jsonl")
    fs.writeFileSync(file, bytes)
    return yield* lostBytes(yield* SourceAccess, file, imported)
  }).pipe(Effect.provide(SourceAccessNode.layer))

describe("lostBytes", () => {
  it.effect("a zeroed tail, any length, begun in the imported part", () =>
    Effect.gen(function*() {
      expect(yield* lost(Buffer.concat([text(1000), nul(3)]), 1003)).toEqual({ _tag: "zeroed", size: 1003, from: 1000, length: 3 })
      expect(yield* lost(Buffer.concat([text(1000), nul(3)]), 1001)).toEqual({ _tag: "zeroed", size: 1003, from: 1000, length: 3 })
      // Begun past the imported part: the imported part did not change there.
      expect(yield* lost(Buffer.concat([text(1000), nul(3)]), 1000)).toBeUndefined()
    }))

  it.effect("a run in the middle: zeroed from ZEROED_RUN bytes, a change below", () =>
    Effect.gen(function*() {
      const middle = (n: number) => Buffer.concat([text(2000), nul(n), text(2000)])
      expect(yield* lost(middle(ZEROED_RUN), 4000 + ZEROED_RUN)).toEqual({ _tag: "zeroed", size: 4000 + ZEROED_RUN, from: 2000, length: ZEROED_RUN })
      expect(yield* lost(middle(ZEROED_RUN - 1), 4000 + ZEROED_RUN)).toBeUndefined()
      // Begun in the imported part, going on past it: its whole length counts.
      expect(yield* lost(middle(ZEROED_RUN), 2001)).toEqual({ _tag: "zeroed", size: 4000 + ZEROED_RUN, from: 2000, length: ZEROED_RUN })
    }))

  it.effect("a short run begun at a sector's start, content after it: zeroed (a cut last block the writer appended to)", () =>
    Effect.gen(function*() {
      // Bytes [0, 1024) text, then 100 NUL bytes from byte 1024 (two sectors in), then text appended.
      const appended = Buffer.concat([text(2 * ZEROED_RUN), nul(100), text(300)])
      expect(yield* lost(appended, 2 * ZEROED_RUN + 1)).toEqual({ _tag: "zeroed", size: 2 * ZEROED_RUN + 400, from: 2 * ZEROED_RUN, length: 100 })
      // One NUL byte at a sector's start is as much a lost block's first byte.
      const one = Buffer.concat([text(3 * ZEROED_RUN), nul(1), text(10)])
      expect(yield* lost(one, one.length)).toEqual({ _tag: "zeroed", size: 3 * ZEROED_RUN + 11, from: 3 * ZEROED_RUN, length: 1 })
      // The same run one byte off a sector's start: a change.
      const off = Buffer.concat([text(2 * ZEROED_RUN + 1), nul(100), text(300)])
      expect(yield* lost(off, off.length)).toBeUndefined()
      // Across a 1 MiB read step (a sector's start), and past the imported part: not the imported part.
      const across = Buffer.concat([text(MiB), nul(50), text(10)])
      expect(yield* lost(across, across.length)).toEqual({ _tag: "zeroed", size: MiB + 60, from: MiB, length: 50 })
      expect(yield* lost(across, MiB)).toBeUndefined()
    }))

  it.effect("runs across the 1 MiB read steps, and many short runs before a long one", () =>
    Effect.gen(function*() {
      const across = Buffer.concat([text(MiB - 100), nul(600), text(5000)])
      expect(yield* lost(across, across.length)).toEqual({ _tag: "zeroed", size: across.length, from: MiB - 100, length: 600 })
      const short = Buffer.concat([text(MiB - 100), nul(300), text(5000)])
      expect(yield* lost(short, short.length)).toBeUndefined()
      const shortThenLong = Buffer.concat([...Array.from({ length: 50 }, () => Buffer.concat([text(900), nul(7)])), nul(ZEROED_RUN), text(100)])
      expect(yield* lost(shortThenLong, shortThenLong.length)).toEqual({ _tag: "zeroed", size: shortThenLong.length, from: 49 * 907 + 900, length: ZEROED_RUN + 7 })
    }))

  it.effect("nothing: empty, all NUL, NUL and white space; a file with no NUL byte: undefined", () =>
    Effect.gen(function*() {
      expect(yield* lost(Buffer.alloc(0), 10)).toEqual({ _tag: "nothing", size: 0 })
      expect(yield* lost(nul(2 * MiB + 5), 10)).toEqual({ _tag: "nothing", size: 2 * MiB + 5 })
      expect(yield* lost(Buffer.from("\n \0\t\r\n"), 3)).toEqual({ _tag: "nothing", size: 6 })
      expect(yield* lost(text(3 * MiB), Infinity)).toBeUndefined()
    }))
})
