/**
 * The HTML replay's pure half (issue 15): what `replayInput` places where
 * (turns, block times, compactions, runtime facts, subagents under their
 * spawning call or event, header counts and tokens), and what `renderReplay`
 * writes (a CSP that forbids every load, nothing that loads, session text
 * escaped in the header and in the JSON block). The browser half is
 * test/replay/browser.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import type { SessionEvent } from "../../src/domain/model.js"
import { replayInput, type ReplaySource } from "../../src/domain/replay/build.js"
import type { ReplayBlock, ReplayEntry, ReplaySession } from "../../src/domain/replay/model.js"
import { escapeHtml, jsonForScript, renderReplay, replayCsp } from "../../src/domain/replay/render.js"
import { mk } from "../support/events.js"

const at = (s: number) => `2026-03-01T10:00:${String(s).padStart(2, "0")}Z`

const conversation = () => {
  const ev = mk("claude-code", "parent")
  const events: Array<SessionEvent> = [
    ev("message", { role: "user", text: "fix it", occurredAt: at(0) }),
    ev("thinking", { role: "assistant", text: "hmm", occurredAt: at(1) }),
    ev("message", { role: "assistant", text: "Looking.", occurredAt: at(2), usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null }, responseId: "r1" }),
    ev("tool-call", { role: "assistant", toolName: "Bash", toolCallId: "c1", occurredAt: at(3), toolInput: { command: "ls" } }),
    ev("tool-result", { toolCallId: "c1", text: "a.ts", isError: false, occurredAt: at(4) }),
    ev("summary", { role: "system", text: "summary text never shown", occurredAt: at(5), compaction: { id: "cmp-1", trigger: "auto" } }),
    ev("tool-call", { role: "assistant", toolName: "Edit", toolCallId: "c2", occurredAt: at(6), toolInput: { file_path: "a.ts", old_string: "a", new_string: "b" } }),
    ev("tool-result", { toolCallId: "c2", text: "boom", isError: true, occurredAt: at(7) }),
    ev("meta", { role: "system", text: "a runtime fact", occurredAt: at(8) }),
    ev("meta", { role: "system", text: "another", occurredAt: at(9) }),
    ev("message", { role: "user", text: "thanks", occurredAt: at(10) }),
    ev("tool-call", { role: "assistant", toolName: "Task", toolCallId: "c3", occurredAt: at(11), toolInput: { prompt: "go" } }),
    ev("tool-result", { toolCallId: "c3", text: "done", occurredAt: at(12), child: { sessionId: "by-child-link", subagentId: null } }),
    ev("subagent.control.child_session_bound", { eventId: "bind-1", occurredAt: at(13), text: "bound" })
  ]
  return events
}

const child = (id: string, parent: SessionEvent["parent"], text = `hello from ${id}`): ReplaySource => {
  const ev = mk("claude-code", id)
  return {
    session: { sessionId: id, provider: "claude-code", title: `title of ${id}` },
    events: [ev("message", { role: "user", text, occurredAt: at(20), parent })],
    subagents: []
  }
}

const source = (subagents: ReadonlyArray<ReplaySource> = []): ReplaySource => ({
  session: { sessionId: "parent", provider: "claude-code", title: "T", workspace: "/w" },
  events: conversation(),
  subagents
})

const turns = (s: ReplaySession) => s.entries.filter((e): e is Extract<ReplayEntry, { type: "turn" }> => e.type === "turn")
const tools = (s: ReplaySession): Array<Extract<ReplayBlock, { type: "tool" }>> =>
  turns(s).flatMap((t) => t.blocks.filter((b): b is Extract<ReplayBlock, { type: "tool" }> => b.type === "tool"))

describe("replayInput", () => {
  it("keeps the transcript's turns and gives each block the time of its own event", () => {
    const s = replayInput(source()).session
    expect(turns(s).map((t) => [t.role, t.at, t.blocks.filter((b) => b.type !== "compaction" && b.type !== "facts").map((b) => [b.type, b.at])])).toEqual([
      ["user", at(0), [["text", at(0)]]],
      ["assistant", at(1), [["thinking", at(1)], ["text", at(2)], ["tool", at(3)], ["tool", at(6)]]],
      ["user", at(10), [["text", at(10)]]],
      ["assistant", at(11), [["tool", at(11)]]]
    ])
  })

  it("pairs results onto calls with their outcome: succeeded false, failed true", () => {
    const [bash, edit, task] = tools(replayInput(source()).session)
    expect(bash).toMatchObject({ name: "Bash", input: { command: "ls" }, result: "a.ts", isError: false })
    expect(edit).toMatchObject({ name: "Edit", input: { old_string: "a", new_string: "b" }, result: "boom", isError: true })
    expect(task.isError).toBeNull()
  })

  it("places a compaction and runtime facts where they happened: inside a turn between its blocks, or between turns", () => {
    const s = replayInput(source()).session
    const assistantTurn = turns(s)[1]
    expect(assistantTurn.blocks.map((b) => b.type)).toEqual(["thinking", "text", "tool", "compaction", "tool"])
    expect(assistantTurn.blocks[3]).toEqual({ type: "compaction", at: at(5), id: "cmp-1", trigger: "auto" })
    // The two meta facts come after the assistant turn and before the next user turn, grouped.
    const kinds = s.entries.map((e) => e.type)
    expect(kinds).toEqual(["turn", "turn", "facts", "turn", "turn", "facts"])
    const facts = s.entries[2] as Extract<ReplayEntry, { type: "facts" }>
    expect(facts.facts.map((f) => [f.kind, f.text, f.at])).toEqual([["meta", "a runtime fact", at(8)], ["meta", "another", at(9)]])
    // The compaction's summary text is never replayed (seed 000).
    expect(JSON.stringify(s)).not.toContain("summary text never shown")
  })

  it("nests subagents under their spawning call (parent.toolCallId), event (parent.eventId) or the call whose child link names them", () => {
    const s = replayInput(source([
      child("by-call", { sessionId: "parent", toolCallId: "c1", eventId: null, subagentId: null }),
      child("by-event", { sessionId: "parent", toolCallId: null, eventId: "bind-1", subagentId: "h" }),
      child("by-result-event", { sessionId: "parent", toolCallId: null, eventId: "line-8", subagentId: null }),
      child("by-child-link", { sessionId: "parent", toolCallId: null, eventId: null, subagentId: null }),
      child("nowhere", { sessionId: "parent", toolCallId: "c-missing", eventId: null, subagentId: null })
    ])).session
    const [bash, edit, task] = tools(s)
    expect(bash.subagents.map((x) => x.header.sessionId)).toEqual(["by-call"])
    expect(edit.subagents.map((x) => x.header.sessionId)).toEqual(["by-result-event"])
    expect(task.subagents.map((x) => x.header.sessionId)).toEqual(["by-child-link"])
    const lastFacts = s.entries[s.entries.length - 1] as Extract<ReplayEntry, { type: "facts" }>
    expect(lastFacts.facts[0].subagents.map((x) => x.header.sessionId)).toEqual(["by-event"])
    expect(s.unplaced.map((x) => x.header.sessionId)).toEqual(["nowhere"])
    expect(bash.subagents[0].entries[0]).toMatchObject({ type: "turn", blocks: [{ type: "text", text: "hello from by-call" }] })
    expect(s.header.counts.subagents).toBe(5)
  })

  it("nests subagents of subagents", () => {
    const grandchild = child("grandchild", { sessionId: "by-call", toolCallId: null, eventId: null, subagentId: null })
    const middle = { ...child("by-call", { sessionId: "parent", toolCallId: "c1", eventId: null, subagentId: null }), subagents: [grandchild] }
    const s = replayInput(source([middle])).session
    expect(tools(s)[0].subagents[0].unplaced.map((x) => x.header.sessionId)).toEqual(["grandchild"])
  })

  it("heads the session with provider, model, workspace, times, duration, counts and tokens; cost is null until priced", () => {
    const h = replayInput(source()).session.header
    expect(h).toMatchObject({
      sessionId: "parent",
      provider: "claude-code",
      title: "T",
      workspace: "/w",
      startedAt: at(0),
      endedAt: at(13),
      durationMs: 13_000,
      counts: { events: 14, turns: 4, toolCalls: 3, toolErrors: 1, compactions: 1, runtimeEvents: 3, subagents: 0 },
      tokens: { inputTokens: 10, outputTokens: 5, cacheReadTokens: null, cacheWriteTokens: null, responses: 1 },
      costUsd: null
    })
  })

  it("a session without conversation (runtime facts only) is one group of facts", () => {
    const ev = mk("muse-code", "m")
    const s = replayInput({ session: { sessionId: "m", provider: "muse-code" }, events: [ev("proposed", { text: "p" }), ev("session.end")], subagents: [] }).session
    expect(s.entries).toMatchObject([{ type: "facts", facts: [{ kind: "proposed", text: "p" }, { kind: "session.end", text: null }] }])
    expect(s.header.tokens).toBeNull()
    expect(s.header.durationMs).toBeNull()
  })
})

const CANARIES = [
  "<script>window.__xss=1</script>",
  "</script><script>window.__xss=2</script>",
  "<img src=x onerror=\"window.__xss=3\">",
  "</style><style>body{display:none}</style>",
  "<!--",
  "\u2028\u2029&amp;"
]

describe("renderReplay", () => {
  const page = (title: string, text: string) => {
    const ev = mk("claude-code", "x")
    return renderReplay(replayInput({
      session: { sessionId: "x", provider: "claude-code", title, workspace: text, model: text },
      events: [ev("message", { role: "user", text })],
      subagents: []
    }))
  }

  it("has a Content-Security-Policy meta that forbids every load and allows only its own inline style and script, by hash", () => {
    const html = page("t", "x")
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)
    expect(meta).not.toBeNull()
    const csp = meta![1].replaceAll("&#39;", "'")
    expect(csp).toBe(replayCsp())
    expect(csp).toMatch(/^default-src 'none'; /)
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+';/)
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+';/)
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|data:|\*/)
    // The meta comes before any style or script.
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<style>"))
  })

  it("loads nothing: no src, href, url() or @import, exactly one executable script", () => {
    const html = page("t", "x")
    expect(html).not.toMatch(/\s(src|href|srcset|action|poster)=/i)
    expect(html).not.toMatch(/url\(|@import|https?:\/\//i)
    expect((html.match(/<script>/g) ?? []).length).toBe(1)
    expect((html.match(/<script\b/g) ?? []).length).toBe(2)
  })

  it("is deterministic: the same input gives the same bytes", () => {
    expect(page("t", "same")).toBe(page("t", "same"))
  })

  it("writes session text in the header escaped, and in the JSON block with < > & U+2028 U+2029 escaped", () => {
    for (const c of CANARIES) {
      const html = page(c, c)
      const body = html.slice(html.indexOf("<body>"))
      // Only the page's own two script elements and no other tag from the canary.
      expect((body.match(/<script/g) ?? []).length).toBe(2)
      expect(body).not.toContain("<img")
      expect((html.match(/<\/style>/g) ?? []).length).toBe(1)
      expect(html).toContain(escapeHtml(c).replace(/\u2028|\u2029/g, (x) => x))
      const json = /<script type="application\/json" id="replay-data">([\s\S]*?)<\/script>/.exec(html)![1]
      expect(json).not.toMatch(/[<>&\u2028\u2029]/)
      expect(JSON.stringify(JSON.parse(json))).toContain(JSON.stringify(c).slice(1, -1))
    }
  })

  it("jsonForScript round-trips any string", () => {
    const value = { a: CANARIES.join(""), b: "\ud800 lone surrogate", c: ["\u0000", "</SCRIPT >"] }
    const json = jsonForScript(value)
    expect(json).not.toMatch(/[<>&\u2028\u2029]/)
    expect(JSON.parse(json)).toEqual(value)
  })

  it("shows the cost in the header when the input has one, and not otherwise", () => {
    const input = replayInput(source())
    expect(renderReplay(input)).not.toContain("<dt>Cost</dt>")
    const priced = { session: { ...input.session, header: { ...input.session.header, costUsd: 0.1234 } } }
    expect(renderReplay(priced)).toContain("<dt>Cost</dt><dd>$0.1234 (USD)</dd>")
    expect(renderReplay(priced)).toContain("<dt>Tokens</dt><dd>input 10 · output 5 (1 response)</dd>")
  })

  // docs/usage-and-cost.md "Costs as people read them": 4 decimals, 2 from $100, below a cent up to 6 decimals (`$0.00105`, not
  // `$0.0010`), as `sessions` shows them (tester12 F8: a $0.000018 session showed as `$0.0000`).
  it("writes the header's cost as every other output does: up to 6 decimals below a cent, 2 from $100", () => {
    const input = replayInput(source())
    const costed = (costUsd: number) => renderReplay({ session: { ...input.session, header: { ...input.session.header, costUsd } } })
    expect(costed(0.000018)).toContain("<dt>Cost</dt><dd>$0.000018 (USD)</dd>")
    expect(costed(0.00105)).toContain("<dt>Cost</dt><dd>$0.00105 (USD)</dd>")
    expect(costed(0.023)).toContain("<dt>Cost</dt><dd>$0.0230 (USD)</dd>")
    expect(costed(12.5)).toContain("<dt>Cost</dt><dd>$12.5000 (USD)</dd>")
    expect(costed(123.456)).toContain("<dt>Cost</dt><dd>$123.46 (USD)</dd>")
  })
})

