/**
 * Numbers JSON does not carry exactly (`1e400`, `-0`, `1E-400`, integers past
 * 2^53, 30 digits) in a Muse agents transcript (seed 000): the events keep
 * what `JSON.parse` made of them, and the transcript's one
 * `NUMBER_NOT_EXACT` diagnostic says so, counted, with the first and its
 * line, through `inspect`, `stream` (`onWarning`, stderr) and the import
 * report, as Muse Code native logs do (`test/muse-code/native-numbers.test.ts`).
 * Counted: the numbers of the lines that yield events, and of a
 * `function_call`'s `arguments` JSON text (parsed into the tool input).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Diagnostic } from "../../src/domain/model.js"
import { cli } from "../support/run.js"
import { collect, jl, locatorOf, tempDir, withAdapter, writeTranscript } from "./helpers.js"

/** A JSON line with `@NAME` string placeholders replaced by raw number tokens. */
const raw = (o: unknown, tokens: Record<string, string>): string => {
  let s = JSON.stringify(o)
  for (const [k, v] of Object.entries(tokens)) s = s.replace(`"@${k}"`, v)
  return s + "\n"
}

const header = jl({ type: "session_header", session_id: "sess-num", agent_id: "num", created_at: "2025-03-01T08:00:00Z" })
const msg = (seq: number, text: string) =>
  jl({ type: "item", seq, source: "runtime", item: { type: "message", role: "user", text }, created_at: "2025-03-01T08:00:01Z" })

/**
 * Lines: 1 header; 2 a message whose seq is past 2^53 (1); 3 a call whose
 * arguments text holds `1e400` and `-0` (2); 4 its output as an object with
 * `1E-400` and 30 digits (2); 5 a message that only mentions such numbers in
 * its text (0); 6 a developer message (no event) with `1e400` (0).
 */
const hostile = (): { text: string; firstOffset: number } => {
  const lines = [
    header,
    raw({ type: "item", seq: "@SEQ", source: "runtime", item: { type: "message", role: "user", text: "count" }, created_at: "2025-03-01T08:00:01Z" }, { SEQ: "9007199254740993" }),
    jl({ type: "item", seq: 2, source: "runtime", item: { type: "function_call", call_id: "c1", name: "exec", arguments: "{\"n\": 1e400, \"m\": [-0, 1]}" }, created_at: "2025-03-01T08:00:02Z" }),
    raw({ type: "item", seq: 3, source: "runtime", item: { type: "function_call_output", call_id: "c1", output: { tiny: "@TINY", long: "@LONG" }, success: true }, created_at: "2025-03-01T08:00:03Z" }, { TINY: "1E-400", LONG: "123456789012345678901234567890" }),
    msg(4, "the numbers 1e400, -0 and 9007199254740993 written as text: \":1e400, [-0\""),
    raw({ type: "item", seq: 5, source: "runtime", item: { type: "message", role: "developer", text: "x", n: "@BIG" } }, { BIG: "1e400" })
  ]
  return { text: lines.join(""), firstOffset: lines[0].length }
}

const numbersOf = (ds: ReadonlyArray<Diagnostic>) => ds.filter((d) => d.code === "NUMBER_NOT_EXACT")

