/**
 * The HTML replay in a real browser (issue 15): Debian's chromium driven by
 * playwright-core, one launch for the file. Every page must load without a
 * console error and without a request other than its own file; XSS canaries
 * in every field stay inert text (with and without the CSP, so the escaping
 * itself is what holds); find, collapse and keyboard navigation work; every
 * provider's fixture replay (imported into a temporary index, replayed by the
 * CLI) shows its nesting and markers and is screenshot to
 * test-output/replay/<provider>.png.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type Browser, chromium, type Page } from "playwright-core"
import type { SessionEvent } from "../../src/domain/model.js"
import { replayInput, type ReplaySource } from "../../src/domain/replay/build.js"
import { renderReplay } from "../../src/domain/replay/render.js"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { mk } from "../support/events.js"
import { importOnce } from "../support/index.js"
import { fixturesDir, repoRoot, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const CHROMIUM = "/usr/bin/chromium"
const SHOTS = path.join(repoRoot, "test-output", "replay")

let browser: Browser

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the replay's browser tests need Debian's chromium; .ci/run installs it (apt-get install -y chromium).`)
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
  })
})

afterAll(async () => {
  await browser?.close()
})

interface Opened {
  readonly page: Page
  readonly url: string
  readonly errors: Array<string>
  readonly requests: Array<string>
}

/** Open a replay file, record console errors, page errors and requests, and wait until it has rendered everything. */
const open = async (file: string): Promise<Opened> => {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
  const errors: Array<string> = []
  const requests: Array<string> = []
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") errors.push(`${m.type()}: ${m.text()}`)
  })
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`))
  page.on("request", (r) => requests.push(r.url()))
  const url = pathToFileURL(file).href
  await page.goto(url)
  await page.waitForFunction(() => (globalThis as { __replay?: { done: boolean } }).__replay?.done === true)
  return { page, url, errors, requests }
}

/** Wait until `#count` (the find box's match count) reads `text` (a function, not a string: the page's CSP forbids eval). */
const countIs = (page: Page, text: string) =>
  Effect.promise(() => page.waitForFunction((t) => (globalThis as unknown as { document: { getElementById(id: string): { textContent: string } } }).document.getElementById("count").textContent === t, text))

/** No console error, no request but the page's own file. */
const expectQuiet = (o: Opened) => {
  expect(o.errors).toEqual([])
  expect(o.requests).toEqual([o.url])
}

const writePage = (dir: string, name: string, html: string) => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, html)
  return file
}

// ---------------------------------------------------------------- every provider's fixtures

/** Every provider's fixtures imported into a temporary index (as `npm run demo` lays them out). */
const importFixtures = () =>
  Effect.gen(function*() {
    const dir = tempDir("si-replay-")
    const workspace = path.join(dir, "workspace")
    fs.mkdirSync(workspace)
    fs.copyFileSync(path.join(fixturesDir, "muse-code/export/orderly.json"), path.join(workspace, "orderly.json"))
    const day = "2026/09/25/22222222-2222-4222-8222-222222222222"
    const to = path.join(dir, "muse-sessions", day)
    fs.cpSync(path.join(fixturesDir, "muse-code/native", day), to, { recursive: true })
    const log = path.join(to, "session.jsonl")
    fs.writeFileSync(log, fs.readFileSync(log, "utf8").replaceAll("/workspace/demo", workspace))
    const policy = {
      workspaceRoots: [workspace],
      museRoots: [path.join(dir, "muse-sessions")],
      agentsRoot: path.join(fixturesDir, "muse-agents/agents"),
      agentmuxStore: path.join(fixturesDir, "agentmux/filestore.db"),
      stateFile: path.join(dir, "state.db"),
      claudeRoot: path.join(fixturesDir, "claude-code/projects")
    }
    const index = path.join(dir, "index.db")
    const report = yield* importOnce(policy, index, planFromPolicy(policy, { agents: ["u1"], exports: [path.join(workspace, "orderly.json")] }))
    expect(report.coverage).toBe("complete")
    return { dir, index }
  })

/** One session per provider, each chosen for what it shows. */
const PER_PROVIDER = [
  // A subagent (its own file) under the Task call that spawned it.
  { provider: "claude-code", session: "8d41f0a2-5c3e-4b7a-a9d2-6e1f3c7b9054", nested: "agent-a7c3e9f1b2d4068e5", under: ".tool" },
  // A child session bound by a runtime fact (`subagent.control.child_session_bound`).
  { provider: "muse-code", session: "22222222-2222-4222-8222-222222222222", nested: "33333333-3333-4333-8333-333333333333", under: "details.facts" },
  // A compaction.
  { provider: "muse-agents", session: "sess-cron", marker: ".compaction" },
  // Thinking and a tool call.
  { provider: "agentmux", session: "S-B", marker: "details.thinking" }
] as const

