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
