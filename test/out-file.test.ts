/**
 * `export --out FILE` writes a new file whole or not at all
 * (src/cli/out-file.ts): a failure of the data, or an interruption (Ctrl-C)
 * while it is written, leaves nothing at the path nor beside it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { writeNewFile } from "../src/cli/out-file.js"
import { tempDir } from "./support/paths.js"

const chunk = Buffer.alloc(64 * 1024, 0x61)

describe("writeNewFile", () => {
  it.effect("writes the bytes, and leaves only the file", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "t.json")
      yield* writeNewFile(out, Stream.make(chunk, chunk))
      expect(fs.readdirSync(dir)).toEqual(["t.json"])
      expect(fs.statSync(out).size).toBe(2 * chunk.length)
    }))

  it.live("interrupted while writing (Ctrl-C): nothing is left", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "t.json")
      const fiber = yield* Effect.fork(writeNewFile(out, Stream.concat(Stream.make(chunk), Stream.never)))
      // Wait until the first bytes are in the temporary file.
      while (!fs.readdirSync(dir).some((n) => fs.statSync(path.join(dir, n)).size > 0)) yield* Effect.sleep("5 millis")
      yield* Fiber.interrupt(fiber)
      expect(fs.readdirSync(dir)).toEqual([])
    }))

  it.effect("the data failing midway: its error, and nothing is left", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "t.json")
      const e = yield* Effect.flip(writeNewFile(out, Stream.concat(Stream.make(chunk), Stream.fail("boom" as const))))
      expect(e).toBe("boom")
      expect(fs.readdirSync(dir)).toEqual([])
    }))

  it.effect("a file that appears at the path while writing is never replaced", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "t.json")
      const late = Stream.fromEffect(Effect.sync(() => {
        fs.writeFileSync(out, "someone else's\n")
        return chunk
      }))
      const e = yield* Effect.flip(writeNewFile(out, late))
      expect(e).toMatchObject({ code: "INVALID_ARGUMENT" })
      expect(fs.readFileSync(out, "utf8")).toBe("someone else's\n")
      expect(fs.readdirSync(dir)).toEqual(["t.json"])
    }))
})
