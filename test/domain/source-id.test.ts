import { describe, expect, it } from "vitest"
import { redactLocator } from "../../src/domain/source-id.js"

const ID = "sha256:0123456789abcdef0123"

describe("redactLocator", () => {
  it("keeps the id's first 12 hex digits and the last non-empty path segment, never the folders above", () => {
    expect(redactLocator(ID, "/root/2026/01/02/s1/session.jsonl")).toBe("0123456789ab…/session.jsonl")
    expect(redactLocator(ID, "C:\\Users\\me\\export.json")).toBe("0123456789ab…/export.json")
    expect(redactLocator(ID, "/mixed\\sep/agent-1.jsonl")).toBe("0123456789ab…/agent-1.jsonl")
    expect(redactLocator(ID, "/a/folder//")).toBe("0123456789ab…/folder")
    expect(redactLocator(ID, "dir\\sub\\\\")).toBe("0123456789ab…/sub")
    expect(redactLocator(ID, "plain")).toBe("0123456789ab…/plain")
    expect(redactLocator(ID, "")).toBe("0123456789ab…/")
    expect(redactLocator(ID, "///")).toBe("0123456789ab…/")
  })
})