describe("replay of every provider's fixtures", () => {
  it.effect("loads quietly, shows its header, nests subagents under their spawning call or event, and is screenshot", () =>
    Effect.gen(function*() {
      const { dir, index } = yield* importFixtures()
      fs.mkdirSync(SHOTS, { recursive: true })
      for (const c of PER_PROVIDER) {
        const out = path.join(dir, `${c.provider}.html`)
        const r = cli(["replay", c.session, "--index", index, "--out", out])
        expect(r.code, r.stderr).toBe(0)
        expect(r.stderr).toBe(`wrote ${out} (${fs.statSync(out).size} bytes)\n`)
        const o = yield* Effect.promise(() => open(out))
        try {
          expectQuiet(o)
          const header = yield* Effect.promise(() => o.page.locator("header#top").innerText())
          expect(header).toContain(c.provider)
          expect(header).toContain(c.session)
          if ("nested" in c) {
            const nested = o.page.locator(`${c.under} details.sub`, { hasText: c.nested })
            expect(yield* Effect.promise(() => nested.count())).toBe(1)
          } else {
            expect(yield* Effect.promise(() => o.page.locator(c.marker).count())).toBeGreaterThan(0)
          }
          yield* Effect.promise(() => o.page.screenshot({ path: path.join(SHOTS, `${c.provider}.png`), fullPage: true }))
        } finally {
          yield* Effect.promise(() => o.page.close())
        }
      }
      for (const c of PER_PROVIDER) expect(fs.statSync(path.join(SHOTS, `${c.provider}.png`)).size).toBeGreaterThan(1000)
    }), 120_000)
})

// ---------------------------------------------------------------- XSS canaries

const CANARY = {
  script: "<script>window.__xss = 'script'</script>",
  endScript: "</script><script>window.__xss = 'end-script'</script>",
  img: "<img src=x onerror=\"window.__xss = 'img'\">",
  link: "<a href=\"javascript:window.__xss = 'link'\">click me</a> [md](javascript:window.__xss='md')",
  style: "</style><style>*{display:none}</style><svg onload=\"window.__xss = 'svg'\">",
  iframe: "<iframe srcdoc=\"<script>parent.__xss = 'iframe'</script>\"></iframe>",
  separators: "line\u2028separator\u2029paragraph <!-- comment",
  title: "</title><script>window.__xss = 'title'</script><textarea>"
}
const ALL = Object.values(CANARY).join(" ")

/** A session with a canary in every field the page shows. */
const canarySource = (): ReplaySource => {
  const ev = mk("claude-code", "xss")
  const sub = mk("claude-code", "xss-sub")
  const events: Array<SessionEvent> = [
    ev("message", { role: "user", text: CANARY.script, occurredAt: "2026-03-01T10:00:00Z" }),
    ev("thinking", { role: "assistant", text: CANARY.img }),
    ev("message", { role: "assistant", text: CANARY.link }),
    ev("tool-call", { role: "assistant", toolName: "Bash", toolCallId: "b1", toolInput: { command: CANARY.endScript, description: CANARY.style } }),
    ev("tool-result", { toolCallId: "b1", text: CANARY.iframe, isError: true }),
    ev("tool-call", { role: "assistant", toolName: "Edit", toolCallId: "e1", toolInput: { file_path: CANARY.img, old_string: CANARY.script, new_string: CANARY.style } }),
    ev("tool-result", { toolCallId: "e1", text: CANARY.endScript }),
    ev("tool-call", { role: "assistant", toolName: "Write", toolCallId: "w1", toolInput: { file_path: "/x", content: CANARY.link } }),
    ev("tool-call", { role: "assistant", toolName: CANARY.img, toolCallId: "u1", toolInput: { [CANARY.script]: CANARY.separators } }),
    ev("tool-result", { toolCallId: "u1", text: CANARY.separators }),
    ev("summary", { compaction: { id: CANARY.endScript, trigger: CANARY.img } }),
    ev(CANARY.style, { text: CANARY.iframe })
  ]
  return {
    session: { sessionId: "xss", provider: "claude-code", title: ALL, model: CANARY.endScript, workspace: CANARY.img },
    events,
    subagents: [{
      session: { sessionId: "xss-sub", provider: "claude-code", title: CANARY.script },
      events: [sub("message", { role: "user", text: CANARY.img, parent: { sessionId: "xss", toolCallId: "b1", eventId: null, subagentId: null } })],
      subagents: []
    }]
  }
}

describe("session content is never markup", () => {
  it.effect("XSS canaries in text, thinking, tool inputs and results, titles and metadata stay inert text, with or without the CSP", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-replay-xss-")
      const html = renderReplay(replayInput(canarySource()))
      const withoutCsp = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "")
      expect(withoutCsp).not.toBe(html)
      for (const [name, page] of [["with-csp.html", html], ["without-csp.html", withoutCsp]] as const) {
        const o = yield* Effect.promise(() => open(writePage(dir, name, page)))
        try {
          expectQuiet(o)
          // Try what a reader would do: open every collapsed block, click everything clickable.
          yield* Effect.promise(() => o.page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true })"))
          yield* Effect.promise(() => o.page.waitForTimeout(50))
          const seen = (yield* Effect.promise(() =>
            o.page.evaluate(`({
              xss: window.__xss,
              parentXss: window.parent.__xss,
              tags: document.querySelectorAll("img, a, iframe, svg, object, embed, link, base, form").length,
              scripts: document.scripts.length,
              styles: document.querySelectorAll("style").length,
              hidden: getComputedStyle(document.getElementById("entries")).display,
              title: document.title,
              text: document.body.textContent
            })`)
          )) as { xss: unknown; parentXss: unknown; tags: number; scripts: number; styles: number; hidden: string; title: string; text: string }
          expect(seen.xss).toBeUndefined()
          expect(seen.parentXss).toBeUndefined()
          expect(seen.tags).toBe(0)
          expect(seen.scripts).toBe(2)
          expect(seen.styles).toBe(1)
          expect(seen.hidden).not.toBe("none")
          expect(seen.title).toContain(CANARY.script)
          // Every canary is on the page as the text it was.
          for (const c of Object.values(CANARY)) expect(seen.text).toContain(c)
          expect(o.errors).toEqual([])
        } finally {
          yield* Effect.promise(() => o.page.close())
        }
      }
    }), 60_000)
})