// tester30b F3: a tool result whose call line was skipped (too deep, torn) is an event of the session, counted in its
// "events"; the replay showed neither it nor the skipped line. Markdown lists both; the shared page must too.
describe("a tool result whose call was not read, and the session's parse warnings", () => {
  const orphanSource = (): ReplaySource => {
    const ev = mk("claude-code", "torn")
    return {
      session: {
        sessionId: "torn",
        provider: "claude-code",
        title: "torn",
        parseWarnings: [{ kind: "malformed-json", count: 1, firstLine: 2 }],
        diagnostics: [{ kind: "orphan-tool-output", count: 1, firstLine: 3 }, { kind: "sessions-index-ignored", count: 1, firstLine: null }]
      },
      events: [
        ev("message", { role: "user", text: "check the disk", occurredAt: at(0) }),
        // line 2 (the tool_use) was cut short and skipped: its result claims a call the session does not have
        ev("tool-result", { toolCallId: "toolu_lost", text: "ERROR: disk failure on /dev/sda1", isError: true, occurredAt: at(2) }),
        ev("message", { role: "assistant", text: "The disk failed.", occurredAt: at(3) })
      ],
      subagents: []
    }
  }

  it("places the orphan result as an entry of its own where it came, with its call id, text and outcome", () => {
    const s = replayInput(orphanSource()).session
    expect(s.entries.map((e) => e.type)).toEqual(["turn", "orphan", "turn"])
    expect(s.entries[1]).toEqual({ type: "orphan", at: at(2), id: "toolu_lost", result: "ERROR: disk failure on /dev/sda1", isError: true, linesSkipped: true })
    expect(s.header.counts).toMatchObject({ events: 3, turns: 2, toolCalls: 0 })
  })

  // tester31a F7: "its call was not read" only where a line was skipped; a kept line (invalid UTF-8) is not.
  it("an orphan says whether the session skipped lines (its call may be one), never for a kept line", () => {
    const base = orphanSource()
    const orphanOf = (parseWarnings: ReadonlyArray<{ kind: string; count: number; firstLine: number | null }>) =>
      replayInput({ ...base, session: { ...base.session, parseWarnings } }).session.entries[1]
    expect(orphanOf([{ kind: "too-deep", count: 1, firstLine: 2 }])).toMatchObject({ type: "orphan", linesSkipped: true })
    expect(orphanOf([])).toMatchObject({ type: "orphan", linesSkipped: false })
    expect(orphanOf([{ kind: "invalid-utf8", count: 1, firstLine: 2 }])).toMatchObject({ type: "orphan", linesSkipped: false })
  })

  it("an orphan within an assistant turn is a block of that turn; a result after its call is not an orphan", () => {
    const ev = mk("claude-code", "mid")
    const s = replayInput({
      session: { sessionId: "mid", provider: "claude-code" },
      events: [
        ev("message", { role: "assistant", text: "one", occurredAt: at(0) }),
        ev("tool-result", { toolCallId: null, text: "no id at all", occurredAt: at(1) }),
        ev("tool-call", { role: "assistant", toolName: "Bash", toolCallId: "c1", occurredAt: at(2), toolInput: { command: "ls" } }),
        ev("tool-result", { toolCallId: "c1", text: "paired", occurredAt: at(3) })
      ],
      subagents: []
    }).session
    const [turn] = turns(s)
    expect(turn.blocks.map((b) => b.type)).toEqual(["text", "orphan", "tool"])
    expect(turn.blocks[1]).toMatchObject({ id: null, result: "no id at all", isError: null })
    expect(s.header.diagnostics).toMatchObject([{ kind: "orphan-tool-output", count: 1 }])
  })

  it("heads the session with its parse warnings and diagnostics (the events' own first, the summary's of other kinds)", () => {
    const h = replayInput(orphanSource()).session.header
    expect(h.parseWarnings).toEqual([{ kind: "malformed-json", count: 1, firstLine: 2 }])
    expect(h.diagnostics.map((d) => d.kind)).toEqual(["orphan-tool-output", "sessions-index-ignored"])
  })

  it("the page says the skipped line and the diagnostics in its header, and carries the orphan's text", () => {
    const html = renderReplay(replayInput(orphanSource()))
    expect(html).toContain("<dt>Parse warnings</dt><dd>1 line skipped: malformed-json 1 (first at line 2)</dd>")
    // (the orphan's first line is its event's `rawReference.sequence`, as `show --format markdown` has it)
    expect(html).toMatch(/<dt>Diagnostics<\/dt><dd>orphan-tool-output 1 \(first at line \d+\) · sessions-index-ignored 1<\/dd>/)
    const data = JSON.parse(/<script type="application\/json" id="replay-data">(.*?)<\/script>/s.exec(html)![1])
    expect(data.entries[1]).toMatchObject({ type: "orphan", result: "ERROR: disk failure on /dev/sda1" })
  })

  // tester31a F1: a line kept with invalid UTF-8 (its event in the page) was counted among the lines "skipped".
  it("says the lines skipped, the lines kept with a part replaced and the files left out apart, never a kept line as skipped", () => {
    const base = orphanSource()
    const parseWarnings = [
      { kind: "invalid-utf8", count: 1, firstLine: 5 },
      { kind: "too-deep", count: 1, firstLine: 3 },
      { kind: "malformed-json", count: 2, firstLine: 4 },
      { kind: "usage-not-valid", count: 3, firstLine: 6 },
      { kind: "subagent-file-empty", count: 1, firstLine: null }
    ]
    const html = renderReplay(replayInput({ ...base, session: { ...base.session, parseWarnings } }))
    expect(html).toContain(
      "<dt>Parse warnings</dt><dd>3 lines skipped: too-deep 1 (first at line 3) · malformed-json 2 (first at line 4); " +
        "4 lines kept, a part of each dropped or replaced: invalid-utf8 1 (first at line 5) · usage-not-valid 3 (first at line 6); " +
        "1 file left out: subagent-file-empty 1</dd>"
    )
    const keptOnly = renderReplay(replayInput({ ...base, session: { ...base.session, parseWarnings: [{ kind: "invalid-utf8", count: 1, firstLine: 5 }] } }))
    expect(keptOnly).toContain("<dt>Parse warnings</dt><dd>1 line kept, a part of each dropped or replaced: invalid-utf8 1 (first at line 5)</dd>")
    expect(/<dt>Parse warnings<\/dt><dd>([^<]*)<\/dd>/.exec(keptOnly)![1]).not.toContain("skipped")
  })

  it("a session without warnings has no such rows", () => {
    const html = renderReplay(replayInput(source()))
    expect(html).not.toContain("<dt>Parse warnings</dt>")
    expect(html).not.toContain("<dt>Diagnostics</dt>")
  })
})
