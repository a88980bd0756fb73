/**
 * The incremental index equals a fresh import (issue 11, item 4; README
 * "Generations"): random JSONL logs, edited in place at random positions
 * (same size or not), appended to, or both, and imported again after each
 * change; after every run the sessions and events of the index equal those of
 * a fresh import of the same files into an empty index (import times and
 * generation numbers aside). For Muse Code native logs with a nested subagent
 * log (edits land in either), and for Muse agents transcripts.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import type { AccessPolicyShape } from "../../src/services/AccessPolicy.js"
import { bound, jsonl, metadata, record } from "../muse-code/native-lines.js"
import { importOnce, indexView } from "../support/index.js"
import { tempDir } from "../support/paths.js"

/** One change to a file: its kind, where (a line index, modulo the lines there), and the new text's seed. */
interface Change {
  readonly kind: "same-size" | "resize" | "append" | "edit-and-append"
  readonly nested: boolean
  readonly at: number
  readonly text: string
  readonly count: number
}

const arbText = fc.stringMatching(/^[a-z]{1,40}$/)
const arbChange: fc.Arbitrary<Change> = fc.record({
  kind: fc.constantFrom("same-size" as const, "resize" as const, "append" as const, "edit-and-append" as const),
  nested: fc.boolean(),
  at: fc.nat(),
  text: arbText,
  count: fc.integer({ min: 1, max: 4 })
})
const arbCase = fc.record({
  lines: fc.array(arbText, { minLength: 4, maxLength: 24 }),
  nestedLines: fc.array(arbText, { minLength: 1, maxLength: 12 }),
  changes: fc.array(arbChange, { minLength: 1, maxLength: 4 })
})

/** Padding so that logs pass the 4 KiB head that cursors bind: edits land past it too. */
const PAD = 600

/** A file as its lines (texts), written as JSONL by `render`; line 0 is fixed (the header / metadata). */
class LineFile {
  private texts: Array<string>
  private serial = 0
  private mtime = Date.UTC(2026, 9, 1) / 1000
  constructor(readonly file: string, texts: ReadonlyArray<string>, private readonly render: (i: number, text: string) => string) {
    this.texts = [...texts]
    this.write()
  }
  private line = (i: number) => this.render(i, this.texts[i - 1])
  private write() {
    let s = this.render(0, "")
    for (let i = 1; i <= this.texts.length; i++) s += this.line(i)
    fs.mkdirSync(path.dirname(this.file), { recursive: true })
    fs.writeFileSync(this.file, s)
    // A later mtime for each change: file times tick in coarse steps (a few ms), and a same-size
    // rewrite within one tick has the stat of the file it replaced (the importer trusts a stat).
    fs.utimesSync(this.file, ++this.mtime, this.mtime)
  }
  apply(c: Change) {
    if (c.kind !== "append") {
      const i = c.at % this.texts.length
      const old = this.texts[i]
      // Same size: the same length, other letters (rotated); else a text of another length.
      const same = [...old].map((ch) => String.fromCharCode(((ch.charCodeAt(0) - 97 + 1 + (c.text.length % 25)) % 26) + 97)).join("")
      this.texts[i] = c.kind === "same-size" ? same : old.length === c.text.length ? c.text + "z" : c.text
      this.serial++
    }
    if (c.kind === "append" || c.kind === "edit-and-append") {
      for (let k = 0; k < c.count; k++) this.texts.push(`${c.text}${k}`)
    }
    this.write()
  }
}

let runs = 0

/** Import after each change into one index, and compare with a fresh import each time. */
const check = (
  setup: (dir: string) => { readonly policy: AccessPolicyShape; readonly files: { main: LineFile; nested?: LineFile } },
  changes: ReadonlyArray<Change>
) =>
  Effect.gen(function*() {
    const dir = tempDir()
    const { files, policy } = setup(dir)
    const plan = planFromPolicy(policy, { batchSize: 3 })
    const index = path.join(dir, "index.db")
    yield* importOnce(policy, index, plan)
    for (const c of changes) {
      const target = c.nested && files.nested !== undefined ? files.nested : files.main
      target.apply(c)
      const r = yield* importOnce(policy, index, plan)
      expect(r.sources.rejected).toBe(0)
      const fresh = path.join(dir, `fresh-${runs++}.db`)
      yield* importOnce(policy, fresh, plan)
      const got = yield* indexView(index)
      const want = yield* indexView(fresh)
      expect(got.length).toBeGreaterThan(0)
      expect(got).toEqual(want)
    }
  })

describe("an incremental import equals a fresh one, whatever changed in the files", () => {
  const PARENT = "0e0e0e0e-0000-4000-8000-000000000001"
  const CHILD = "0e0e0e0e-0000-4000-8000-000000000002"

  it.effect.prop("Muse Code native logs with a nested subagent log", [arbCase], ([c]) =>
    check((dir) => {
      const ws = path.join(dir, "ws")
      fs.mkdirSync(ws)
      const root = path.join(dir, "muse")
      fs.mkdirSync(path.join(dir, "agents"))
      const folder = path.join(root, "2026", "10", "05", PARENT)
      const rec = (stream: string) => (i: number, text: string) =>
        JSON.stringify(record(i + 2, "runtime.session", { event: { kind: "started", prompt: text.padEnd(PAD, ".") } }, stream)) + "\n"
      const main = new LineFile(path.join(folder, "session.jsonl"), c.lines, (i, text) =>
        i === 0 ? jsonl([metadata(1, ws, PARENT), bound(2, CHILD, "sub-1", PARENT)]) : rec(PARENT)(i, text))
      const nested = new LineFile(path.join(folder, "subagent", CHILD, "session.jsonl"), c.nestedLines, (i, text) =>
        i === 0 ? jsonl([record(1, "session.opened.observed", {}, CHILD)]) : rec(CHILD)(i, text))
      return { policy: { workspaceRoots: [ws], museRoots: [root], agentsRoot: path.join(dir, "agents") }, files: { main, nested } }
    }, c.changes), { timeout: 180_000, fastCheck: { numRuns: 15 } })

  it.effect.prop("Muse agents transcripts", [arbCase], ([c]) =>
    check((dir) => {
      const root = path.join(dir, "agents")
      const item = (i: number, text: string) =>
        JSON.stringify({
          type: "item",
          seq: i,
          source: "runtime",
          item: { type: "message", role: i % 2 === 0 ? "assistant" : "user", text: text.padEnd(PAD, ".") },
          created_at: `2025-04-01T10:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}Z`
        }) + "\n"
      const main = new LineFile(path.join(root, "a1", "sessions", "a1.jsonl"), c.lines, (i, text) =>
        i === 0
          ? JSON.stringify({ type: "session_header", session_id: "s-1", agent_id: "a1", created_at: "2025-04-01T10:00:00Z" }) + "\n"
          : item(i, text))
      return { policy: { workspaceRoots: [dir], museRoots: [], agentsRoot: root }, files: { main } }
    }, c.changes), { timeout: 180_000, fastCheck: { numRuns: 15 } })
})