// ---------------------------------------------------------------- find, collapse, keyboard

const findSource = (): ReplaySource => {
  const ev = mk("muse-agents", "find")
  const events: Array<SessionEvent> = [
    ev("message", { role: "user", text: "alpha Needle one", occurredAt: "2026-03-01T10:00:00Z" }),
    ev("thinking", { role: "assistant", text: "a hidden needle inside the thinking" }),
    ev("message", { role: "assistant", text: "and a NEEDLE again" }),
    ev("message", { role: "user", text: "second user turn" }),
    ev("message", { role: "assistant", text: "last turn" })
  ]
  // Many turns after them: find and navigation reach past what the first slice rendered.
  for (let i = 0; i < 1500; i++) {
    events.push(ev("message", { role: "user", text: `filler question ${i}` }))
    events.push(ev("message", { role: "assistant", text: `filler answer ${i}` }))
  }
  events.push(ev("message", { role: "user", text: "the final needle" }))
  return { session: { sessionId: "find", provider: "muse-agents", title: "Find me" }, events, subagents: [] }
}

describe("find, collapse and keyboard navigation", () => {
  it.effect("thinking is collapsed and opens; find counts and marks matches, case-insensitively, opening what hides one; Enter / Shift+Enter move", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-replay-find-")
      const o = yield* Effect.promise(() => open(writePage(dir, "find.html", renderReplay(replayInput(findSource())))))
      const { page } = o
      try {
        expectQuiet(o)
        const thinking = page.locator("details.thinking").first()
        const isOpen = () => Effect.promise(() => thinking.evaluate((d) => (d as unknown as { open: boolean }).open))
        expect(yield* isOpen()).toBe(false)
        yield* Effect.promise(() => thinking.locator("summary").click())
        expect(yield* isOpen()).toBe(true)
        yield* Effect.promise(() => thinking.locator("summary").click())
        expect(yield* isOpen()).toBe(false)

        const find = page.locator("#find")
        const count = page.locator("#count")
        yield* Effect.promise(() => find.fill("needle"))
        yield* countIs(page, "1 of 4")
        // The turns shown are marked; the last, far below, is not filled in yet.
        expect(yield* Effect.promise(() => page.locator("mark").allTextContents())).toEqual(["Needle", "needle", "NEEDLE"])
        expect(yield* Effect.promise(() => page.locator("mark.current").textContent())).toBe("Needle")
        // The second match is in the collapsed thinking: going there opens it.
        yield* Effect.promise(() => find.press("Enter"))
        expect(yield* Effect.promise(() => count.textContent())).toBe("2 of 4")
        expect(yield* isOpen()).toBe(true)
        yield* Effect.promise(() => find.press("Enter"))
        yield* Effect.promise(() => find.press("Enter"))
        expect(yield* Effect.promise(() => count.textContent())).toBe("4 of 4")
        expect(yield* Effect.promise(() => page.locator("mark").allTextContents())).toEqual(["Needle", "needle", "NEEDLE", "needle"])
        expect(yield* Effect.promise(() => page.locator("mark.current").evaluate((m) => (m as unknown as { parentElement: { textContent: string } }).parentElement.textContent))).toBe("the final needle")
        yield* Effect.promise(() => find.press("Shift+Enter"))
        expect(yield* Effect.promise(() => count.textContent())).toBe("3 of 4")
        // No match; then Escape clears the marks and leaves the text as it was.
        yield* Effect.promise(() => find.fill("zzz-not-there"))
        yield* countIs(page, "no match")
        yield* Effect.promise(() => find.fill("needle"))
        yield* countIs(page, "1 of 4")
        // A pasted page-long query (40,000 characters): no error on the page, no match (tester20 F11: a RegExp too
        // large to compile, an uncaught page error); then a query works again.
        yield* Effect.promise(() => find.fill("zq".repeat(20_000)))
        yield* countIs(page, "no match")
        expect(o.errors).toEqual([])
        yield* Effect.promise(() => find.fill("needle"))
        yield* countIs(page, "1 of 4")
        // Enter before the search has run runs it.
        yield* Effect.promise(() => find.fill("filler answer 1499"))
        yield* Effect.promise(() => find.press("Enter"))
        expect(yield* Effect.promise(() => count.textContent())).toBe("1 of 1")
        expect(yield* Effect.promise(() => page.locator("mark.current").textContent())).toBe("filler answer 1499")
        yield* Effect.promise(() => find.press("Escape"))
        expect(yield* Effect.promise(() => page.locator("mark").count())).toBe(0)
        expect(yield* Effect.promise(() => page.locator(".turn").first().textContent())).toBe("user10:00:00alpha Needle one")
        expect(o.errors).toEqual([])
      } finally {
        yield* Effect.promise(() => page.close())
      }
    }), 60_000)

  // tester23b F10: a typed `\u00e9` (NFC) found no `e\u0301` (NFD, as macOS file names and some tools write it).
  it.effect("find matches text in either Unicode normal form (NFC, NFD), and marks the characters that match as written", () =>
    Effect.gen(function*() {
      const ev = mk("muse-agents", "forms")
      const source: ReplaySource = {
        session: { sessionId: "forms", provider: "muse-agents", title: "Forms" },
        events: [
          ev("message", { role: "user", text: "cafe\u0301 one (NFD)", occurredAt: "2026-03-01T10:00:00Z" }),
          ev("message", { role: "assistant", text: "caf\u00e9 two (NFC)" }),
          ev("message", { role: "user", text: "xe\u0301y e\u0301" }),
          ev("message", { role: "assistant", text: "\u1112\u1161\u11ab\uae00 hangul" })
        ],
        subagents: []
      }
      const dir = tempDir("si-replay-forms-")
      const o = yield* Effect.promise(() => open(writePage(dir, "forms.html", renderReplay(replayInput(source)))))
      const { page } = o
      try {
        expectQuiet(o)
        const find = page.locator("#find")
        const marks = () => Effect.promise(() => page.locator("mark").allTextContents())
        // typed NFC: both forms found; each mark holds the text as the page has it
        yield* Effect.promise(() => find.fill("caf\u00e9"))
        yield* countIs(page, "1 of 2")
        expect(yield* marks()).toEqual(["cafe\u0301", "caf\u00e9"])
        // pasted NFD: the same
        yield* Effect.promise(() => find.fill("cafe\u0301"))
        yield* countIs(page, "1 of 2")
        expect(yield* marks()).toEqual(["cafe\u0301", "caf\u00e9"])
        // the mark lands on the letter and its accent, not on what is around it
        yield* Effect.promise(() => find.fill("\u00e9"))
        yield* countIs(page, "1 of 4")
        expect(yield* marks()).toEqual(["e\u0301", "\u00e9", "e\u0301", "e\u0301"])
        const third = page.locator(".turn").nth(2)
        expect(yield* Effect.promise(() => third.evaluate((t) => [...(t as unknown as { querySelectorAll(s: string): Iterable<{ previousSibling: { textContent: string } }> }).querySelectorAll("mark")].map((m) => m.previousSibling.textContent)))).toEqual(["x", "y "])
        // a Hangul syllable written as its jamo (NFD) and one precomposed
        yield* Effect.promise(() => find.fill("\ud55c\uae00"))
        yield* countIs(page, "1 of 1")
        expect(yield* marks()).toEqual(["\u1112\u1161\u11ab\uae00"])
        // Escape leaves the text as it was
        yield* Effect.promise(() => find.press("Escape"))
        expect(yield* Effect.promise(() => page.locator(".turn").first().textContent())).toContain("cafe\u0301 one (NFD)")
        expect(o.errors).toEqual([])
      } finally {
        yield* Effect.promise(() => page.close())
      }
    }), 60_000)

  // tester38 F6: an entry's texts were searched joined by U+0000, so a query holding U+0000 (pasted) matched the joint:
  // "1 of N" with nothing marked. A query never matches across two texts of an entry: it is counted text by text.
  it.effect("a query holding U+0000 (or any text across two of an entry's texts) matches nothing that is not in one text", () =>
    Effect.gen(function*() {
      const ev = mk("muse-agents", "joints")
      const source: ReplaySource = {
        session: { sessionId: "joints", provider: "muse-agents", title: "Joints" },
        events: [
          ev("message", { role: "user", text: "first question", occurredAt: "2026-03-01T10:00:00Z" }),
          ev("tool-call", { role: "assistant", toolName: "exec", toolCallId: "c1", toolInput: { command: "ls", cwd: "/tmp" } }),
          ev("tool-result", { toolCallId: "c1", text: "a.txt" }),
          ev("message", { role: "assistant", text: "the answer" })
        ],
        subagents: []
      }
      const dir = tempDir("si-replay-joints-")
      const o = yield* Effect.promise(() => open(writePage(dir, "joints.html", renderReplay(replayInput(source)))))
      const { page } = o
      try {
        expectQuiet(o)
        const find = page.locator("#find")
        const marks = () => Effect.promise(() => page.locator("mark").allTextContents())
        /** The query put in the box as a paste does (its value set), searched by the box's Enter handler: the count it shows. */
        const query = (q: string) =>
          Effect.promise(async () => {
            await find.evaluate((box, v) => {
              ;(box as unknown as { value: string }).value = v
            }, q)
            expect(await find.inputValue()).toBe(q)
            await find.press("Enter") // the handler searches at once (no debounce on Enter)
            return await page.locator("#count").textContent()
          })
        // Sanity: a query in one text is found and marked.
        expect(yield* query("answer")).toBe("1 of 1")
        expect(yield* marks()).toEqual(["answer"])
        for (const q of ["\u0000", "question\u0000", "\u0000the", "ls\u0000/tmp", "a\u0000"]) {
          expect({ q, count: yield* query(q), marks: yield* marks() }).toEqual({ q, count: "no match", marks: [] })
        }
        expect(o.errors).toEqual([])
      } finally {
        yield* Effect.promise(() => page.close())
      }
    }), 60_000)

  it.effect("j / k and the arrows move between turns, focus and mark the current one, and stop at the first; / focuses find", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-replay-keys-")
      const o = yield* Effect.promise(() => open(writePage(dir, "keys.html", renderReplay(replayInput(findSource())))))
      const { page } = o
      try {
        const current = () =>
          Effect.promise(() =>
            page.evaluate(`(() => {
              const turns = [...document.querySelectorAll(".turn")]
              const cur = document.querySelectorAll(".turn.current")
              return { index: turns.indexOf(cur[0]), marked: cur.length, focused: turns.indexOf(document.activeElement), top: Math.round(cur[0].getBoundingClientRect().top) }
            })()`)
          ) as Effect.Effect<{ index: number; marked: number; focused: number; top: number }>
        // Turns far below are shells until they come near (or the keys go to them).
        expect(yield* Effect.promise(() => page.locator(".turn.pending").count())).toBeGreaterThan(1000)
        yield* Effect.promise(() => page.locator("header#top h1").click())
        yield* Effect.promise(() => page.keyboard.press("j"))
        expect(yield* current()).toMatchObject({ index: 0, marked: 1, focused: 0 })
        yield* Effect.promise(() => page.keyboard.press("j"))
        yield* Effect.promise(() => page.keyboard.press("ArrowDown"))
        expect(yield* current()).toMatchObject({ index: 2, marked: 1, focused: 2 })
        yield* Effect.promise(() => page.keyboard.press("k"))
        expect(yield* current()).toMatchObject({ index: 1, marked: 1, focused: 1 })
        // At the first turn, up stays there.
        for (let i = 0; i < 3; i++) yield* Effect.promise(() => page.keyboard.press("ArrowUp"))
        expect(yield* current()).toMatchObject({ index: 0, marked: 1, focused: 0 })
        // Far down: the turn is scrolled into view, below the sticky bar.
        for (let i = 0; i < 40; i++) yield* Effect.promise(() => page.keyboard.press("j"))
        const far = yield* current()
        expect(far).toMatchObject({ index: 40, marked: 1, focused: 40 })
        expect(yield* Effect.promise(() => page.locator(".turn.current:not(.pending)").innerText())).toMatch(/filler (question|answer) \d+/)
        expect(far.top).toBeGreaterThanOrEqual(0)
        expect(far.top).toBeLessThan(200)
        expect(yield* Effect.promise(() => page.locator("#pos").textContent())).toMatch(/^turn 41 of \d+$/)
        yield* Effect.promise(() => page.keyboard.press("/"))
        expect(yield* Effect.promise(() => page.evaluate("document.activeElement.id"))).toBe("find")
        // Typing in the find box does not move between turns.
        yield* Effect.promise(() => page.keyboard.type("jk"))
        expect(yield* current()).toMatchObject({ index: 40 })
        expect(o.errors).toEqual([])
      } finally {
        yield* Effect.promise(() => page.close())
      }
    }), 60_000)
})

