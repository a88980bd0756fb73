/**
 * Token sums past 2^53 − 1 (tester15 F7): a sum a double cannot hold exactly
 * is not trustworthy, so every command says it is unknown (JSON null, `?` for
 * people) and says why (`notExact`, a note), never a rounded number; and
 * every command gives the same value for the same session. A finite cost is
 * shown however large; a cost that is unknown says why in the notes.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { bundledPrices, withOverrides } from "../src/domain/prices.js"
import { humanUsd } from "../src/domain/render.js"
import { groupRows, roundUsd, summarizeGroups, type UsageRow } from "../src/domain/usage.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const MAX = Number.MAX_SAFE_INTEGER
const SID = "77777777-2222-4333-8444-555555555555"
const MODEL = "claude-sonnet-4-5-20250929"
const j = (v: unknown) => JSON.stringify(v)
const base = { isSidechain: false, cwd: "/tmp/x", sessionId: SID, version: "2.1.14" }
const user = (uuid: string) =>
  j({ ...base, parentUuid: null, type: "user", message: { role: "user", content: "hi" }, uuid, timestamp: "2026-01-15T08:30:04.775Z" })
const asst = (uuid: string, id: string, usage: unknown) =>
  j({
    ...base, parentUuid: null, type: "assistant", requestId: `req-${id}`, uuid, timestamp: "2026-01-15T08:30:05.775Z",
    message: { model: MODEL, id, type: "message", role: "assistant", content: [{ type: "text", text: `answer ${id}` }], usage }
  })

const row = (k: number, input: number, output: number, costUsd: number | null = null): UsageRow => ({
  sourceId: "s", sessionId: "x", key: `e:${k}`, kind: "response", provider: "claude-code", eventId: `${k}`, sequence: k,
  occurredAt: null, model: MODEL, usage: { inputTokens: input, outputTokens: output, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null },
  costUsd, runSeq: null
})

describe("token sums past 2^53 - 1", () => {
  it("a sum a double cannot hold exactly is null and named in notExact; a sum that fits is exact", () => {
    const rows = [row(0, MAX, MAX), ...Array.from({ length: 8 }, (_, i) => row(i + 1, 10, 20))]
    const total = summarizeGroups(groupRows(rows, () => null), null).get(null)!
    expect(total.inputTokens).toBeNull()
    expect(total.outputTokens).toBeNull()
    expect(total.notExact).toEqual(["inputTokens", "outputTokens"])
    expect(total.responses).toBe(9)
    const fits = summarizeGroups(groupRows([row(0, MAX - 80, 5), ...Array.from({ length: 8 }, (_, i) => row(i + 1, 10, 20))], () => null), null).get(null)!
    expect(fits.inputTokens).toBe(MAX)
    expect(fits.outputTokens).toBe(165)
    expect(fits.notExact).toEqual([])
  })

  it("a finite cost is kept however large (roundUsd never overflows to Infinity)", () => {
    expect(roundUsd(1e303)).toBe(1e303)
    expect(roundUsd(0.1234567891234)).toBe(0.123456789)
    const priced = withOverrides(bundledPrices, { [MODEL]: { input: 1e308, output: 0, cacheRead: 0, cacheWrite: 0 } }, "c.json")
    const total = summarizeGroups(groupRows([row(0, 10, 20)], () => null), priced).get(null)!
    expect(total.costUsd).toBeCloseTo(1e303, -290)
    expect(total.costNotFinite).toBe(false)
  })

  it("a cost past the largest double is null and says so (costNotFinite)", () => {
    const total = summarizeGroups(groupRows([row(0, 1, 1, 1.7e308), row(1, 1, 1, 1.7e308)], () => null), bundledPrices).get(null)!
    expect(total.costUsd).toBeNull()
    expect(total.costNotFinite).toBe(true)
    expect(total.unpriced).toEqual([])
  })

  const project = () => {
    const dir = tempDir("si-usage-exact-")
    const root = nodePath.join(dir, "projects")
    fs.mkdirSync(nodePath.join(root, "-tmp-x"), { recursive: true })
    fs.writeFileSync(nodePath.join(root, "-tmp-x", `${SID}.jsonl`), [
      user("u0"),
      asst("a0", "msg_0", { input_tokens: MAX, output_tokens: MAX }),
      ...Array.from({ length: 8 }, (_, i) => asst(`a${i + 1}`, `msg_${i + 1}`, { input_tokens: 10, output_tokens: 20 }))
    ].join("\n") + "\n")
    return { dir, root, index: nodePath.join(dir, "idx.db") }
  }
  const env = () => ({ NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", XDG_CONFIG_HOME: nodePath.join(tempDir("si-xdg-"), "none") })

  it("the CLI: usage, sessions, show and export ATIF agree (unknown, with the reason), none prints a rounded sum", () => {
    const p = project()
    const e = env()
    const run = (...args: Array<string>) => cli(args, { env: e })
    const json = (...args: Array<string>) => JSON.parse(run(...args, "--json").stdout) as { status: string; data: any }
    expect(json("import", "--claude-root", p.root, "--agents-root", p.root, "--index", p.index).status).toBe("ok")

    const usage = json("usage", "--by", "session", "--index", p.index).data
    expect(usage.total.inputTokens).toBeNull()
    expect(usage.total.outputTokens).toBeNull()
    expect(usage.total.notExact).toEqual(["inputTokens", "outputTokens"])
    expect(usage.rows[0].inputTokens).toBeNull()
    expect(usage.notes).toContainEqual(expect.objectContaining({ kind: "tokens-not-exact", counts: ["inputTokens", "outputTokens"] }))

    const session = (json("sessions", "--index", p.index).data as Array<any>).find((s) => s.sessionId === SID)
    expect(session.usage.inputTokens).toBeNull()
    expect(session.usage.outputTokens).toBeNull()
    expect(session.usage.notExact).toEqual(["inputTokens", "outputTokens"])
    const shown = json("show", SID, "--index", p.index).data.session.usage
    expect(shown).toEqual(session.usage)

    const atif = JSON.parse(run("export", SID, "--format", "atif", "--index", p.index).stdout)
    const fm = (Array.isArray(atif) ? atif[0] : atif).final_metrics
    expect(fm.total_prompt_tokens).toBeUndefined()
    expect(fm.total_completion_tokens).toBeUndefined()
    expect(fm.extra.input_tokens).toBeUndefined()
    expect(fm.extra.not_exact).toEqual(["total_prompt_tokens", "total_completion_tokens", "input_tokens"])
    expect(fm.extra.responses).toBe(9)

    const human = [
      run("usage", "--by", "session", "--index", p.index).stdout,
      run("sessions", "--index", p.index).stdout,
      run("show", SID, "--format", "transcript", "--index", p.index).stdout,
      run("export", SID, "--format", "atif", "--index", p.index).stdout
    ].join("\n")
    // No rounded sum anywhere: neither 9007199254741072 nor ...070 nor 9.0e15 shown as if exact.
    expect(human).not.toMatch(/9,?007,?199,?254,?741,?0\d\d|9\.007\d*e\+?15/)
    expect(run("usage", "--by", "session", "--index", p.index).stdout).toMatch(/note: .*2\^53/)
    expect(run("sessions", "--index", p.index).stdout).toMatch(/2\^53/)
    expect(run("show", SID, "--format", "transcript", "--index", p.index).stdout).toMatch(/2\^53/)
  })

  // tester30b F4, with its repro's shape (repro/overflow.py): 1,100 responses of claude-sonnet-4-5, each of the four
  // counts 2^53 - 1 (valid). Each sum is 1,100 x 9,007,199,254,740,991 = 9,907,919,180,215,090,100: past 2^53 - 1.
  const overflow = () => {
    const dir = tempDir("si-usage-ovf-")
    const root = nodePath.join(dir, "projects")
    fs.mkdirSync(nodePath.join(root, "-srv-ovf"), { recursive: true })
    const all = { input_tokens: MAX, output_tokens: MAX, cache_read_input_tokens: MAX, cache_creation_input_tokens: MAX }
    const line = (sid: string, uuid: string, id: string, usage: unknown) =>
      j({
        ...base, sessionId: sid, parentUuid: null, type: "assistant", requestId: `rq-${id}`, uuid, timestamp: "2026-11-27T10:00:01Z",
        message: { model: "claude-sonnet-4-5", id, type: "message", role: "assistant", content: [{ type: "text", text: `r ${id}` }], usage }
      })
    fs.writeFileSync(nodePath.join(root, "-srv-ovf", `${SID}.jsonl`), [
      user("o0"),
      ...Array.from({ length: 1100 }, (_, i) => line(SID, `o${i + 1}`, `mo${i}`, all))
    ].join("\n") + "\n")
    // One response of 2^53 - 1 and one of 5 input tokens: 9,007,199,254,740,996, past it; 2^53 - 1 output tokens: exact.
    const EDGE = "77777777-2222-4333-8444-666666666666"
    fs.writeFileSync(nodePath.join(root, "-srv-ovf", `${EDGE}.jsonl`), [
      j({ ...base, sessionId: EDGE, parentUuid: null, type: "user", message: { role: "user", content: "hi" }, uuid: "e0", timestamp: "2026-11-27T10:00:00Z" }),
      line(EDGE, "e1", "me1", { input_tokens: MAX, output_tokens: MAX }),
      line(EDGE, "e2", "me2", { input_tokens: 5, output_tokens: 0 })
    ].join("\n") + "\n")
    return { dir, root, index: nodePath.join(dir, "ovf.db"), edge: EDGE }
  }

  it("show --json's session.summary.tokens and tokensByPart: a sum past 2^53 - 1 is null and named in notExact, as elsewhere (tester30b F4)", () => {
    const p = overflow()
    const e = env()
    const json = (...args: Array<string>) => JSON.parse(cli([...args, "--json"], { env: e }).stdout) as { status: string; data: any }
    expect(json("import", "--claude-root", p.root, "--agents-root", p.root, "--index", p.index).status).toBe("ok")
    const summary = json("show", SID, "--index", p.index).data.session.summary
    const unknown = { input: null, output: null, cacheRead: null, cacheWrite: null, costUSD: null, messages: 1100, notExact: ["input", "output", "cacheRead", "cacheWrite"] }
    expect(summary.tokens).toEqual(unknown)
    expect(summary.tokensByPart.main).toEqual(unknown)
    // A part without usage sums to exact zeros: no notExact key.
    expect(summary.tokensByPart.sidechain).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, costUSD: null, messages: 0 })
    // A sum that fits is kept exact; the one past 2^53 - 1 is not (never 9007199254740996 rounded).
    const edge = json("show", p.edge, "--index", p.index).data.session.summary.tokens
    expect(edge).toEqual({ input: null, output: MAX, cacheRead: 0, cacheWrite: 0, costUSD: null, messages: 2, notExact: ["input"] })
    // The session's usage says the same counts are unknown.
    expect(json("show", SID, "--index", p.index).data.session.usage.notExact).toEqual(["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"])
  })

  it("one cost per session: usage, sessions, show and the replay's header print the same (tester30b F4)", () => {
    const p = overflow()
    const e = env()
    const run = (...args: Array<string>) => cli(args, { env: e })
    const json = (...args: Array<string>) => JSON.parse(run(...args, "--json").stdout) as { status: string; data: any }
    expect(json("import", "--claude-root", p.root, "--agents-root", p.root, "--index", p.index).status).toBe("ok")
    const cost = json("show", SID, "--index", p.index).data.session.usage.costUsd as number
    // 4,400 counts of 2^53 - 1 at $3 / $15 / $0.30 / $3.75 per million: about $362,629,841,995,872.30 (a double holds it to 1/16 of a dollar).
    expect(cost).toBeCloseTo(362_629_841_995_872.3, -1)
    expect((json("sessions", "--index", p.index).data as Array<any>).find((s) => s.sessionId === SID).usage.costUsd).toBe(cost)
    expect((json("usage", "--by", "session", "--index", p.index).data.rows as Array<any>).map((r) => r.costUsd)).toContain(cost)
    const page = nodePath.join(p.dir, "r.html")
    expect(run("replay", SID, "--index", p.index, "--out", page).code).toBe(0)
    const html = fs.readFileSync(page, "utf8")
    expect(html).toContain(`${humanUsd(cost)} (USD)`)
    expect(run("sessions", "--index", p.index).stdout).toContain(humanUsd(cost))
  })

  it("the CLI: a price of 1e308 per million tokens gives a finite cost, shown; no `?` without a note", () => {
    const p = project()
    // One small response only: its cost at 1e308 per million tokens is finite (about 1e303).
    fs.writeFileSync(nodePath.join(p.root, "-tmp-x", `${SID}.jsonl`), [user("u0"), asst("a0", "msg_0", { input_tokens: 10, output_tokens: 20 })].join("\n") + "\n")
    const config = nodePath.join(p.dir, "config.json")
    fs.writeFileSync(config, j({ prices: { [MODEL]: { input: 1e308, output: 0, cacheRead: 0, cacheWrite: 0 } } }))
    const e = env()
    const run = (...args: Array<string>) => cli(args, { env: e })
    expect(run("import", "--claude-root", p.root, "--agents-root", p.root, "--index", p.index).code).toBe(0)
    const usage = JSON.parse(run("usage", "--index", p.index, "--config", config, "--json").stdout).data
    expect(usage.total.costUsd).toBeCloseTo(1e303, -290)
    expect(usage.notes).toEqual([])
    // With a second response the cost overflows: unknown, and the note says why.
    // (a prompt of 10,000,000 tokens is over 200k: priced at the price's long-context rates, the same here)
    const huge = { input: 1.7e308, output: 1.7e308, cacheRead: 0, cacheWrite: 0 }
    fs.writeFileSync(config, j({ prices: { [MODEL]: { ...huge, longContext: huge } } }))
    fs.writeFileSync(nodePath.join(p.root, "-tmp-x", `${SID}.jsonl`), [user("u0"), asst("a0", "msg_0", { input_tokens: 10_000_000, output_tokens: 10_000_000 })].join("\n") + "\n")
    expect(run("import", "--claude-root", p.root, "--agents-root", p.root, "--index", p.index).code).toBe(0)
    const over = JSON.parse(run("usage", "--index", p.index, "--config", config, "--json").stdout).data
    expect(over.total.costUsd).toBeNull()
    expect(over.notes).toContainEqual(expect.objectContaining({ kind: "cost-not-finite" }))
    expect(run("usage", "--index", p.index, "--config", config).stdout).toMatch(/note: .*cost/)
  })
})
