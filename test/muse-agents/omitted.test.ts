/**
 * Issue 11, item 6: what seed 000 leaves out is said, not silent. A Muse
 * agents transcript without a `session_header`, or without prompts and tool
 * calls, is not listed (seed 000), but discover names it in a diagnostic with
 * its reason and import counts it by reason; coverage stays complete (the
 * seed excludes it, nothing was missed). And `discover agentmux --agent
 * <unknown uid>` says what `import` says: partial, no sources, a diagnostic
 * naming the agent, exit 8 from the CLI.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { storeFiles, UID } from "../agentmux/fixture.js"
import { createStore } from "../agentmux/store-helper.js"
import { discover, importRun, isolatedPolicy } from "../gauntlet/harness.js"
import { importOnce } from "../support/index.js"
import { cli } from "../support/run.js"
import { copyFixtures, FIXTURE_ROOT, jl, removeDir, tempDir, withAdapter, writeTranscript } from "./helpers.js"

const temps: Array<string> = []
afterAll(() => temps.forEach(removeDir))

const fresh = () => {
  const dir = tempDir()
  temps.push(dir)
  return dir
}

describe("muse-agents: transcripts the seed leaves out are counted and explained", () => {
  it.effect("discover: a diagnostic per omitted transcript with its reason, counts by reason, coverage complete", () =>
    Effect.gen(function*() {
      const r = yield* withAdapter(FIXTURE_ROOT, (a) => a.discover({}))
      expect(r.coverage).toBe("complete")
      expect(r.sources.map((s) => s.locator.agentId)).toEqual(["cron-first", "delegate", "messy"])
      expect(r.omitted).toEqual({ "no-session-header": 1, "no-prompts-or-tool-calls": 1 })
      const omitted = r.diagnostics.filter((d) => d.code === "SESSION_OMITTED")
      expect(omitted.map((d) => d.details)).toEqual([
        { agentId: "headless", reason: "no-session-header" },
        { agentId: "quiet", reason: "no-prompts-or-tool-calls" }
      ])
      // Content-free: the agent folder and the reason, no prompt text.
      for (const d of omitted) expect(d.message).toMatch(/^(headless|quiet)\/sessions\/(headless|quiet)\.jsonl is not listed/)
    }))

  it.effect("discover: a header with only compactions and assistant text is omitted as no-prompts-or-tool-calls", () =>
    Effect.gen(function*() {
      const root = nodePath.join(fresh(), "agents")
      writeTranscript(root, "talker", jl({ type: "session_header", session_id: "s-t" }) +
        jl({ type: "item", item: { type: "message", role: "assistant", text: "hello?" } }) +
        jl({ type: "compaction_checkpoint", compaction_id: 1, trigger: "auto" }))
      writeTranscript(root, "empty", "")
      const r = yield* withAdapter(root, (a) => a.discover({}))
      expect(r).toMatchObject({ coverage: "complete", sourceCount: 0, omitted: { "no-prompts-or-tool-calls": 1, "no-session-header": 1 } })
      expect(r.diagnostics.map((d) => [d.code, d.details])).toEqual([
        ["SESSION_OMITTED", { agentId: "empty", reason: "no-session-header" }],
        ["SESSION_OMITTED", { agentId: "talker", reason: "no-prompts-or-tool-calls" }]
      ])
    }))

  it.effect("discover: a header whose session_id is a number or empty is no session header: omitted, and the message says why", () =>
    Effect.gen(function*() {
      const root = nodePath.join(fresh(), "agents")
      const prompt = jl({ type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text: "hi" } })
      writeTranscript(root, "numeric", jl({ type: "session_header", session_id: 12345 }) + prompt)
      writeTranscript(root, "blank", jl({ type: "session_header", session_id: "" }) + prompt)
      const r = yield* withAdapter(root, (a) => a.discover({}))
      expect(r).toMatchObject({ coverage: "complete", sourceCount: 0, omitted: { "no-session-header": 2 } })
      for (const d of r.diagnostics.filter((x) => x.code === "SESSION_OMITTED")) {
        expect(d.message).toContain("has no session_header record with a session_id (a non-empty string)")
      }
    }))

  it.effect("import: the report counts omitted transcripts by reason; coverage complete", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const root = copyFixtures()
      temps.push(nodePath.dirname(root))
      const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: root }
      const r = yield* importOnce(policy, nodePath.join(dir, "index.db"), planFromPolicy(policy, {}))
      expect(r.coverage).toBe("complete")
      expect(r.sources).toMatchObject({ discovered: 3, accepted: 3, omitted: 2, omittedByReason: { "no-session-header": 1, "no-prompts-or-tool-calls": 1 } })
      expect(r.providers.find((p) => p.provider === "muse-agents")).toMatchObject({
        coverage: "complete",
        omitted: { "no-session-header": 1, "no-prompts-or-tool-calls": 1 }
      })
    }))
})

describe("agentmux: an agent UID with no sessions is partial in discover, as in import", () => {
  const setup = () => {
    const dir = fresh()
    const priv = nodePath.join(dir, "private")
    fs.mkdirSync(priv)
    const store = nodePath.join(dir, "store", "filestore.db")
    fs.mkdirSync(nodePath.dirname(store))
    createStore(store, storeFiles())
    return { priv, store, policy: isolatedPolicy(priv, { agentmuxStore: store }) }
  }

  it.effect("discover --agent <unknown>: partial, NO_SOURCES, no sources, a diagnostic naming the agent; import says the same", () =>
    Effect.gen(function*() {
      const s = setup()
      const d = yield* discover("agentmux", s.policy, { agentId: "no-such-agent" })
      expect(d).toMatchObject({ status: "checked", coverage: "partial", sourceCount: 0, sources: [], reasonCode: "NO_SOURCES" })
      expect(d.remediation).toMatch(/--agent|UID/)
      const diag = d.diagnostics.find((x) => x.code === "NO_SOURCES")!
      expect(diag.message).toContain("no-such-agent")
      expect(diag.details).toMatchObject({ agentId: "no-such-agent" })
      const i = yield* importRun(s.priv, s.policy, { agents: ["no-such-agent"] })
      expect(i.coverage).toBe("partial")
      expect(i.providers.find((p) => p.provider === "agentmux")).toMatchObject({ coverage: "partial", sourceCount: 0, reasonCode: "NO_SOURCES" })
      // The known agent is complete in both.
      const known = yield* discover("agentmux", s.policy, { agentId: UID })
      expect(known).toMatchObject({ coverage: "complete", reasonCode: null })
      expect(known.sourceCount).toBeGreaterThan(0)
    }))

  it.effect("discover with no store at the path: partial (a named agent found nothing), as import says", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const policy = isolatedPolicy(dir, {})
      const d = yield* discover("agentmux", policy, { agentId: UID })
      expect(d).toMatchObject({ status: "unavailable", coverage: "partial", reasonCode: "STORE_ABSENT", sources: [] })
      const i = yield* importRun(dir, policy, { agents: [UID] })
      expect(i.providers.find((p) => p.provider === "agentmux")).toMatchObject({ coverage: "partial", reasonCode: "STORE_ABSENT" })
    }))

  it("the CLI: discover of an unknown agent exits 8 (partial coverage, as import), with the envelope's data saying why", () => {
    const s = setup()
    const args = ["discover", "agentmux", "--agent", "no-such-agent", "--store", s.store, "--state", nodePath.join(s.priv, "state.db")]
    const r = cli([...args, "--json"], { env: { NO_COLOR: "1" } })
    expect(r.code).toBe(8)
    const env = JSON.parse(r.stdout)
    expect(env.status).toBe("ok")
    expect(env.data).toMatchObject({ coverage: "partial", reasonCode: "NO_SOURCES", sourceCount: 0 })
    const text = cli(args, { env: { NO_COLOR: "1" } })
    expect(text.code).toBe(8)
    expect(text.stdout).toContain("coverage: partial")
    expect(text.stdout).toContain("no-such-agent")
  })
})