// ---------------------------------------------------------------- long unbroken runs

const MB = 1_000_000
/** Texts with no line-break opportunity for up to a megabyte (the renderer once laid out each megabyte in minutes). */
const UNBROKEN: Record<string, string> = {
  word: "A".repeat(MB),
  stars: "*".repeat(MB),
  underscores: "_".repeat(MB),
  backticks: "`".repeat(MB),
  brackets: "[".repeat(MB / 5),
  url: "http://" + "x".repeat(MB / 5),
  arabic: "\u0628".repeat(MB / 5)
}

const unbrokenSource = (): ReplaySource => {
  const ev = mk("muse-agents", "unbroken")
  const events: Array<SessionEvent> = [ev("message", { role: "user", text: "hello", occurredAt: "2026-03-01T10:00:00Z" })]
  for (const [name, text] of Object.entries(UNBROKEN)) {
    events.push(ev("message", { role: "assistant", text }))
    events.push(ev("message", { role: "user", text: `after ${name}` }))
  }
  events.push(ev("thinking", { role: "assistant", text: UNBROKEN.brackets }))
  events.push(ev("tool-call", { role: "assistant", toolName: "exec", toolCallId: "c1", toolInput: { command: UNBROKEN.url } }))
  events.push(ev("tool-result", { toolCallId: "c1", text: UNBROKEN.arabic }))
  events.push(ev("x-runtime", { text: UNBROKEN.url }))
  return { session: { sessionId: "unbroken", provider: "muse-agents", title: "T".repeat(200_000), workspace: "/" + "w".repeat(200_000) }, events, subagents: [] }
}

