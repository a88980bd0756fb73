/**
 * The reads of an open source (`SourceAccessNode`): after a full read, the
 * next step of the same size is read ahead (bench figure (a): a stream no
 * longer waits for each read). What a caller reads is still the file's bytes
 * at the range it asked for, in any order, and the descriptor is closed with
 * the scope, once a read ahead still in flight has finished.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as SourceAccessNode from "../src/layers/SourceAccessNode.js"
import { tempDir } from "./support/paths.js"

const root = tempDir()
const STEP = 64 * 1024
const file = path.join(root, "log.jsonl")
/** 4 full steps and a short one, each byte telling its offset apart from its neighbours'. */
const bytes = Buffer.alloc(4 * STEP + 123)
for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 16)) & 0xff
fs.writeFileSync(file, bytes)

const openFds = (): number => fs.readdirSync("/proc/self/fd").length

/** The live layer's service itself: these tests need the real clock (`it.live`). */
const access = SourceAccessNode.sourceAccessNode

describe("SourceAccess (Node): reads ahead", () => {
  it.scopedLive("reads in order, out of order and past the end give the file's bytes at the range asked for", () =>
    Effect.gen(function*() {
      const src = yield* access.open(yield* access.authorizeFile(file, [root]))
      const read = (offset: number, length: number) => Effect.map(src.read(offset, length), (b) => Buffer.from(b))
      expect(yield* read(0, 16)).toEqual(bytes.subarray(0, 16))
      expect(yield* read(0, STEP)).toEqual(bytes.subarray(0, STEP))
      // The next step, read ahead.
      expect(yield* read(STEP, STEP)).toEqual(bytes.subarray(STEP, 2 * STEP))
      // Another range while the step after is read ahead, then that step, then one of another size.
      expect(yield* read(3 * STEP, STEP)).toEqual(bytes.subarray(3 * STEP, 4 * STEP))
      expect(yield* read(2 * STEP, STEP)).toEqual(bytes.subarray(2 * STEP, 3 * STEP))
      expect(yield* read(100, 1000)).toEqual(bytes.subarray(100, 1100))
      yield* Effect.sleep(20)
      expect(yield* read(3 * STEP, STEP)).toEqual(bytes.subarray(3 * STEP, 4 * STEP))
      // The short last step, then nothing.
      expect(yield* read(4 * STEP, STEP)).toEqual(bytes.subarray(4 * STEP))
      expect((yield* read(4 * STEP + 123, STEP)).length).toBe(0)
    }))

  it.live("the descriptor is closed with the scope, also when a read ahead was in flight", () =>
    Effect.gen(function*() {
      const authorized = yield* access.authorizeFile(file, [root])
      const before = openFds()
      yield* Effect.scoped(Effect.gen(function*() {
        const src = yield* access.open(authorized)
        yield* src.read(0, 16)
        // A full step: the next one is read ahead, and the scope closes at once.
        yield* src.read(0, STEP)
        expect(openFds()).toBe(before + 1)
      }))
      let after = openFds()
      for (let i = 0; i < 100 && after !== before; i++) {
        yield* Effect.sleep(10)
        after = openFds()
      }
      expect(after).toBe(before)
    }))
})
