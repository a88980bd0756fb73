/**
 * tester36a F2: a Muse Code record that fails the schema is told in one bounded line, its real problem first.
 * Before, the message stated every issue's value whole (`events.0.envelope: Expected null, actual {<the record,
 * a 2 MB payload included>}`), the union's branches that do not apply first: a 2 MB error line, printed on each
 * import and kept in the index. DESIGN.md "Errors": one line that names the problem.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { decodeExport } from "../../src/domain/muse-code/export.js"
import { mapRecordEnvelope } from "../../src/domain/muse-code/records.js"
import { clipped, ISSUE_MAX_CHARS, schemaIssues } from "../../src/domain/schema-issues.js"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const orderly = () => JSON.parse(fs.readFileSync(path.join("fixtures", "muse-code", "export", "orderly.json"), "utf8"))
const decode = (doc: unknown) =>
  decodeExport(new TextEncoder().encode(JSON.stringify(doc)), { sourceId: "sha256:x", digest: "d", maxDepth: 64 })
// a payload string far past any message bound, of a letter no message writes 200 times in a row
const BLOB = "Z".repeat(2_000_000)

describe("clipped", () => {
  it("keeps a short text, makes white space one space, and cuts a long one to ISSUE_MAX_CHARS with the count cut", () => {
    expect(clipped("Expected a number,\n  actual \"x\"")).toBe("Expected a number, actual \"x\"")
    const long = "a".repeat(ISSUE_MAX_CHARS + 40)
    expect(clipped(long)).toBe(`${"a".repeat(ISSUE_MAX_CHARS)}... (40 more characters)`)
    expect(clipped("b".repeat(ISSUE_MAX_CHARS))).toBe("b".repeat(ISSUE_MAX_CHARS))
  })
})

describe("schemaIssues", () => {
  it("names the deepest issue first, each clipped, at most 3", () => {
    const S = Schema.Union(
      Schema.Struct({ kind: Schema.Literal("a"), inner: Schema.Struct({ n: Schema.NonNegative }) }),
      Schema.Struct({ kind: Schema.Literal("b"), inner: Schema.Null })
    )
    const r = Schema.decodeUnknownEither(S)({ kind: "a", inner: { n: -1, blob: BLOB } })
    if (Either.isRight(r)) throw new Error("decoded")
    const told = schemaIssues(r.left)
    expect(told.startsWith("inner.n: ")).toBe(true)
    expect(told).toContain("-1")
    expect(told.length).toBeLessThan(3 * (ISSUE_MAX_CHARS + 60))
    expect(told).not.toContain("Z".repeat(200))
  })
})

describe("a Muse Code export record that fails the schema", () => {
  it("is refused with a bounded message naming events.N.envelope.sequence first (a negative sequence, a 2 MB payload)", () => {
    const d = orderly()
    d.events[1].envelope.sequence = -1
    d.events[1].envelope.payload.blob = BLOB
    const r = decode(d)
    if (Either.isRight(r)) throw new Error("decoded")
    expect(r.left._tag).toBe("MalformedSource")
    expect(r.left.message.startsWith("The document does not have the export shape (events.1.envelope.sequence: ")).toBe(true)
    expect(r.left.message.length).toBeLessThan(1000)
    expect(r.left.message).not.toContain("Z".repeat(200))
  })

  it("a native record envelope of the wrong shape (a 2 MB string as its payload): the same bounded message", () => {
    const env = { ...orderly().events[0].envelope, payload: BLOB }
    const r = mapRecordEnvelope(env, { sourceId: "sha256:x", locatorClass: "muse-native-session-log", fallbackSessionId: "s", sequence: 0, cursor: "c", spawns: new Map(), provenance: {} }, "line 3")
    if (Either.isRight(r)) throw new Error("mapped")
    expect(r.left.message.startsWith("line 3: not a Muse Code record envelope (payload: ")).toBe(true)
    expect(r.left.message.length).toBeLessThan(1000)
    expect(r.left.message).not.toContain("Z".repeat(200))
  })

  it("import --json: the refused source's message stays bounded in the report and in the index", () => {
    const dir = tempDir("si-schema-issues36-")
    const d = orderly()
    d.events[0].envelope.sequence = -1
    d.events[0].envelope.payload.blob = BLOB
    const file = path.join(dir, "neg-seq.json")
    fs.writeFileSync(file, JSON.stringify(d))
    const index = path.join(dir, "index.db")
    const env = { XDG_CONFIG_HOME: path.join(dir, "xdg"), XDG_DATA_HOME: path.join(dir, "data") }
    const r = cli(["import", file, "--workspace", dir, "--index", index, "--json"], { env })
    expect(r.stdout).toContain("events.0.envelope.sequence")
    expect(r.stdout.length).toBeLessThan(20_000)
    expect(r.stderr.length).toBeLessThan(20_000)
    // the index holds no piece of the payload either (its size: the empty index and the bounded message)
    expect(fs.readFileSync(index).includes("Z".repeat(200))).toBe(false)
  }, 60_000)
})

describe("a Muse Code export's values quoted in its refusals are clipped (tester36b F6)", () => {
  it("an unknown event kind of 1 MB: the message names it clipped, and events[0]", () => {
    const d = orderly()
    d.events[0].kind = "Q".repeat(1_000_000)
    const r = decode(d)
    if (Either.isRight(r)) throw new Error("decoded")
    expect(r.left._tag).toBe("MalformedSource")
    expect(r.left.message.startsWith(`events[0] is of kind "${"Q".repeat(79)}... (`)).toBe(true)
    expect(r.left.message.length).toBeLessThan(1000)
    expect(JSON.stringify(r.left).length).toBeLessThan(2000)
  })

  it("an export_schema_version of 1 MB that is no integer: clipped", () => {
    const d = orderly()
    d.export_schema_version = "V".repeat(1_000_000)
    const r = decode(d)
    if (Either.isRight(r)) throw new Error("decoded")
    expect(r.left.message.startsWith(`export_schema_version "${"V".repeat(79)}... (`)).toBe(true)
    expect(r.left.message.length).toBeLessThan(1000)
  })

  it("a short unknown kind is named whole, as before", () => {
    const d = orderly()
    d.events[0].kind = "mystery"
    const r = decode(d)
    if (Either.isRight(r)) throw new Error("decoded")
    expect(r.left.message.startsWith(`events[0] is of kind "mystery", which this build does not read`)).toBe(true)
  })
})