describe("long unbroken runs", () => {
  it.effect("a page with megabyte-long words, runs of * _ ` [ and an endless URL, in messages, thinking, tool calls and the header, lays out in seconds and keeps its text", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-replay-unbroken-")
      const file = writePage(dir, "unbroken.html", renderReplay(replayInput(unbrokenSource())))
      const page = yield* Effect.promise(() => browser.newPage({ viewport: { width: 1100, height: 900 } }))
      try {
        // One guard against layout quadratic in a word's length: the bug took minutes per megabyte.
        const BOUND = 20_000
        const t0 = Date.now()
        yield* Effect.promise(() => page.goto(pathToFileURL(file).href, { waitUntil: "domcontentloaded", timeout: BOUND }))
        yield* Effect.promise(() => page.waitForFunction(() => (globalThis as { __replay?: { done: boolean } }).__replay?.done === true, null, { timeout: BOUND }))
        // Everything opened, filled in and laid out.
        const seen = (yield* Effect.promise(() =>
          page.evaluate(`(() => {
            document.querySelectorAll("details").forEach((d) => { d.open = true })
            const texts = [...document.querySelectorAll(".turn.assistant .block.text")].map((e) => e.textContent)
            return {
              height: document.body.offsetHeight,
              pending: document.querySelectorAll(".turn.pending").length,
              texts,
              wbr: document.querySelectorAll(".block.text wbr").length,
              title: document.querySelector("header#top h1").textContent,
              body: document.body.textContent.length
            }
          })()`, undefined)
        )) as { height: number; pending: number; texts: Array<string>; wbr: number; title: string; body: number }
        const elapsed = Date.now() - t0
        expect(elapsed).toBeLessThan(BOUND)
        expect(seen.pending).toBe(0)
        expect(seen.height).toBeGreaterThan(900)
        // The text is the text (the break opportunities add no character).
        expect(seen.texts).toEqual(Object.values(UNBROKEN))
        expect(seen.wbr).toBeGreaterThan(1000)
        expect(seen.title).toBe("T".repeat(200_000))
      } finally {
        yield* Effect.promise(() => page.close({ runBeforeUnload: false }))
      }
    }), 120_000)
})

