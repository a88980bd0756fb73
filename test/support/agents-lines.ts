import * as fs from "node:fs"
import * as path from "node:path"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import { tempDir } from "./paths.js"
/**
 * Lines of a Muse agents transcript (seed 000) for the push tests: a `session_header` of agent `agentId`, and a user
 * message `item` numbered `seq` (its `created_at` a second per seq, within one minute).
 */
export const agentsHeader = (sessionId: string, agentId: string) =>
  JSON.stringify({ type: "session_header", session_id: sessionId, agent_id: agentId, created_at: "2025-04-01T11:00:00Z" }) + "\n"

/** A user message `item` line numbered `seq` (see {@link agentsHeader}). */
export const agentsItem = (seq: number, text: string) =>
  JSON.stringify({
    type: "item",
    seq,
    source: "runtime",
    item: { type: "message", role: "user", text },
    created_at: `2025-04-01T11:00:${String(seq % 60).padStart(2, "0")}Z`
  }) + "\n"

/**
 * A Muse agents root of `sources` transcripts of `events` messages each, in a
 * fresh temp folder: its access policy, an import plan of batches of 50, and
 * a local index path beside it (the PostgreSQL failure tests' corpus).
 */
export const agentsCorpus = (sources: number, events: number) => {
  const dir = tempDir()
  const agents = path.join(dir, "agents")
  for (let s = 0; s < sources; s++) {
    const folder = path.join(agents, `agent-${s}`, "sessions")
    fs.mkdirSync(folder, { recursive: true })
    let text = agentsHeader(`s-${s}`, `agent-${s}`)
    for (let i = 1; i <= events; i++) text += agentsItem(i, `message ${i} of session ${s}, some words to carry`)
    fs.writeFileSync(path.join(folder, `agent-${s}.jsonl`), text)
  }
  const policy = { workspaceRoots: [dir], museRoots: [], agentsRoot: agents }
  return { dir, agents, policy, plan: planFromPolicy(policy, { batchSize: 50 }), local: path.join(dir, "local.db") }
}
