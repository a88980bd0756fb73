/**
 * The gauntlet's `import` across every provider at once: one run over roots
 * that hold good and broken sources of all three providers gives the exact
 * coverage report the policies imply (fail-closed sources rejected with their
 * codes, tolerant ones accepted with their good records), without a defect,
 * within the time limit, with every source byte-identical; a second run finds
 * the accepted sources unchanged and adds nothing. (Each provider's own file
 * has the import column of every case.)
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { CURRENT, init, UID } from "../agentmux/fixture.js"
import { createStore, tsidxRecord } from "../agentmux/store-helper.js"
import { filler, metadata } from "../muse-code/native-lines.js"
import { CONTROL, nested } from "./cases.js"
import { caseDir, expectOk, GAUNTLET_TIMEOUT, guarded, importRun, isolatedPolicy, put, rejectedCodes } from "./harness.js"

const line = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v)) + "\n"

const world = () => {
  const dir = caseDir()
  const priv = nodePath.join(dir, "private")
  const src = nodePath.join(dir, "src")
  const ws = nodePath.join(src, "ws")
  const muse = nodePath.join(src, "muse")
  const agents = nodePath.join(src, "agents")
  const storeDir = nodePath.join(src, "agentmux")
  for (const d of [priv, ws, muse, agents, storeDir]) fs.mkdirSync(d, { recursive: true })
  // muse-code native: one good log, one with a NUL inside a line after its evidence (fail closed: rejected).
  put(muse, "2026/09/25/good/session.jsonl", line(metadata(0, ws)) + line(filler(1)))
  put(muse, "2026/09/25/bad/session.jsonl", line(metadata(0, ws)) + `{"sequence":1,"payload_type":"x","s":"${CONTROL}"}\n`)
  // muse-code exports: one good, one 100 levels deep (RESOURCE_LIMIT_EXCEEDED).
  const exportDoc = (extra: string) =>
    `{"export_schema_version":1,"sessions":[{"session_id":"E"}],"events":[{"kind":"record","envelope":{"sequence":0,"stream":{"id":"E"},"payload_type":"p","payload":{"d":${extra}}}}]}`
  const goodExport = put(ws, "good.json", exportDoc("1"))
  const deepExport = put(ws, "deep.json", exportDoc(nested(100)))
  // muse-agents: null, a torn line continued by a whole one on the same physical line (both lost: one
  // malformed line), and a 100-deep line, among good messages (tolerant: accepted, "hello" and "bye").
  const item = (seq: number, text: string) =>
    JSON.stringify({ type: "item", seq, source: "runtime", item: { type: "message", role: "user", text }, created_at: "2026-09-25T10:00:00Z" })
  put(
    agents,
    "a1/sessions/a1.jsonl",
    line({ type: "session_header", session_id: "A1", agent_id: "a1" }) + line(item(1, "hello")) + "null\n" + item(2, "torn").slice(0, 20) +
      line(item(3, "again")) + `{"deep":${nested(100)}}\n` + line(item(4, "bye"))
  )
  // agentmux: session S with an unreadable line (tolerant: accepted).
  const out = `${init("S", "/w")}\n{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]},"session_id":"S"}\n\u0000\n`
  createStore(nodePath.join(storeDir, "filestore.db"), [
    { zoneId: CURRENT, name: "output", bytes: Buffer.from(out) },
    { zoneId: CURRENT, name: "output.tsidx", bytes: Buffer.from(tsidxRecord(0, 1_790_349_213_000)) }
  ])
  const policy = isolatedPolicy(priv, {
    workspaceRoots: [ws],
    museRoots: [muse],
    agentsRoot: agents,
    agentmuxStore: nodePath.join(storeDir, "filestore.db")
  })
  return { priv, src, policy, exports: [goodExport, deepExport] }
}

describe("gauntlet: import over every provider's broken sources at once", () => {
  it.effect("one run: the exact coverage report; a second run: everything accepted is unchanged", () =>
    Effect.gen(function*() {
      const w = world()
      const run = () => importRun(w.priv, w.policy, { agents: [UID], exports: w.exports })
      const r = expectOk(yield* guarded([w.src], run()))
      expect(rejectedCodes(r)).toEqual({ MALFORMED_SOURCE: 1, RESOURCE_LIMIT_EXCEEDED: 1 })
      expect(r.sources).toMatchObject({ discovered: 6, accepted: 4, rejected: 2 })
      // native good 2 + export good 1 + agents 2 (hello, bye) + agentmux 1
      expect(r.eventsAdded).toBe(2 + 1 + 2 + 1)
      expect(r.coverage).toBe("partial")
      const again = expectOk(yield* guarded([w.src], run()))
      expect(again.sources).toMatchObject({ accepted: 0, rejected: 2 })
      expect(again.sources.unchanged + again.sources.accepted).toBe(4)
      expect(again.eventsAdded).toBe(0)
    }), GAUNTLET_TIMEOUT)
})