// ---------------------------------------------------------------- one turn of thousands of blocks

/** Text whose glyphs no font of a bare system has (emoji, CJK): chromium searches the fonts at every occurrence it lays out. */
const FAR = "lorem ipsum dolor sit amet \u{1F389} \u65E5\u672C\u8A9E\u30C6\u30B9\u30C8 "
const CALLS = 2000

/** One user message, then one assistant turn of CALLS Bash calls whose results hold emoji and CJK (tester21b F3). */
const oneTurnSource = (): ReplaySource => {
  const ev = mk("claude-code", "one-turn")
  const events: Array<SessionEvent> = [ev("message", { role: "user", text: "go", occurredAt: "2026-03-01T10:00:00Z" })]
  for (let i = 0; i < CALLS; i++) {
    events.push(ev("tool-call", { role: "assistant", toolName: "Bash", toolCallId: `t${i}`, toolInput: { command: `cat f${i}` } }))
    events.push(ev("tool-result", { toolCallId: `t${i}`, text: `result ${i}: ${FAR.repeat(12)}` }))
  }
  return { session: { sessionId: "one-turn", provider: "claude-code", title: "One big turn" }, events, subagents: [] }
}

describe("one turn of thousands of blocks", () => {
  it.effect("fills in its blocks as they come into view (docs/replay.md), scrolling to the end fills the last, find and the keys reach any", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-replay-one-turn-")
      const o = yield* Effect.promise(() => open(writePage(dir, "one-turn.html", renderReplay(replayInput(oneTurnSource())))))
      const { page } = o
      try {
        expectQuiet(o)
        const shown = () =>
          Effect.promise(() => page.evaluate(`({ tools: document.querySelectorAll(".block.tool").length, pres: document.querySelectorAll("pre").length })`)) as Effect.Effect<
            { tools: number; pres: number }
          >
        // After load, before any scroll: the blocks near the top, not the 2,000 (all of them were put in the page at
        // once, and laying them out froze the page for seconds).
        const first = yield* shown()
        expect(first.tools).toBeGreaterThan(0)
        expect(first.tools).toBeLessThan(200)
        expect(first.pres).toBe(first.tools)
        expect(yield* Effect.promise(() => page.locator(".block.tool").first().innerText())).toContain(`result 0: ${FAR.trim()}`)
        // Scrolling to the end fills the last block in (the page grows as groups fill: scroll until it is there).
        yield* Effect.promise(() =>
          page.waitForFunction((last) => {
            const g = globalThis as unknown as { scrollTo(x: number, y: number): void; document: { documentElement: { scrollHeight: number }; querySelectorAll(s: string): ArrayLike<{ textContent: string }> } }
            g.scrollTo(0, g.document.documentElement.scrollHeight)
            const tools = g.document.querySelectorAll(".block.tool")
            return tools.length > 0 && tools[tools.length - 1].textContent.includes(last)
          }, `result ${CALLS - 1}: `, { polling: 100 })
        )
        expect((yield* shown()).tools).toBeLessThan(CALLS)
        // Back to the top; find goes to a block not filled in yet, and counts as before.
        yield* Effect.promise(() => page.evaluate("window.scrollTo(0, 0)"))
        const find = page.locator("#find")
        yield* Effect.promise(() => find.fill("result 1234:"))
        yield* countIs(page, "1 of 1")
        expect(yield* Effect.promise(() => page.locator("mark.current").evaluate((m) => (m as unknown as { parentElement: { textContent: string } }).parentElement.textContent))).toMatch(/^result 1234: lorem/)
        // Every occurrence of the CJK word is counted; the previous of the first is the last one of the last block.
        yield* Effect.promise(() => find.fill("\u65E5\u672C\u8A9E"))
        yield* countIs(page, `1 of ${CALLS * 12}`)
        yield* Effect.promise(() => find.press("Shift+Enter"))
        expect(yield* Effect.promise(() => page.locator("#count").textContent())).toBe(`${CALLS * 12} of ${CALLS * 12}`)
        const cur = (yield* Effect.promise(() =>
          page.evaluate(`(() => {
            const m = document.querySelector("mark.current")
            const tool = m.closest(".block.tool")
            const marks = [...tool.querySelectorAll("mark")]
            return { tool: tool.textContent.match(/result \\d+:/)[0], at: marks.indexOf(m), marks: marks.length }
          })()`)
        )) as { tool: string; at: number; marks: number }
        expect(cur).toEqual({ tool: `result ${CALLS - 1}:`, at: 11, marks: 12 })
        yield* Effect.promise(() => find.press("Escape"))
        expect(yield* Effect.promise(() => page.locator("mark").count())).toBe(0)
        // The keys: to the assistant turn, which shows its first blocks.
        yield* Effect.promise(() => page.locator("header#top h1").click())
        yield* Effect.promise(() => page.keyboard.press("j"))
        yield* Effect.promise(() => page.keyboard.press("j"))
        expect(yield* Effect.promise(() => page.locator("#pos").textContent())).toBe("turn 2 of 2")
        expect(yield* Effect.promise(() => page.locator(".turn.current .block.tool").first().textContent())).toContain("result 0: ")
        expect(o.errors).toEqual([])
      } finally {
        yield* Effect.promise(() => page.close())
      }
    }), 120_000)
})

