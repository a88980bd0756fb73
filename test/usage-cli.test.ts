/**
 * Tokens and cost through the CLI (issue 18, part 2): `sessions` shows them
 * where known and a blank where the source reports none (never 0);
 * `sessions --json` and `show` carry `usage: {inputTokens, outputTokens,
 * cacheReadTokens, cacheWriteTokens, costUsd}`; `export --format atif` fills
 * `metrics` and `final_metrics`; `usage --by day|session|model|provider|
 * workspace` reports from the index, names its price table, and takes
 * prices from the config file.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { S } from "./claude-code/helpers.js"
import { copyFixtures } from "./claude-code/helpers.js"
import { fixturesDir, tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const run = (args: ReadonlyArray<string>) => cli(args, { env: { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", XDG_CONFIG_HOME: nodePath.join(tempDir("si-xdg-"), "none") } })
const json = (args: ReadonlyArray<string>) => {
  const r = run([...args, "--json"])
  return { code: r.code, ...(JSON.parse(r.stdout) as { status: string; data: any; error: any }) }
}

/** The `usage --json` total when no response counts: every number 0 (a cost of $0 is known, never null). */
const zeroTotal = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0, costUsd: 0, responses: 0 }

const setup = (() => {
  let made: { index: string; dir: string; version: string } | undefined
  return () => {
    if (made !== undefined) return made
    const root = copyFixtures()
    const dir = tempDir("si-usage-cli-")
    const index = nodePath.join(dir, "index.db")
    const r = json(["import", "--index", index, "--claude-root", root, "--agents-root", nodePath.join(fixturesDir, "muse-agents/agents")])
    expect(r.code).toBe(0)
    const version = (JSON.parse(fs.readFileSync(nodePath.join(fixturesDir, "..", "data", "prices.json"), "utf8")) as { version: string }).version
    made = { index, dir, version }
    return made
  }
})()

