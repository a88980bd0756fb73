/**
 * The stored form of an event uid (its 16 bytes) made without the hex text
 * (`eventUidBytes`, the import's hot path) is the uid the index has always
 * given: ids are part of the contract and must not change.
 */
import { describe, expect, it } from "@effect/vitest"
import { eventUid, eventUidBytes } from "../../src/domain/index/ids.js"
import { uidBytes, uidText } from "../../src/layers/index/sqlite-writer.js"
import { prng } from "../support/prng.js"

describe("eventUidBytes", () => {
  it("is the 16 bytes of eventUid, for ids of every kind of text", () => {
    const r = prng(13)
    const alphabet = ["a", "Z", "0", "-", ":", "\u0000", "é", "中", "😀", " ", "\n", "\\"]
    const text = () => Array.from({ length: r.int(41) }, () => r.pick(alphabet)).join("")
    for (let i = 0; i < 500; i++) {
      const ids = [text(), `sha256:${text()}`, text(), text()] as const
      const bytes = eventUidBytes(...ids)
      expect(bytes.length).toBe(16)
      expect(uidText(bytes)).toBe(eventUid(...ids))
      expect(bytes.equals(uidBytes(eventUid(...ids)))).toBe(true)
    }
  })

  it("a known uid stays what it was", () => {
    // sha256("muse-code\0sha256:abc\0s-1\0e-1"), first 16 bytes: the uid earlier builds stored
    expect(uidText(eventUidBytes("muse-code", "sha256:abc", "s-1", "e-1"))).toBe("evt_5bb065c8b83fb3aa8d4b15fac27838c3")
  })
})
