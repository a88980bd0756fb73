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
import * as Sink from "effect/Sink"
import { newFileSink, writeNewFile } from "../src/cli/out-file.js"
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

describe("newFileSink", () => {
  it.effect("is a Sink of bytes: a stream run into it is the file, whole", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "s.ndjson")
      const sink: Sink.Sink<void, Uint8Array, never, unknown> = newFileSink(out)
      yield* Stream.run(Stream.make(chunk, Buffer.from("z\n")), sink)
      expect(fs.readdirSync(dir)).toEqual(["s.ndjson"])
      expect(fs.statSync(out).size).toBe(chunk.length + 2)
    }))

  it.effect("refuses a file that exists before a byte is taken, and leaves it as it was", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "s.ndjson")
      fs.writeFileSync(out, "mine\n")
      let pulled = 0
      const counted = Stream.make(chunk).pipe(Stream.tap(() => Effect.sync(() => pulled++)))
      const e = yield* Effect.flip(Stream.run(counted, newFileSink(out)))
      expect(e).toMatchObject({ _tag: "InvalidArgument", code: "INVALID_ARGUMENT" })
      expect(pulled).toBe(0)
      expect(fs.readFileSync(out, "utf8")).toBe("mine\n")
      expect(fs.readdirSync(dir)).toEqual(["s.ndjson"])
    }))

  it.effect("an existing folder (tester23c F6): refused, the message says it is a folder and --out takes a file path", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      for (const out of [dir, `${dir}/`]) {
        const e = yield* Effect.flip(Stream.run(Stream.make(chunk), newFileSink(out)))
        expect(e).toMatchObject({ _tag: "InvalidArgument", code: "INVALID_ARGUMENT" })
        expect(e.message).toBe(`${out} is a folder; --out takes a file path (a new file), not a folder.`)
        expect(e.remediation).toBe(`Pass --out with the path of a new file, e.g. ${path.join(out, "<file name>")}.`)
        expect(fs.readdirSync(dir)).toEqual([])
      }
    }))

  it.effect("a stream that fails midway: its error, and nothing is left", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const e = yield* Effect.flip(Stream.run(Stream.concat(Stream.make(chunk), Stream.fail("boom" as const)), newFileSink(path.join(dir, "s"))))
      expect(e).toBe("boom")
      expect(fs.readdirSync(dir)).toEqual([])
    }))

  it.effect("a folder that does not exist: OUTPUT_WRITE_FAILED with the errno and the path", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const out = path.join(dir, "no", "s")
      const e = yield* Effect.flip(Stream.run(Stream.make(chunk), newFileSink(out)))
      expect(e).toMatchObject({ code: "OUTPUT_WRITE_FAILED", details: { path: out, code: "ENOENT" } })
      expect(fs.readdirSync(dir)).toEqual([])
    }))
})
