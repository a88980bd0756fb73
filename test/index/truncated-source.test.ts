/**
 * A source imported before whose file is now cut back to a byte prefix of
 * what was imported (a backup restore, a sync rollback, `head -n 10`,
 * `truncate -s N` mid-line; tester24b F2): an append-only log never shrinks
 * as a new version of its session, so this is damage, kept as an emptied file
 * is (docs/import.md, "Sources cut back to a prefix of what was imported"):
 * the indexed generation stays current (events, usage, search unchanged),
 * nothing is superseded, `SOURCE_TRUNCATED` names the file, its size and the
 * imported size, coverage partial (exit 8). Grown back with the same bytes,
 * the next import resumes as usual. A shorter file with other content is
 * still a change, its generation's reason saying it is shorter.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import Database from "better-sqlite3"
import * as Layer from "effect/Layer"
import * as App from "../../src/layers/app.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import { truncatedSource } from "../../src/layers/index/truncated.js"
import type { AccessPolicyShape } from "../../src/services/AccessPolicy.js"
import { Index } from "../../src/services/Index.js"
import { SessionSources } from "../../src/services/SessionSource.js"
import type { SourceAccessShape } from "../../src/services/SourceAccess.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { expectKeptThenRestored, importOnce, indexLayer, indexView, sessionIds } from "../support/index.js"
import { agentsFixtureCopy, claudeFixtureCopy as claudeCopy, breakableSources } from "../support/source-roots.js"
import { tempDir } from "../support/paths.js"

const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A>)

/** Usage by model and the hits of a search, as `usage` and `search` see them. */
const usageAndSearch = (index: string, query: string) =>
  Effect.gen(function*() {
    const i = yield* Index
    return { usage: yield* i.usage({ by: "model" }), hits: (yield* i.search(query, {})).length }
  }).pipe(Effect.provide(indexLayer(index)))

/** The byte length of the first `n` lines of `text` (with their line feeds). */
const linesBytes = (bytes: Buffer, n: number): number => {
  let at = 0
  for (let k = 0; k < n; k++) at = bytes.indexOf(0x0a, at) + 1
  return at
}

const cuts = {
  "cut at a line boundary (head -n 10)": (b: Buffer) => linesBytes(b, 10),
  // tester25a F15: the last line whole but for its newline (a crash between a line and its `\n`, truncate -s)
  "cut just before a line's newline": (b: Buffer) => linesBytes(b, 10) - 1,
  "cut mid-line (truncate -s N)": (b: Buffer) => linesBytes(b, 12) + 37
} as const

/** The bytes of each cut whose events are compared (tester26a F1): up to the end of its last whole event line. */
const matchedOf: Record<keyof typeof cuts, (b: Buffer) => number> = {
  "cut at a line boundary (head -n 10)": (b) => linesBytes(b, 10),
  "cut just before a line's newline": (b) => linesBytes(b, 10) - 1,
  "cut mid-line (truncate -s N)": (b) => linesBytes(b, 12)
}

