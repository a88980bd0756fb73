/**
 * tester22b F6: `?key=<UUID>` was redacted by `url-query-secret`, though docs/redaction.md promises UUIDs stay: a
 * UUID under `key=` (or `auth=`) is an idempotency or object key, no secret. A real key under `key=`, and a UUID
 * under a credential's name (`api_key=`, `token=`), still go.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction as r } from "../../src/services/Redaction.js"

const Q = marker("url-query-secret")
const UUID = "550e8400-e29b-41d4-a716-446655440000"

describe("redaction 22 (tester22b F6): a UUID under key= stays", () => {
  it("a canonical UUID as the whole value of key= or auth= stays, in any case, before &, # or a quote", () => {
    for (const t of [
      `GET /v1/objects?key=${UUID}`,
      `https://api.example.com/x?key=${UUID.toUpperCase()}&page=2`,
      `https://x.example.com/y?auth=${UUID}#top`,
      `{"url": "https://x.example.com/?key=${UUID}"}`
    ]) expect(r.text(t), t).toBe(t)
  })

  it("a key that is no UUID, a UUID with more after it, and a UUID under a credential's name go", () => {
    expect(r.text("?key=abcd1234efgh5678ijkl")).toBe(`?key=${Q}`)
    expect(r.text(`?key=${UUID}x1`)).toBe(`?key=${Q}`)
    expect(r.text(`?key=${UUID}-more9`)).toBe(`?key=${Q}`)
    expect(r.text(`?api_key=${UUID}`)).toBe(`?api_key=${Q}`)
    expect(r.text(`&token=${UUID}`)).toBe(`&token=${Q}`)
  })
})
