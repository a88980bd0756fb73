/**
 * `resources/list` (tester29b F1, LOW): an incomplete session (its import or push stopped part-way, `status`
 * `incomplete`) was listed like a whole one, its description naming the events imported so far as the session's,
 * while reading the resource fails (STORE_UNAVAILABLE, session-incomplete). Its description now says so first
 * (docs/mcp.md: "listed and searched, marked, but never read as a whole"); a complete session's is unchanged.
 */
import { describe, expect, it } from "vitest"
import type { SessionBrief } from "../../src/layers/mcp/answers.js"
import { resourceOf } from "../../src/layers/mcp/server.js"

const brief = (status: SessionBrief["status"]): SessionBrief => ({
  id: "s-1",
  uid: "hses_1",
  uri: "session://hses_1",
  provider: "claude-code",
  title: "a title",
  workspace: "~/w",
  machine: null,
  firstAt: "2026-01-01T00:00:00Z",
  lastAt: "2026-01-01T01:00:00Z",
  eventCount: 5000,
  status
})

describe("resources/list: an incomplete session is marked", () => {
  it("says it is incomplete, with the events imported so far, before the rest", () => {
    const d = resourceOf(brief("incomplete")).description ?? ""
    expect(d.startsWith("incomplete: 5000 events imported so far, not readable until its import or push completes it")).toBe(true)
    expect(d).toContain("claude-code session s-1")
  })

  it("a complete session's description is as before", () => {
    expect(resourceOf(brief("complete")).description).toBe("claude-code session s-1, 5000 events, last active 2026-01-01T01:00:00Z, in ~/w")
  })
})