describe("a source cut back to a prefix of what was imported is kept as it was, reported SOURCE_TRUNCATED", () => {
  for (const [how, at] of Object.entries(cuts)) {
    it(`claude-code: ${how}; events, usage and search unchanged; grown back, resumed`, async () => {
      const s = claudeCopy()
      const index = path.join(s.dir, "i.db")
      const plan = planFromPolicy(s.policy, { batchSize: 3 })
      const first = await run(importOnce(s.policy, index, plan))
      expect(first.coverage).toBe("complete")
      const ids = await run(sessionIds(index))
      const view = await run(indexView(index))
      // "CHANGELOG" is in the log's last lines only (cut below).
      const before = await run(usageAndSearch(index, "CHANGELOG"))
      expect(before.hits).toBeGreaterThan(0)
      const original = fs.readFileSync(s.file)
      const size = at(original)
      fs.truncateSync(s.file, size)

      const broken = await run(importOnce(s.policy, index, plan))
      expect(broken.superseded).toEqual([])
      expect(broken.sources.superseded).toBe(0)
      expect(broken.sources.newGenerations).toBe(0)
      // Coverage partial: `import` exits 8 (PARTIAL_EXIT), as for SOURCE_EMPTIED.
      expect(broken.coverage).toBe("partial")
      expect(await run(usageAndSearch(index, "CHANGELOG"))).toEqual(before)
      await expectKeptThenRestored({
        provider: "claude-code",
        file: s.file,
        policy: s.policy,
        index,
        plan,
        broken,
        ids,
        view,
        original,
        code: "SOURCE_TRUNCATED",
        problem: `${size} bytes`
      })
      const problem = broken.causes.find((c) => c.code === "SOURCE_TRUNCATED")!.problem
      expect(problem).toContain(`${original.length} bytes`)
      const matched = matchedOf[how as keyof typeof cuts](original)
      const rest = size - matched
      expect(problem).toContain(`holds their first ${matched} bytes${rest > 0 ? `, then ${rest} bytes that hold no whole event` : ":"}`)
      const diagnostic = broken.providers.find((p) => p.provider === "claude-code")!.diagnostics.find((d) => d.code === "SOURCE_TRUNCATED")
      expect(diagnostic?.details).toMatchObject({ size, importedBytes: original.length, matchedBytes: matched })
      expect(await run(usageAndSearch(index, "CHANGELOG"))).toEqual(before)
    })
  }

  const agentsCuts = {
    "to its first 8 lines": (b: Buffer) => linesBytes(b, 8),
    "just before its 8th line's newline": (b: Buffer) => linesBytes(b, 8) - 1
  } as const
  for (const [how, at] of Object.entries(agentsCuts)) {
    it(`muse-agents: a transcript cut ${how}`, async () => {
      const s = agentsFixtureCopy()
      const policy = { workspaceRoots: [s.dir], agentsRoot: s.root }
      const index = path.join(s.dir, "i.db")
      const plan = planFromPolicy(policy, { batchSize: 3 })
      expect((await run(importOnce(policy, index, plan))).coverage).toBe("complete")
      const ids = await run(sessionIds(index))
      const view = await run(indexView(index))
      const original = fs.readFileSync(s.file)
      fs.truncateSync(s.file, at(original))
      const broken = await run(importOnce(policy, index, plan))
      expect(broken.sources.superseded + broken.sources.newGenerations).toBe(0)
      expect(broken.coverage).toBe("partial")
      await expectKeptThenRestored({ provider: "muse-agents", file: s.file, policy, index, plan, broken, ids, view, original, code: "SOURCE_TRUNCATED" })
    })
  }

  // tester26a F1: cut mid-line, then a new event written glued onto the torn line (no newline between): the file no
  // longer holds the imported bytes past the end of its last whole line, so the message claims only those.
  it("claude-code: cut mid-line and a new line glued onto the torn one: holds only the bytes of its whole lines", async () => {
    const s = claudeCopy()
    const index = path.join(s.dir, "i.db")
    const plan = planFromPolicy(s.policy, { batchSize: 3 })
    await run(importOnce(s.policy, index, plan))
    const original = fs.readFileSync(s.file)
    const whole = linesBytes(original, 9)
    const third = JSON.parse(original.toString("utf8").split("\n")[2]) as Record<string, unknown>
    const glued = JSON.stringify({ ...third, uuid: "99999999-0000-4000-8000-000000000001", message: { role: "user", content: "resumed after restore" } }) + "\n"
    const cut = Buffer.concat([original.subarray(0, whole + 100), Buffer.from(glued)])
    // It still holds the imported bytes up to the torn line's 100th byte, and differs right after.
    expect(cut.subarray(0, whole + 100).equals(original.subarray(0, whole + 100))).toBe(true)
    expect(cut[whole + 100]).not.toBe(original[whole + 100])
    fs.writeFileSync(s.file, cut)
    const broken = await run(importOnce(s.policy, index, plan))
    const problem = broken.causes.find((c) => c.code === "SOURCE_TRUNCATED")?.problem
    expect(problem).toContain(`is now ${cut.length} bytes, shorter than the ${original.length} bytes imported from it`)
    expect(problem).toContain(`holds their first ${whole} bytes, then ${cut.length - whole} bytes that hold no whole event`)
    expect(problem).not.toContain(`holds their first ${cut.length} bytes`)
  })

  it("muse-code: a native session log cut back mid-file", async () => {
    const c = breakableSources.find((x) => x.provider === "muse-code")!
    const s = c.setup()
    const index = path.join(path.dirname(path.dirname(s.file)), "..-truncated.db")
    const plan = planFromPolicy(s.policy, { batchSize: 3 })
    expect((await run(importOnce(s.policy, index, plan))).coverage).toBe("complete")
    const ids = await run(sessionIds(index))
    const view = await run(indexView(index))
    const original = fs.readFileSync(s.file)
    fs.truncateSync(s.file, linesBytes(original, 2))
    const broken = await run(importOnce(s.policy, index, plan))
    expect(broken.sources.superseded + broken.sources.newGenerations).toBe(0)
    expect(broken.coverage).toBe("partial")
    await expectKeptThenRestored({ provider: "muse-code", file: s.file, policy: s.policy, index, plan, broken, ids, view, original, code: "SOURCE_TRUNCATED" })
  })

  it("a shorter rewrite with other content is still a change, its reason saying the file is shorter", async () => {
    const s = claudeCopy()
    const index = path.join(s.dir, "i.db")
    const plan = planFromPolicy(s.policy, { batchSize: 3 })
    await run(importOnce(s.policy, index, plan))
    const original = fs.readFileSync(s.file)
    const lines = original.toString("utf8").split("\n").slice(0, 10)
    // Line 7 edited (same session): not a prefix of what was imported.
    lines[6] = lines[6].replace(/"uuid":"[0-9a-f]/, (m) => m.slice(0, -1) + (m.endsWith("0") ? "1" : "0"))
    const rewritten = lines.join("\n") + "\n"
    expect(Buffer.byteLength(rewritten)).toBeLessThan(original.length)
    fs.writeFileSync(s.file, rewritten)
    const next = await run(importOnce(s.policy, index, plan))
    expect(next.causes.map((x) => x.code)).not.toContain("SOURCE_TRUNCATED")
    expect(next.sources.newGenerations + next.sources.superseded).toBeGreaterThan(0)
    const db = new Database(index, { readonly: true })
    const reasons = JSON.stringify(db.prepare("SELECT superseded_reason FROM generations").all())
    db.close()
    expect(reasons).toContain(`is now ${Buffer.byteLength(rewritten)} bytes, shorter than the ${original.length} bytes imported`)
    expect(reasons).not.toContain("prefix (")
  })
})

describe("the cut-back check streams the file against the index", () => {
  /** A Muse agents transcript of `n` messages of about 500 bytes each, under a root of its own. */
  const bigTranscript = (n: number) => {
    const dir = tempDir()
    const root = path.join(dir, "agents")
    const sessions = path.join(root, "a1", "sessions")
    fs.mkdirSync(sessions, { recursive: true })
    const file = path.join(sessions, "a1.jsonl")
    const line = (seq: number, text: string) =>
      JSON.stringify({ type: "item", seq, source: "runtime", item: { type: "message", role: "user", text }, created_at: "2025-04-01T10:00:00Z" }) + "\n"
    let head = JSON.stringify({ type: "session_header", session_id: "s-big", agent_id: "a1", created_at: "2025-04-01T10:00:00Z" }) + "\n"
    const lines: Array<string> = []
    for (let i = 1; i <= n; i++) lines.push(line(i, `message ${i} ` + "x".repeat(480)))
    fs.writeFileSync(file, head + lines.join(""))
    return { dir, root, file, head, lines, line, policy: { workspaceRoots: [dir], agentsRoot: root } }
  }

  /** The Node source access, counting the bytes read from `file` through opened sources. */
  const countingAccess = (file: string) => {
    const seen = { bytes: 0 }
    const access: SourceAccessShape = {
      ...sourceAccessNode,
      open: (f) =>
        Effect.map(sourceAccessNode.open(f), (o) => ({
          ...o,
          read: (offset: number, length: number) =>
            Effect.tap(o.read(offset, length), (b) => Effect.sync(() => path.resolve(f.path) === path.resolve(file) && (seen.bytes += b.length)))
        }))
    }
    return { access, seen }
  }

  /** The cut-back check of the index's one source, read through `access`. */
  const check = (index: string, policy: Partial<AccessPolicyShape>, access: SourceAccessShape) =>
    Effect.gen(function*() {
      const i = yield* Index
      const registry = yield* SessionSources
      const [cp] = [...(yield* i.checkpoints).values()]
      const adapter = yield* registry.get(cp.provider)
      return yield* truncatedSource(access, adapter, i, cp.sourceKey, cp, cp.locator)
    }).pipe(Effect.provide(Layer.merge(App.layer(policy, {}, access), indexLayer(index))))

  it("a shorter file whose first event differs: a change, found without reading the file through", async () => {
    const t = bigTranscript(8000)
    const index = path.join(t.dir, "i.db")
    const plan = planFromPolicy(t.policy, {})
    expect((await run(importOnce(t.policy, index, plan))).coverage).toBe("complete")
    // The first 6,000 messages, the first one edited: shorter, and not a prefix of what was imported.
    const rewritten = t.head + t.line(1, "an edited first message") + t.lines.slice(1, 6000).join("")
    fs.writeFileSync(t.file, rewritten)
    const { access, seen } = countingAccess(t.file)
    expect(await run(check(index, t.policy, access))).toBeUndefined()
    // The first event differs, so the check stops there: a read or two of the file's start (of 512 KiB), not its 3 MB.
    expect(seen.bytes).toBeGreaterThan(0)
    expect(seen.bytes).toBeLessThan(Buffer.byteLength(rewritten) / 4)
  })

  it("a file cut back to its first 3,000 of 4,000 messages: cut back, every one of them compared", async () => {
    const t = bigTranscript(4000)
    const index = path.join(t.dir, "i.db")
    const plan = planFromPolicy(t.policy, {})
    await run(importOnce(t.policy, index, plan))
    const imported = fs.statSync(t.file).size
    const cut = t.head + t.lines.slice(0, 3000).join("")
    fs.writeFileSync(t.file, cut)
    const { access, seen } = countingAccess(t.file)
    expect(await run(check(index, t.policy, access))).toEqual({ size: Buffer.byteLength(cut), imported, matched: Buffer.byteLength(cut) })
    expect(seen.bytes).toBeGreaterThanOrEqual(Buffer.byteLength(cut))
    // Message 2,999 edited: no longer a prefix, whatever the 2,998 before it.
    fs.writeFileSync(t.file, t.head + t.lines.slice(0, 2998).join("") + t.line(2999, "edited") + t.lines[2999])
    expect(await run(check(index, t.policy, countingAccess(t.file).access))).toBeUndefined()
  })
})

describe("a source cut back so far that discovery no longer lists it", () => {
  it("muse-agents: a transcript cut before its first prompt is kept, SOURCE_TRUNCATED, not superseded", async () => {
    const dir = tempDir()
    const root = path.join(dir, "agents")
    const sessions = path.join(root, "a1", "sessions")
    fs.mkdirSync(sessions, { recursive: true })
    const file = path.join(sessions, "a1.jsonl")
    const item = (seq: number, role: string, text: string) =>
      JSON.stringify({ type: "item", seq, source: "runtime", item: { type: "message", role, text }, created_at: `2025-04-01T10:00:0${seq}Z` }) + "\n"
    const header = JSON.stringify({ type: "session_header", session_id: "s-cut", agent_id: "a1", created_at: "2025-04-01T10:00:00Z" }) + "\n"
    // An assistant's greeting first: the prefix of header and greeting has no prompt, which discovery requires.
    const full = header + item(1, "assistant", "Hello, how can I help?") + item(2, "user", "Fix the build") + item(3, "assistant", "Done.")
    fs.writeFileSync(file, full)
    const policy = { workspaceRoots: [dir], agentsRoot: root }
    const index = path.join(dir, "i.db")
    const plan = planFromPolicy(policy, {})
    expect((await run(importOnce(policy, index, plan))).coverage).toBe("complete")
    const view = await run(indexView(index))
    expect(await run(sessionIds(index))).toEqual(["s-cut"])
    const cut = header + item(1, "assistant", "Hello, how can I help?")
    fs.writeFileSync(file, cut)
    const broken = await run(importOnce(policy, index, plan))
    expect(broken.sources.omitted).toBe(1) // discovery leaves it out now
    expect(broken.sources.superseded).toBe(0)
    expect(broken.coverage).toBe("partial")
    expect(broken.causes.map((c) => [c.code, c.path])).toEqual([["SOURCE_TRUNCATED", file]])
    expect(await run(indexView(index))).toEqual(view)
    // Grown back with the same bytes: listed again, and the next import finds it unchanged in what it holds.
    fs.writeFileSync(file, full)
    const restored = await run(importOnce(policy, index, plan))
    expect(restored.coverage).toBe("complete")
    expect(await run(indexView(index))).toEqual(view)
  })
})
