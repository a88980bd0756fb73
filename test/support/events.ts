/** Hand-built SessionEvents for the domain tests. */
import type { ProviderId, SessionEvent } from "../../src/domain/model.js"
import { CONTRACT_VERSION } from "../../src/domain/model.js"

/** The extension namespace of a provider's events. */
export const nsOf = (p: ProviderId) => (p === "muse-code" ? "native.muse" : `native.${p}`)

/** A constructor of sequential events of one session: `mk(provider, sessionId)(kind, fields, native)`. */
export const mk = (provider: ProviderId, sessionId: string) => {
  let seq = 0
  return (kind: string, fields: Partial<SessionEvent> = {}, native: Record<string, unknown> = {}): SessionEvent => {
    seq++
    return {
      contractVersion: CONTRACT_VERSION,
      provider,
      sourceId: `sha256:${sessionId}`,
      sessionId,
      eventId: provider === "muse-code" ? `muse-seq-${seq}` : `line-${seq}`,
      sequence: seq,
      kind,
      role: null,
      toolName: null,
      toolCallId: null,
      model: null,
      occurredAt: null,
      text: null,
      cursor: `cursor-${seq}`,
      rawReference: { locatorClass: "muse-agent-transcript", sequence: seq },
      extensions: { [nsOf(provider)]: native },
      toolInput: null,
      isError: null,
      compaction: null,
      parent: null,
      child: null,
      usage: null,
      responseId: null,
      costUsd: null,
      ...fields
    }
  }
}