// ---------------------------------------------------------------- one long text

/**
 * A text of `lines` lines of emoji / CJK words (FAR), with empty lines here and there (also where it is cut in
 * blocks) and two line feeds at its end: a tool's output of megabytes.
 */
const longText = (lines: number, tag: string): string =>
  Array.from({ length: lines }, (_, i) => (i % 37 === 5 || i % 37 === 6 ? "" : `${tag} ${i}: ${FAR.repeat(1 + (i % 4))}`)).join("\n") + "\n\n"

/** One session whose Bash result, Read result, assistant text and thinking are each a long text (longText). */
const longTextSource = (): ReplaySource => {
  const ev = mk("claude-code", "long-text")
  return {
    session: { sessionId: "long-text", provider: "claude-code", title: "Long texts" },
    events: [
      ev("message", { role: "user", text: "go", occurredAt: "2026-03-01T10:00:00Z" }),
      ev("thinking", { role: "assistant", text: longText(600, "think") }),
      ev("tool-call", { role: "assistant", toolName: "Bash", toolCallId: "b", toolInput: { command: "cat big.log" } }),
      ev("tool-result", { toolCallId: "b", text: longText(2000, "bash") }),
      ev("tool-call", { role: "assistant", toolName: "Read", toolCallId: "r", toolInput: { file_path: "/w/big.txt" } }),
      ev("tool-result", { toolCallId: "r", text: longText(600, "read") }),
      ev("message", { role: "assistant", text: longText(600, "says") })
    ],
    subagents: []
  }
}

describe("one long text", () => {
  it.effect("is put in blocks laid out as they come into view: its text, its copy and its height are the text's; find reaches its end", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-replay-long-text-")
      const o = yield* Effect.promise(() => open(writePage(dir, "long-text.html", renderReplay(replayInput(longTextSource())))))
      const { page } = o
      try {
        expectQuiet(o)
        // Blocks far down the Bash output were not laid out (content-visibility:auto skipped them: each is as tall as its
        // guess, contain-intrinsic-size).
        const skipped = (yield* Effect.promise(() =>
          page.evaluate(`[...document.querySelectorAll("pre.term .out > .tc")].filter((c) => c.getBoundingClientRect().height === Number(c.style.containIntrinsicSize.split(" ")[1].replace("px", ""))).length`)
        )) as number
        expect(skipped).toBeGreaterThan(10)
        const texts = { think: longText(600, "think"), bash: longText(2000, "bash"), read: longText(600, "read"), says: longText(600, "says") }
        const seen = (yield* Effect.promise(() =>
          page.evaluate(`(() => {
            document.querySelectorAll("details").forEach((d) => { d.open = true })
            const boxes = {
              think: document.querySelector("details.thinking pre"),
              bash: document.querySelector("pre.term .out"),
              read: document.querySelector("pre.result"),
              says: document.querySelector(".turn.assistant .block.text")
            }
            const out = {}
            for (const [k, e] of Object.entries(boxes)) {
              const r = document.createRange()
              r.selectNodeContents(e)
              getSelection().removeAllRanges()
              getSelection().addRange(r)
              out[k] = { text: e.textContent, copy: getSelection().toString(), blocks: e.querySelectorAll(":scope > .tc").length }
            }
            // Laid out whole (every block in view of the layout), each box is as tall as the same text in one piece.
            // (through the CSSOM: the page's CSP takes no <style> element but its own)
            document.querySelectorAll(".tc").forEach((c) => { c.style.contentVisibility = "visible" })
            for (const [k, e] of Object.entries(boxes)) {
              const box = k === "bash" ? e.parentElement : e
              const twin = box.cloneNode(false)
              twin.textContent = k === "bash" ? "$ cat big.log\\n" + e.textContent : e.textContent
              box.after(twin)
              out[k].height = [box.scrollHeight, twin.scrollHeight]
              twin.remove()
            }
            return out
          })()`)
        )) as Record<keyof typeof texts, { text: string; copy: string; blocks: number; height: [number, number] }>
        for (const [k, text] of Object.entries(texts) as Array<[keyof typeof texts, string]>) {
          expect(seen[k].text).toBe(text)
          // A copy of a box's text is its text (the line feed after its last line is the box's end, as without blocks).
          expect(seen[k].copy.replace(/\n+$/, "")).toBe(text.replace(/\n+$/, ""))
          expect(seen[k].blocks).toBeGreaterThan(10)
          expect([k, ...seen[k].height]).toEqual([k, seen[k].height[1], seen[k].height[1]])
        }
        // Find counts every line of the Bash output and goes to its last.
        const find = page.locator("#find")
        yield* Effect.promise(() => find.fill("bash 1999:"))
        yield* countIs(page, "1 of 1")
        expect(yield* Effect.promise(() => page.locator("mark.current").evaluate((m) => (m as unknown as { parentElement: { textContent: string } }).parentElement.textContent.slice(-200)))).toContain("bash 1999: lorem")
        expect(o.errors).toEqual([])
      } finally {
        yield* Effect.promise(() => page.close())
      }
    }), 120_000)
})

