/**
 * `session-ingest search` and `show --around` as a user runs them (issue 14):
 * hits in the `--json` envelope with cursors that `stream --cursor` and
 * `show --around` pick up; filters; INVALID_SEARCH_QUERY (exit 2) with its
 * position; marks highlighted on a terminal only, session content's control
 * characters shown visibly; an index from before search says to import once.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { emptySourceSummary } from "../src/domain/model.js"
import * as IndexSqlite from "../src/layers/index/sqlite.js"
import { Index, type SourceInfo } from "../src/services/Index.js"
import { S, copyFixtures, sessionPath } from "./claude-code/helpers.js"
import { mk } from "./support/events.js"
import { repoRoot, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"
import { toLegacyLayout } from "./support/legacy-index.js"

const env = { NO_COLOR: "", CLAUDE_CONFIG_DIR: "" }
const json = (args: ReadonlyArray<string>) => {
  const r = cli([...args, "--json"], { env })
  return { code: r.code, ...(JSON.parse(r.stdout.trim().split("\n").pop()!) as { status: string; data: any; error: any }) }
}

/** The Claude Code fixtures imported into a fresh index. */
const imported = () => {
  const root = copyFixtures()
  const dir = tempDir("si-cli-search-")
  const agents = path.join(dir, "agents")
  fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
  const index = path.join(dir, "i.db")
  const r = cli(["import", "--index", index, "--claude-root", root, "--agents-root", agents, "--json"], { env })
  expect([0, 8]).toContain(r.code)
  return { root, index, dir }
}

/** An index holding one session whose text carries terminal control characters. */
const hostileIndex = (dir: string) => {
  const index = path.join(dir, "hostile.db")
  const src: SourceInfo = {
    sourceKey: "k",
    provider: "muse-agents",
    locator: { locatorClass: "muse-agent-transcript", path: "/x/k" },
    summary: {},
    overview: { ...emptySourceSummary(), title: "evil \u001b]0;pwned\u0007 title" }
  }
  const e = mk("muse-agents", "sess-evil")
  Effect.runSync(Effect.scoped(Effect.gen(function*() {
    const i = yield* Index
    yield* i.beginGeneration(src, 1, "t")
    yield* i.commitBatch({
      source: src,
      generation: 1,
      events: [e("message", { role: "user", text: "before \u001b[31mzebrafish\u001b[0m after \u009b2J \u0007bell \u202eknird" })]
    }, () => Effect.void)
    yield* i.completeSource(src, null)
  }).pipe(Effect.provide(IndexSqlite.layer(index)))))
  return index
}

