/**
 * A config file written by Windows tools (Notepad, PowerShell `Out-File
 * -Encoding utf8`) starts with a UTF-8 byte order mark (EF BB BF). JSON
 * (RFC 8259 §8.1) lets a parser ignore it; the config file reads the same
 * with it as without (found by a fresh user: "Unexpected token '﻿'", the
 * mark invisible in the message). A mark anywhere else is not skipped.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { loadConfig } from "../src/cli/config.js"
import { tempDir } from "./support/paths.js"

const write = (text: string | Buffer) => {
  const file = nodePath.join(tempDir("si-config-bom-"), "config.json")
  fs.writeFileSync(file, text)
  return file
}

describe("a config file that starts with a UTF-8 byte order mark", () => {
  it.effect("reads as the same file without it", () =>
    Effect.gen(function*() {
      const json = JSON.stringify({ index: "/tmp/x/index.db", claudeRoot: "/tmp/x/claude" })
      const plain = yield* loadConfig(write(json))
      const marked = yield* loadConfig(write(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)])))
      expect(marked).toEqual(plain)
      expect(marked.index).toBe("/tmp/x/index.db")
    }))

  it.effect("a mark after the start is no white space: still not valid JSON", () =>
    Effect.gen(function*() {
      const r = yield* Effect.either(loadConfig(write(`{"index": "/tmp/x/i.db"}\ufeff`)))
      expect(Either.isLeft(r)).toBe(true)
    }))
})