describe("a Muse agents transcript with numbers JSON does not carry exactly", () => {
  it.effect("inspect gives one NUMBER_NOT_EXACT, counted, naming the first and its line; stream reports it to onWarning once, after its events", () =>
    Effect.gen(function*() {
      const root = tempDir()
      const { firstOffset, text } = hostile()
      const file = writeTranscript(root, "num", text)
      const i = yield* withAdapter(root, (a) => a.inspect(locatorOf("num", root)))
      const d = numbersOf(i.diagnostics)
      expect(d).toHaveLength(1)
      expect(d[0].details).toMatchObject({ count: 5, first: "9007199254740993" })
      expect(d[0].message).toContain(`line 2 (byte ${firstOffset})`)
      expect(d[0].message).toContain(file)
      expect(d[0].remediation).toContain("rawReference")
      const warnings: Array<Diagnostic> = []
      let seen = 0
      let eventsBefore = -1
      const events = yield* withAdapter(root, (a) =>
        collect(a.stream(locatorOf("num", root), {
          onWarning: (w) => {
            eventsBefore = seen
            warnings.push(w)
          }
        }).pipe(Stream.tap(() => Effect.sync(() => seen++)))))
      expect(events.length).toBe(4)
      expect(eventsBefore).toBe(4)
      expect(warnings.map((w) => [w.code, w.details?.count, w.details?.first])).toEqual([["NUMBER_NOT_EXACT", 5, "9007199254740993"]])
      // The events are unchanged: what JSON.parse made of the numbers (the source keeps the exact text).
      const call = events.find((e) => e.kind === "tool-call")!
      expect(call.toolInput).toEqual({ n: Infinity, m: [-0, 1] })
      // Without onWarning, the same events.
      const plain = yield* withAdapter(root, (a) => collect(a.stream(locatorOf("num", root))))
      expect(JSON.stringify(plain)).toBe(JSON.stringify(events))
    }))

  it.effect("a transcript of exact numbers (epoch milliseconds, decimals, numbers inside strings) reports nothing", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTranscript(root, "ok", [
        header,
        jl({ type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "1e400 -0 :1e999" }, created_at: 1740816001000 }),
        jl({ type: "item", seq: 2, source: "runtime", item: { type: "function_call", call_id: "c", name: "exec", arguments: "{\"t\":0.1,\"u\":1790349213894901,\"s\":\"1e400\"}" } }),
        // not JSON arguments: kept as the raw string, nothing parsed
        jl({ type: "item", seq: 3, source: "runtime", item: { type: "function_call", call_id: "d", name: "exec", arguments: "{n: 1e400" } })
      ].join(""))
      const i = yield* withAdapter(root, (a) => a.inspect(locatorOf("ok", root)))
      expect(numbersOf(i.diagnostics)).toEqual([])
      const warnings: Array<Diagnostic> = []
      yield* withAdapter(root, (a) => Stream.runDrain(a.stream(locatorOf("ok", root), { onWarning: (w) => warnings.push(w) })))
      expect(warnings).toEqual([])
    }))

  it.effect("a stream resumed from a cursor counts the lines it reads", () =>
    Effect.gen(function*() {
      const root = tempDir()
      writeTranscript(root, "num", hostile().text)
      const events = yield* withAdapter(root, (a) => collect(a.stream(locatorOf("num", root))))
      const warnings: Array<Diagnostic> = []
      // After line 3 (the call): the output line's two numbers only.
      yield* withAdapter(root, (a) => Stream.runDrain(a.stream(locatorOf("num", root), { cursor: events[1].cursor, onWarning: (w) => warnings.push(w) })))
      expect(warnings.map((w) => [w.details?.count, w.details?.first])).toEqual([[2, "1E-400"]])
    }))

  it("CLI: stream (plain and --lean) writes one warning on stderr, stdout unchanged, exit 0; inspect --json and import --json report it", () => {
    const root = tempDir()
    const file = writeTranscript(root, "num", hostile().text)
    const clean = tempDir()
    const cleanFile = writeTranscript(clean, "num", hostile().text.replace("9007199254740993", "9007199254740992").replace("1e400", "1e300").replace("[-0", "[0").replace("1E-400", "1E-300").replace("123456789012345678901234567890", "1234567890"))
    for (const extra of [[], ["--lean"]]) {
      const r = cli(["stream", "muse-agents", file, "--agents-root", root, ...extra])
      expect(r.code).toBe(0)
      expect(r.stderr.match(/warning: NUMBER_NOT_EXACT: 5 number\(s\)/g)).toHaveLength(1)
      expect(r.stderr).toContain("9007199254740993")
      const c = cli(["stream", "muse-agents", cleanFile, "--agents-root", clean, ...extra])
      expect(c.code).toBe(0)
      expect(c.stderr).not.toContain("NUMBER_NOT_EXACT")
      // stdout: the same lines but for the numbers themselves
      expect(r.stdout.split("\n").length).toBe(c.stdout.split("\n").length)
    }
    const i = cli(["inspect", "muse-agents", file, "--agents-root", root, "--json"])
    expect(i.code).toBe(0)
    const inspected = JSON.parse(i.stdout) as { data: { diagnostics: Array<Diagnostic> } }
    expect(numbersOf(inspected.data.diagnostics).map((d) => d.details?.count)).toEqual([5])
    const human = cli(["inspect", "muse-agents", file, "--agents-root", root])
    expect(human.stdout).toMatch(/NUMBER_NOT_EXACT: 5 number\(s\)/)
    const dir = tempDir()
    const imp = cli(["import", "--json", "--index", path.join(dir, "index.db"), "--agents-root", root, "--workspace", dir, "--muse-root", path.join(dir, "none"), "--claude-root", path.join(dir, "none")])
    expect([0, 8]).toContain(imp.code)
    const report = JSON.parse(imp.stdout.trim().split("\n").pop()!) as { data: { providers: Array<{ provider: string; diagnostics: Array<Diagnostic> }> } }
    const agents = report.data.providers.find((p) => p.provider === "muse-agents")!
    expect(numbersOf(agents.diagnostics).map((d) => [d.details?.count, d.details?.first])).toEqual([[5, "9007199254740993"]])
    // The source is never written.
    expect(fs.readFileSync(file, "utf8")).toBe(hostile().text)
  })
})