describe("tokens and cost via the CLI", () => {
  it("sessions --json: usage on every row, each null where unknown; S3 from its costUSD, S1 from the price table", () => {
    const { index } = setup()
    const r = json(["sessions", "--index", index])
    expect(r.code).toBe(0)
    const by = new Map((r.data as Array<any>).map((s) => [s.sessionId, s.usage]))
    expect(by.get(S.S3)).toEqual({ inputTokens: 12, outputTokens: 271, cacheReadTokens: 43968, cacheWriteTokens: 1530, cacheWrite1hTokens: null, costUsd: expect.closeTo(0.023029, 12) })
    expect(by.get(S.S1)).toEqual({ inputTokens: 15, outputTokens: 1230, cacheReadTokens: 155299, cacheWriteTokens: 7784, cacheWrite1hTokens: 0, costUsd: expect.closeTo(0.0942747, 12) })
    // Muse agents report no usage (seed 000): null, never 0.
    expect(by.get("sess-cron")).toEqual({ inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null, costUsd: null })
  })

  it("sessions: tokens and cost columns, blank (never 0) where the source reports none", () => {
    const { index } = setup()
    const r = run(["sessions", "--index", index])
    expect(r.code).toBe(0)
    const [header, ...rows] = r.stdout.trimEnd().split("\n")
    const tokensAt = header.indexOf("tokens")
    const costAt = header.indexOf("cost")
    const sessionAt = header.indexOf("session")
    expect(tokensAt).toBeGreaterThan(0)
    expect(costAt).toBeGreaterThan(tokensAt)
    const s3 = rows.find((l) => l.includes(S.S3))!
    // 12 + 271 + 43968 + 1530 = 45781 tokens, $0.023029
    expect(s3.slice(tokensAt - 8, sessionAt)).toMatch(/45,781\s+\$0\.0230/)
    const cron = rows.find((l) => l.includes("sess-cron"))!
    expect(cron.slice(tokensAt - 8, sessionAt).trim()).toMatch(/^\d+$/) // only the event count: no tokens, no cost
    expect(cron.slice(tokensAt - 8, sessionAt)).not.toMatch(/\$|\b0\s+\$/)
  })

  it("show --json carries the session's usage; its text and Markdown say it", () => {
    const { index } = setup()
    const ev = json(["show", S.S6, "--index", index])
    expect(ev.data.session.usage).toEqual({ inputTokens: 13, outputTokens: 413, cacheReadTokens: 81818, cacheWriteTokens: 10035, cacheWrite1hTokens: 0, costUsd: expect.closeTo(0.11401775, 12) })
    const none = json(["show", "sess-cron", "--index", index])
    expect(none.data.session.usage).toEqual({ inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, cacheWrite1hTokens: null, costUsd: null })
    // The transcript itself stays what `transcript` gives; its text and Markdown end with the usage line where known.
    const text = run(["show", S.S6, "--format", "transcript", "--index", index])
    expect(text.stdout).toMatch(/tokens: 13 in, 413 out, 81,818 cache read, 10,035 cache write · cost \$0\.1140\n$/)
    expect(run(["show", S.S6, "--format", "markdown", "--index", index]).stdout).toMatch(/tokens: 13 in, 413 out, 81,818 cache read, 10,035 cache write · cost \$0\.1140/)
    expect(run(["show", "sess-cron", "--format", "transcript", "--index", index]).stdout).not.toMatch(/tokens:/)
  })

  it("export --format atif: per-step metrics and final_metrics (prompt = input + cache read + cache write)", () => {
    const { dir, index } = setup()
    const out = nodePath.join(dir, `s3-${Date.now()}.json`)
    expect(run(["export", S.S3, "--format", "atif", "--index", index, "--out", out]).code).toBe(0)
    const t = JSON.parse(fs.readFileSync(out, "utf8"))
    const metrics = t.steps.filter((s: any) => s.metrics != null).map((s: any) => s.metrics)
    // The main chain's three responses (the sidechain is its own trajectory); msg_01lD5FIy once, with its last usage.
    expect(metrics.map((m: any) => [m.prompt_tokens, m.completion_tokens, m.cached_tokens, m.cost_usd])).toEqual([
      [4 + 14216 + 0, 97, 14216, 0.005732],
      [4 + 14216 + 1320, 143, 14216, 0.011372],
      [4 + 15536 + 210, 31, 15536, 0.005925]
    ])
    expect(t.final_metrics).toMatchObject({
      total_prompt_tokens: 12 + 43968 + 1530,
      total_completion_tokens: 271,
      total_cached_tokens: 43968,
      total_cost_usd: expect.closeTo(0.023029, 12)
    })
  })

  it("usage --by each grouping: rows and total from the index, the price table named", () => {
    const { index, version } = setup()
    const by = (g: string, extra: ReadonlyArray<string> = []) => json(["usage", "--index", index, "--by", g, ...extra])
    const day = by("day")
    expect(day.code).toBe(0)
    expect(day.data.prices).toMatchObject({ file: "data/prices.json", version, overridden: [] })
    expect(day.data.rows.map((r: any) => r.key)).toEqual([...day.data.rows.map((r: any) => r.key)].sort())
    // Claude Code's 6 sessions + the inline sidechain: all tokens of EXPECTED.md, summed per column.
    const total = day.data.total
    expect([total.inputTokens, total.outputTokens]).toEqual([
      15 + 18 + 20 + 19 + expectedS5().input + 13,
      1230 + 633 + 400 + 657 + expectedS5().output + 413
    ])
    const model = by("model")
    expect(model.data.rows.map((r: any) => r.key).sort()).toEqual([
      "claude-haiku-4-5-20251001",
      "claude-opus-4-5-20251101",
      "claude-sonnet-4-20250514",
      "claude-sonnet-4-5-20250929"
    ])
    expect(model.data.rows.find((r: any) => r.key === "claude-sonnet-4-20250514").costUsd).toBeCloseTo(0.03169, 12)
    expect(by("provider").data.rows.map((r: any) => r.key)).toEqual(["claude-code"])
    const sessions = by("session").data.rows
    expect(sessions.find((r: any) => r.key === S.S3)).toMatchObject({ provider: "claude-code", inputTokens: 12, costUsd: expect.closeTo(0.023029, 12) })
    expect(sessions.some((r: any) => r.key === "sess-cron")).toBe(false) // no usage: not in the report
    // a workspace is redacted as shareable outputs redact it (tester35a F12: a home folder becomes `~`); --no-redact: as stored
    expect(by("workspace").data.rows.map((r: any) => r.key).sort()).toEqual(["~/code/billing-api", "~/src/web_app.v2"])
    expect(by("workspace", ["--no-redact"]).data.rows.map((r: any) => r.key).sort()).toEqual(["/home/alice/code/billing-api", "/home/alice/src/web_app.v2"])
    const human = run(["usage", "--index", index, "--by", "model"])
    expect(human.code).toBe(0)
    expect(human.stdout).toContain(`data/prices.json ${version}`)
    expect(human.stdout).toMatch(/claude-sonnet-4-20250514/)
    expect(by("day", ["--since", "2099-01-01"]).data).toMatchObject({ rows: [], total: zeroTotal })
    expect(by("day", ["--since", "2025-07-08", "--until", "2025-07-08"]).data.rows.map((r: any) => r.key)).toEqual(["2025-07-08"])
  })

  it("usage whose filters match nothing: says so (naming the filters), not 'no usage in the index'; --json total of zeros, the shape of a non-empty total", () => {
    const { index } = setup()
    const full = json(["usage", "--index", index]).data.total
    const cases: ReadonlyArray<[ReadonlyArray<string>, string]> = [
      [["--workspace", "/elsewhere"], "--workspace /elsewhere"],
      [["--since", "2030-01-01"], "--since 2030-01-01"],
      [["--until", "2001-01-01", "--by", "model"], "--until 2001-01-01"],
      // Muse agents sessions are in the index, but report no usage (seed 000).
      [["--provider", "muse-agents", "--by", "session"], "--provider muse-agents"],
      [["--since", "2030-01-01", "--provider", "claude-code", "--workspace", "/elsewhere"], "--since 2030-01-01, --provider claude-code, --workspace /elsewhere"]
    ]
    for (const [filters, named] of cases) {
      const text = run(["usage", "--index", index, ...filters])
      expect(text.code).toBe(0)
      expect(text.stdout).not.toMatch(/no usage in the index/)
      expect(text.stdout).toContain(`no usage matches these filters (${named})`)
      const r = json(["usage", "--index", index, ...filters])
      expect(r.code).toBe(0)
      expect(r.data.rows).toEqual([])
      expect(r.data.total).toEqual(zeroTotal)
      expect(Object.keys(r.data.total).sort()).toEqual(Object.keys(full).sort())
      expect(r.data.notes).toEqual([])
    }
  })

  it("usage on an index with no usage at all keeps its own message (also with a filter); --json total of zeros", () => {
    const dir = tempDir("si-usage-none-")
    const index = nodePath.join(dir, "index.db")
    // Muse agents report no usage (seed 000); the empty Claude Code root makes coverage partial (exit 8), the index is written.
    const imported = json(["import", "--index", index, "--agents-root", nodePath.join(fixturesDir, "muse-agents/agents"), "--claude-root", (fs.mkdirSync(nodePath.join(dir, "claude")), nodePath.join(dir, "claude"))])
    expect([0, 8]).toContain(imported.code)
    expect(json(["sessions", "--index", index]).data.length).toBeGreaterThan(0)
    for (const filters of [[], ["--since", "2030-01-01"], ["--provider", "muse-agents"]]) {
      const text = run(["usage", "--index", index, ...filters])
      expect(text.code).toBe(0)
      expect(text.stdout).toContain("no usage in the index")
      expect(text.stdout).not.toMatch(/matches these filters/)
      expect(json(["usage", "--index", index, ...filters]).data).toMatchObject({ rows: [], total: zeroTotal, notes: [] })
    }
  })

  it("usage: prices from the config file override the table, and the output says so", () => {
    const { dir, index } = setup()
    const config = nodePath.join(dir, "config.json")
    fs.writeFileSync(config, JSON.stringify({ prices: { "claude-opus-4-5-20251101": { input: 0, output: 1000000, cacheRead: 0, cacheWrite: 0 } } }))
    const r = json(["usage", "--index", index, "--by", "model", "--config", config])
    expect(r.code).toBe(0)
    expect(r.data.prices).toMatchObject({ overridden: ["claude-opus-4-5-20251101"], overrideFile: config })
    // S6 is the only opus session: 413 output tokens at $1 each.
    expect(r.data.rows.find((x: any) => x.key === "claude-opus-4-5-20251101").costUsd).toBeCloseTo(413, 9)
    const bad = json(["usage", "--index", index, "--config", (fs.writeFileSync(config, JSON.stringify({ prices: { m: { input: -1 } } })), config)])
    expect(bad.code).not.toBe(0)
    expect(bad.error.code).toBe("INVALID_ARGUMENT")
  })

  it("usage: a config price of 1e400 (JSON.parse gives Infinity) is refused at load like -1, naming the key (tester36a F6)", () => {
    const { dir, index } = setup()
    const config = nodePath.join(dir, "inf.json")
    const refused = (text: string) => {
      fs.writeFileSync(config, text)
      const r = json(["usage", "--index", index, "--by", "model", "--config", config])
      expect(r.code).toBe(2)
      expect(r.error.code).toBe("INVALID_ARGUMENT")
      return r.error.message as string
    }
    expect(refused('{"prices":{"claude-sonnet-4-5-20250929":{"input":1e400,"output":2,"cacheRead":0.1,"cacheWrite":1}}}')).toContain(
      "prices.claude-sonnet-4-5-20250929.input: Expected a finite number, actual Infinity"
    )
    // Every number of a price: cacheWrite1h, and the rates of longContext and fast.
    expect(refused('{"prices":{"m":{"input":1,"output":2,"cacheRead":0,"cacheWrite":1,"cacheWrite1h":1e999}}}')).toContain("prices.m.cacheWrite1h: Expected a finite number")
    expect(refused('{"prices":{"m":{"input":1,"output":2,"cacheRead":0,"cacheWrite":1,"longContext":{"input":1,"output":1e400,"cacheRead":0,"cacheWrite":0}}}}')).toContain(
      "prices.m.longContext.output: Expected a finite number"
    )
    expect(refused('{"prices":{"m":{"input":1,"output":2,"cacheRead":0,"cacheWrite":1,"fast":{"input":1,"output":1,"cacheRead":1e400,"cacheWrite":0}}}}')).toContain(
      "prices.m.fast.cacheRead: Expected a finite number"
    )
    // The config's other numbers (limits) are integers: Infinity is no integer.
    expect(refused('{"limits":{"maxDocumentBytes":1e400}}')).toContain("limits.maxDocumentBytes")
  })
})

/** S5's tokens (EXPECTED.md, "S5: malformed and non-object lines"), read from the table there. */
function expectedS5(): { input: number; output: number } {
  const md = fs.readFileSync(nodePath.join(fixturesDir, "claude-code", "EXPECTED.md"), "utf8")
  const section = md.slice(md.indexOf("## S5"), md.indexOf("## S6"))
  const m = /\*\*session total\*\*\s*\|\s*\*\*(\d+)\*\*\s*\|\s*\*\*(\d+)\*\*/.exec(section)!
  return { input: Number(m[1]), output: Number(m[2]) }
}