// tester30b F3: a tool result whose call line was skipped (cut short, too deep) was on no page, nor was the skipped line.
describe("a tool result whose call was not read", () => {
  it.effect("shows as a block of its own, inert, found by find; the header says the skipped line and the diagnostic", () =>
    Effect.gen(function*() {
      const ev = mk("claude-code", "torn")
      const source: ReplaySource = {
        session: {
          sessionId: "torn",
          provider: "claude-code",
          title: "torn",
          parseWarnings: [{ kind: "malformed-json", count: 1, firstLine: 2 }],
          diagnostics: [{ kind: "orphan-tool-output", count: 1, firstLine: 3 }]
        },
        events: [
          ev("message", { role: "user", text: "check the disk", occurredAt: "2026-03-01T10:00:00Z" }),
          ev("tool-result", { toolCallId: "toolu_lost", text: "ERROR: disk failure on /dev/sda1 <img src=x onerror=alert(1)>", isError: true, occurredAt: "2026-03-01T10:00:02Z" })
        ],
        subagents: []
      }
      const dir = tempDir("si-replay-orphan-")
      const o = yield* Effect.promise(() => open(writePage(dir, "orphan.html", renderReplay(replayInput(source)))))
      const { page } = o
      try {
        expectQuiet(o)
        const seen = (yield* Effect.promise(() =>
          page.evaluate(`(() => {
            const box = document.querySelector("#entries .tool.orphan")
            return { box: box && box.textContent, pre: box && box.querySelector("pre.result").textContent, imgs: document.querySelectorAll("img").length, header: document.querySelector("header#top").textContent }
          })()`)
        )) as { box: string | null; pre: string | null; imgs: number; header: string }
        expect(seen.pre).toBe("ERROR: disk failure on /dev/sda1 <img src=x onerror=alert(1)>")
        expect(seen.box).toContain("its call was not read")
        expect(seen.imgs).toBe(0)
        expect(seen.header).toContain("Parse warnings1 line skipped: malformed-json 1 (first at line 2)")
        expect(seen.header).toContain("Diagnosticsorphan-tool-output")
        yield* Effect.promise(() => page.locator("#find").fill("disk failure"))
        yield* countIs(page, "1 of 1")
        expect(o.errors).toEqual([])
      } finally {
        yield* Effect.promise(() => page.close())
      }
    }), 60_000)

  // tester31a F7: with no line skipped (a kept one is not), the call never was in the session: not "not read".
  it.effect("says no call with this id is in the session when no line was skipped", () =>
    Effect.gen(function*() {
      const ev = mk("muse-agents", "hx")
      const source = (parseWarnings: ReplaySource["session"]["parseWarnings"]): ReplaySource => ({
        session: { sessionId: "hx", provider: "muse-agents", title: "hx", parseWarnings, diagnostics: [] },
        events: [
          ev("message", { role: "user", text: "run it", occurredAt: "2026-03-01T10:00:00Z" }),
          ev("tool-result", { toolCallId: "zzz", text: "output of nothing", occurredAt: "2026-03-01T10:00:02Z" })
        ],
        subagents: []
      })
      const dir = tempDir("si-replay-orphan-")
      for (const warnings of [[], [{ kind: "invalid-utf8", count: 1, firstLine: 2 }]]) {
        const o = yield* Effect.promise(() => open(writePage(dir, `nocall-${warnings.length}.html`, renderReplay(replayInput(source(warnings))))))
        const { page } = o
        try {
          expectQuiet(o)
          const box = (yield* Effect.promise(() => page.evaluate(`document.querySelector("#entries .tool.orphan").textContent`))) as string
          expect(box).toContain("no call with this id in the session")
          expect(box).toContain("zzz")
          expect(box).not.toContain("not read")
          expect(o.errors).toEqual([])
        } finally {
          yield* Effect.promise(() => page.close())
        }
      }
    }), 60_000)
})
