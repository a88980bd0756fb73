/**
 * A shown session uid (`hses_<32 hex>`, what redacted outputs give) and a native session id share one namespace
 * when `show`, `export`, `replay` and the MCP tools take an id: a Muse agents `session_id` is free text, so a
 * session may be named by another session's shown uid (tester25a F7). Such an id names two sessions: an ambiguity,
 * refused as an ambiguous prefix is (InvalidArgument, both candidates named), never one of them silently. A shown
 * prefix that names several sessions is ambiguous too, not "no session" (F8), and the shown uid's hex is read
 * whatever its case.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { findSession } from "../../src/layers/index/queries.js"
import { Index } from "../../src/services/Index.js"
import { importOnce, indexLayer } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { shownIdsOf } from "../support/shown-ids.js"

const header = (session: string, agent: string) =>
  JSON.stringify({ type: "session_header", session_id: session, agent_id: agent, created_at: "2026-11-22T08:00:00Z" }) + "\n"
const prompt = (text: string) =>
  JSON.stringify({ type: "item", seq: 1, source: "runtime", item: { type: "message", role: "user", text }, created_at: "2026-11-22T08:00:01Z" }) + "\n"

/** An agents root holding one transcript per `[agent, session id, first prompt]`. */
const agentsRoot = (dir: string, sessions: ReadonlyArray<readonly [string, string, string]>) => {
  const root = path.join(dir, "agents")
  for (const [agent, session, text] of sessions) {
    fs.mkdirSync(path.join(root, agent, "sessions"), { recursive: true })
    fs.writeFileSync(path.join(root, agent, "sessions", `${agent}.jsonl`), header(session, agent) + prompt(text))
  }
  return root
}

const run = <A, E>(index: string, e: Effect.Effect<A, E, Index>) => Effect.runPromise(Effect.either(Effect.provide(e, indexLayer(index))))

/** Index two sessions, then a third whose native id is the shown uid of the first. */
const spoofed = async () => {
  const dir = tempDir()
  const index = path.join(dir, "i.db")
  const policy = { workspaceRoots: [dir], agentsRoot: agentsRoot(dir, [["a1", "s-real", "hello"], ["a2", "s-other", "other"]]) }
  await Effect.runPromise(importOnce(policy, index, planFromPolicy(policy, {})))
  const uids = await run(index, Effect.flatMap(Index, (i) => i.findSessions("s-real")))
  if (uids._tag === "Left") throw new Error("no s-real")
  const realUid = uids.right[0].sessionUid
  const shown = shownIdsOf(index).sessionUid(realUid)
  agentsRoot(dir, [["spoof", shown, "I am the spoof session"]])
  await Effect.runPromise(importOnce(policy, index, planFromPolicy(policy, {})))
  const spoofRows = await run(index, Effect.flatMap(Index, (i) => i.findSessions(shown)))
  if (spoofRows._tag === "Left") throw new Error("no spoof")
  const spoofUid = spoofRows.right[0].sessionUid
  return { index, realUid, shown, spoofUid, spoofShown: shownIdsOf(index).sessionUid(spoofUid) }
}

describe("a shown uid that is also a native session id (tester25a F7)", () => {
  it("the whole shown uid, a prefix of it, or its upper case: refused as ambiguous, naming both sessions", async () => {
    const s = await spoofed()
    for (const given of [s.shown, s.shown.slice(0, 20), s.shown.toUpperCase()]) {
      const got = await run(s.index, findSession(given))
      if (given === s.shown.toUpperCase()) {
        // No native id is the upper-case form: the shown uid alone names a session, the real one.
        expect(got._tag === "Right" && got.right.session.sessionUid, given).toBe(s.realUid)
        continue
      }
      expect(got._tag, given).toBe("Left")
      if (got._tag === "Left") {
        expect(got.left._tag).toBe("InvalidArgument")
        // Both named as redacted outputs name them: the real session by its shown uid, the spoof by its native id
        // and its own shown uid; never a real uid (an MCP client reads the message).
        expect(got.left.message.split(s.shown).length - 1).toBe(given === s.shown ? 3 : 2)
        expect(got.left.message).toContain(`(a native session id, of the session shown as ${s.spoofShown})`)
        expect(JSON.stringify(got.left)).not.toContain(s.realUid)
        expect(JSON.stringify(got.left)).not.toContain(s.spoofUid)
      }
    }
  })

  it("the real uid and the spoof's own uid still name one session each", async () => {
    const s = await spoofed()
    const real = await run(s.index, findSession(s.realUid))
    expect(real._tag === "Right" && real.right.session.sessionId).toBe("s-real")
    const spoof = await run(s.index, findSession(s.spoofUid))
    expect(spoof._tag === "Right" && spoof.right.session.sessionId).toBe(s.shown)
    const byShown = await run(s.index, findSession(s.spoofShown))
    expect(byShown._tag === "Right" && byShown.right.session.sessionId).toBe(s.shown)
  })
})

describe("shown uid prefixes (tester25a F8)", () => {
  it("`hses_` alone, naming every session, is ambiguous, not 'no session'", async () => {
    const dir = tempDir()
    const index = path.join(dir, "i.db")
    const policy = { workspaceRoots: [dir], agentsRoot: agentsRoot(dir, [["a1", "s-1", "one"], ["a2", "s-2", "two"]]) }
    await Effect.runPromise(importOnce(policy, index, planFromPolicy(policy, {})))
    const got = await run(index, findSession("hses_"))
    expect(got._tag === "Left" && got.left._tag).toBe("InvalidArgument")
    expect(got._tag === "Left" && got.left.message).toMatch(/ambiguous/)
  })
})