describe("session-ingest search", () => {
  it("--json: hits best first in the envelope, each with session, event and cursor; the cursor resumes `stream`, the event id `show --around`", () => {
    const { index, root } = imported()
    const r = json(["search", "unit_price", "--index", index])
    expect(r.code).toBe(0)
    expect(r.status).toBe("ok")
    const hits = r.data.hits as Array<any>
    expect(hits.length).toBeGreaterThan(1)
    const scores = hits.map((h) => h.score)
    expect(scores).toEqual([...scores].sort((a, b) => a - b))
    for (const h of hits) {
      expect(h).toMatchObject({ provider: "claude-code", sessionId: S.S1 })
      for (const k of ["sessionUid", "title", "eventId", "kind", "role", "occurredAt", "cursor", "snippet"]) expect(h).toHaveProperty(k)
      const [a, b] = h.snippet.marks[0]
      expect(h.snippet.text.slice(a, b).toLowerCase()).toBe("unit_price")
    }
    const hit = hits[0]
    // stream --cursor: resumes right after the hit's event
    const s = cli(["stream", "claude-code", sessionPath(S.S1, root), "--claude-root", root, "--cursor", hit.cursor], { env })
    expect(s.code).toBe(0)
    const next = JSON.parse(s.stdout.split("\n")[0])
    expect(next.sequence).toBe(hit.sequence + 1)
    // show --around: the hit's event with N on each side
    const around = json(["show", hit.sessionId, "--around", hit.eventId, "--context", "1", "--index", index])
    expect(around.code).toBe(0)
    expect(around.data.events.map((e: any) => e.sequence)).toEqual([hit.sequence - 1, hit.sequence, hit.sequence + 1])
    expect(around.data.events[1].eventId).toBe(hit.eventId)
    // NDJSON without --json, default context 3
    const nd = cli(["show", hit.sessionId, "--around", hit.eventUid, "--index", index], { env })
    expect(nd.code).toBe(0)
    const lines = nd.stdout.trim().split("\n").map((l) => JSON.parse(l))
    expect(lines.map((e) => e.eventId)).toContain(hit.eventId)
    expect(lines.length).toBeLessThanOrEqual(7)
    // an unknown event: typed, exit 4
    const missing = json(["show", hit.sessionId, "--around", "line-99999", "--index", index])
    expect(missing.code).toBe(4)
    expect(missing.error.code).toBe("SOURCE_NOT_FOUND")
  })

  it("filters: --provider, --role, --kind, --session (a prefix), --workspace, --since/--until, --limit", () => {
    const { index } = imported()
    const hits = (args: ReadonlyArray<string>) => {
      const r = json(["search", ...args, "--index", index])
      expect(r.code, args.join(" ")).toBe(0)
      return r.data.hits as Array<any>
    }
    const all = hits(["subtotal"])
    expect(all.length).toBeGreaterThan(2)
    expect(hits(["subtotal", "--provider", "muse-agents"])).toEqual([])
    for (const h of hits(["subtotal", "--kind", "tool-result"])) expect(h.kind).toBe("tool-result")
    for (const h of hits(["subtotal", "--role", "assistant"])) expect(h.role).toBe("assistant")
    expect(hits(["subtotal", "--limit", "1"]).length).toBe(1)
    expect(hits(["subtotal", "--session", S.S1.slice(0, 8)]).length).toBe(all.filter((h) => h.sessionId === S.S1).length)
    expect(hits(["subtotal", "--workspace", "/home/alice/src"])).toEqual([])
    expect(hits(["subtotal", "--workspace", "/home/alice/code/billing-api"]).length).toBe(all.length)
    // a folder above the workspace, the root, a trailing slash (tester21b F8: `/` matched nothing); not a component: none
    for (const above of ["/", "/home", "/home/", "/home/alice/code/"]) expect(hits(["subtotal", "--workspace", above]).length, above).toBe(all.length)
    expect(hits(["subtotal", "--workspace", "/home/alic"])).toEqual([])
    const listed = json(["sessions", "--workspace", "/", "--index", index])
    expect(listed.code).toBe(0)
    expect(listed.data.length).toBe(json(["sessions", "--index", index]).data.filter((s: any) => s.workspace?.startsWith("/")).length)
    expect(listed.data.length).toBeGreaterThan(0)
    expect(hits(["subtotal", "--until", "2000-01-01"])).toEqual([])
    expect(hits(["subtotal", "--since", "2000-01-01"]).length).toBe(all.length)
    const bad = json(["search", "subtotal", "--limit", "0", "--index", index])
    expect(bad.code).toBe(2)
    expect(bad.error.code).toBe("INVALID_ARGUMENT")
    // Above the most hits a search gives (10,000): refused, naming the bound, not cut silently (found by a fresh user).
    for (const n of ["10001", "100000"]) {
      const over = json(["search", "subtotal", "--limit", n, "--index", index])
      expect(over.code).toBe(2)
      expect(over.error.code).toBe("INVALID_ARGUMENT")
      expect(over.error.message).toContain("10000")
    }
    expect(hits(["subtotal", "--limit", "10000"]).length).toBe(all.length)
  })

  it("bad syntax is INVALID_SEARCH_QUERY, exit 2, with the position and a remedy (also without an index); hostile words are words", () => {
    const dir = tempDir("si-cli-search-")
    const r = json(["search", "(foo", "--index", path.join(dir, "none.db")])
    expect(r.code).toBe(2)
    expect(r.error).toMatchObject({ code: "INVALID_SEARCH_QUERY", details: { query: "(foo", position: 0 } })
    expect(r.error.remediation).toBeTruthy()
    const text = cli(["search", "foo", "OR", "--index", path.join(dir, "none.db")], { env })
    expect(text.code).toBe(2)
    expect(text.stderr).toMatch(/^session-ingest: INVALID_SEARCH_QUERY: The search query does not parse at character 5: [^\n]+\n {2}remedy: [^\n]+\n$/)
    const { index } = imported()
    for (const q of ["text:subtotal", "NEAR(subtotal round)", "\"subtotal", "*", "subtotal)"]) {
      const h = json(["search", q, "--index", index])
      expect([0, 2], q).toContain(h.code)
      if (h.code === 2) expect(h.error.code, q).toBe("INVALID_SEARCH_QUERY")
      const raw = cli(["search", q, "--index", index], { env })
      expect(raw.stderr + raw.stdout, q).not.toMatch(/Sqlite|SQLITE|fts5|\n\s+at /)
    }
  })

  it("for people: marks highlighted on a terminal only (plain when piped or NO_COLOR), control characters of the content shown visibly", () => {
    const dir = tempDir("si-cli-search-")
    const index = hostileIndex(dir)
    const piped = cli(["search", "zebrafish", "--index", index], { env })
    expect(piped.code).toBe(0)
    expect(piped.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
    // colour escapes of a tool's output are spaces (`ESC[31mzebrafish` is found as zebrafish), other controls shown visibly
    expect(piped.stdout).toContain("zebrafish")
    expect(piped.stdout).toContain("\\x07bell \\u202eknird")
    expect(piped.stdout).toContain("sess-evil")
    // on a terminal (script(1) gives the CLI a pty): our highlight, and still no raw control of the content
    const bin = path.join(repoRoot, "bin", "session-ingest.mjs")
    const tty = spawnSync("script", ["-qec", `${process.execPath} ${bin} search zebrafish --index ${index}`, "/dev/null"], {
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "", TERM: "xterm" }
    })
    expect(tty.status).toBe(0)
    expect(tty.stdout).toContain("\u001b[1;33mzebrafish\u001b[0m")
    expect(tty.stdout).toContain("\\x07bell")
    expect(tty.stdout).not.toContain("\u001b[31m")
    expect(tty.stdout).not.toContain("\u009b")
    expect(tty.stdout).not.toContain("\u0007")
    expect(tty.stdout).not.toContain("\u202e")
    const noColor = spawnSync("script", ["-qec", `${process.execPath} ${bin} search zebrafish --index ${index}`, "/dev/null"], {
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", TERM: "xterm" }
    })
    expect(noColor.stdout).not.toContain("\u001b[1;33m")
    // the title's OSC is shown, not obeyed
    const title = cli(["search", "evil", "--index", index], { env })
    expect(title.stdout).toContain("\\x1b]0;pwned\\x07")
  })

  it("an index from before search, read-only: search says to import once (UNSUPPORTED_OPERATION, exit 3); sessions and show still work", async () => {
    const dir = tempDir("si-cli-search-")
    const index = hostileIndex(dir)
    await Effect.runPromise(toLegacyLayout(index)) // the layout of the builds before the lean record (0006)
    const db = new Database(index)
    db.exec(`DROP TRIGGER search_docs_gone; DROP TRIGGER events_search_gone; DROP TRIGGER sessions_search_gone;
             DROP TABLE search; DROP TABLE search_docs; DELETE FROM si_migrations WHERE migration_id = 4;`)
    db.close()
    fs.chmodSync(index, 0o444)
    const r = json(["search", "zebrafish", "--index", index])
    expect(r.code).toBe(3)
    expect(r.error.code).toBe("UNSUPPORTED_OPERATION")
    expect(r.error.remediation).toContain(`session-ingest import --index ${index}`)
    expect(json(["sessions", "--index", index]).code).toBe(0)
    expect(json(["show", "sess-evil", "--index", index]).code).toBe(0)
  })
})

