/**
 * Session 20 (tester19 F1's rest): a vendor token a bit longer or shorter than the one length gitleaks or trufflehog
 * pins (Groq: gitleaks says 48 after `gsk_`, trufflehog 52; a Vault service token "longer than 100 chars" in
 * gitleaks' own sample) goes whole: each vendor rule takes the whole run of its characters after the prefix, from a
 * floor that keeps prose (`xai-based`, `gsk_test`) and placeholders (`xai-xxxx…`) out.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction

const AL = "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3rSt6vWx9zAb2dEf5hIj8lMn1pQr4tUv7xYz0bCd3fGh6jKl9nOp2rSt5vWx8zQ"
const HEX = "0f3a9c2e7b1d4f6a8c0e2b4d6f8a1c3e9b7d5f3e1c0a2e4b6d8f0a1c3e5b7d9f0f3a9c2e7b1d4f6a8c0e2b4d6f8a1c3e"
const B64 = `${AL}${AL}`.replace(/Q/g, "_").replace(/W/g, "-")
/** `prefix` and a body of `n` characters of `chars`, alone, in a command and in a sentence: the marker of `id` each time. */
const goesAt = (id: string, prefix: string, chars: string, ns: ReadonlyArray<number>) => {
  for (const n of ns) {
    const key = j(prefix, chars.slice(0, n))
    expect(chars.length, `${id} ${n}`).toBeGreaterThanOrEqual(n)
    expect(r.text(key), `${id} ${n}`).toBe(marker(id))
    expect(r.text(`export K=1; echo ${key} | vendor login`), `${id} ${n}`).toBe(`export K=1; echo ${marker(id)} | vendor login`)
    gone(`the key (${key}) works`, key, "the key (", ") works")
  }
}

describe("session 20: vendor tokens of other lengths than the canonical one", () => {
  it("the whole run after the prefix goes, shorter and longer", () => {
    goesAt("groq-key", "gsk_", AL, [44, 48, 52, 56, 64])
    goesAt("xai-key", "xai-", AL, [48, 72, 80, 84, 96])
    goesAt("vault-token", "hvs.", B64, [70, 90, 120, 130, 200])
    goesAt("vault-token", "hvb.", B64, [120, 138, 180])
    goesAt("google-oauth-secret", "GOCSPX-", B64, [26, 28, 32])
    goesAt("digitalocean-token", "dop_v1_", HEX, [48, 63, 64, 65, 72])
    goesAt("shopify-token", "shpat_", HEX, [28, 31, 32, 33, 40])
    goesAt("sentry-token", "sntryu_", HEX, [48, 63, 64, 65, 80])
    goesAt("linear-api-key", "lin_api_", AL, [36, 39, 40, 41, 48])
    goesAt("databricks-token", "dapi", HEX, [30, 31, 32, 33, 40])
    goesAt("telegram-bot-token", "7123456789:AA", B64.replace(/^A/, "x"), [30, 31, 32, 33, 34, 36])
    for (const [a, b] of [[24, 34], [22, 34], [24, 32], [26, 36]]) {
      expect(r.text(j("PMAK-", HEX.slice(0, a), "-", HEX.slice(0, b)))).toBe(marker("postman-api-key"))
    }
    for (const [a, b] of [[32, 8], [30, 8], [32, 10], [36, 7]]) {
      expect(r.text(j("glsa_", AL.slice(0, a), "_", HEX.slice(0, b)))).toBe(marker("grafana-token"))
    }
    // Sentry's organization token: its base64 JSON payload, `_`, and the secret of 43, or of another length, or none
    const payload = Buffer.from(JSON.stringify({ iat: 1700000000.5, url: "https://sentry.io", region_url: "https://us.sentry.io", org: "acme" })).toString("base64")
    for (const tail of ["_" + AL.slice(0, 43), "_" + AL.slice(0, 16), "_" + AL.slice(0, 50), ""]) {
      const key = j("sntrys_", payload, tail)
      expect(r.text(`SENTRY=1 sentry-cli --auth-token-file x ${key} done`), tail).toBe(`SENTRY=1 sentry-cli --auth-token-file x ${marker("sentry-token")} done`)
    }
    // a Discord bot token with a longer HMAC
    const discord = j(Buffer.from("1234567890123456789").toString("base64url"), ".GhAbCd.", AL.slice(0, 50))
    expect(r.text(`client.login("${discord}")`)).toBe(`client.login("${marker("discord-bot-token")}")`)
  })

  it("prose, placeholders and short runs stay", () => {
    stays("an xai-based agent, gsk_test, gsk_live_key, hvs.default, dop_v1_abc, shpat_deadbeef, lin_api_key, dapiClient")
    stays(j("xai-", "x".repeat(80), " gsk_", "x".repeat(52), " lin_api_", "X".repeat(40)))
    stays(j("xai-", "grok_model_integration_guidelines_for_all_teams"))
    stays(j("gsk_", AL.slice(0, 39), " xai-", AL.slice(0, 39), " lin_api_", AL.slice(0, 31)))
    stays(j("dop_v1_", HEX.slice(0, 39), " shpat_", HEX.slice(0, 23), " dapi", HEX.slice(0, 27), " sntryu_", HEX.slice(0, 39)))
    stays(j("hvs.", B64.slice(0, 59), " GOCSPX-", B64.slice(0, 23)))
    stays(j("123456789:AA", B64.slice(0, 27)))
    // another alphabet stays: upper-case hex under a lower-case hex prefix, a run longer than the ceiling
    stays(j("dop_v1_", HEX.slice(0, 64).toUpperCase()))
    stays(j("gsk_", AL.repeat(3)))
  })
})