describe("show --around as Markdown is shareable, like a whole session's", () => {
  it("is redacted by default (with and without --json); --no-redact keeps the text", () => {
    const root = copyFixtures()
    const file = sessionPath(S.S1, root)
    const token = "ghp_" + "R".repeat(36) // built here: the repository holds no secret-shaped literal
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("The invoice total is off by one cent", `The invoice total (key ${token}) is off by one cent`))
    const dir = tempDir("si-cli-around-")
    const agents = path.join(dir, "agents")
    fs.mkdirSync(path.join(agents, "nobody"), { recursive: true })
    const index = path.join(dir, "i.db")
    expect([0, 8]).toContain(cli(["import", "--index", index, "--claude-root", root, "--agents-root", agents], { env }).code)
    const hit = json(["search", "invoice", "--session", S.S1, "--role", "user", "--kind", "message", "--index", index]).data.hits[0]
    expect(hit.eventId).toEqual(expect.any(String))
    const args = ["show", S.S1, "--around", hit.eventId, "--context", "1", "--format", "markdown", "--index", index]
    const md = cli(args, { env })
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).toContain("invoice total")
    expect(md.stdout).not.toContain(token)
    expect(md.stdout).toContain("[REDACTED:github-token]")
    const j = cli([...args, "--json"], { env })
    expect(j.code).toBe(0)
    expect(j.stdout).not.toContain(token)
    expect(cli([...args, "--no-redact"], { env }).stdout).toContain(token)
  })
})
