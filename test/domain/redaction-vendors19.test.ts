/**
 * tester19 F1: bare tokens of common vendors, known by a fixed prefix (Groq, xAI, HashiCorp Vault, Google OAuth,
 * DigitalOcean, Shopify, Sentry, Discord, Telegram, Linear, Postman, Grafana, Databricks), survived every redacted
 * output. Each goes now, in prose, a shell command, JSON and JSON text in a string, with its own rule id; near misses
 * (a body well under the rule's floor, another charset, the prefix inside a word, ordinary words that share the prefix) stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, j, stays } from "../support/redaction-asserts.js"
import { secretSamples } from "../support/secrets.js"

const r = defaultRedaction

const IDS = [
  "groq-key", "xai-key", "vault-token", "google-oauth-secret", "google-oauth-token", "digitalocean-token", "shopify-token",
  "sentry-token", "discord-bot-token", "telegram-bot-token", "linear-api-key", "postman-api-key", "grafana-token", "databricks-token"
]

const HEX32 = "0f3a9c2e7b1d4f6a8c0e2b4d6f8a1c3e"
const HEX64 = HEX32 + "9b7d5f3e1c0a2e4b6d8f0a1c3e5b7d9f"
const AL52 = "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3rSt6vWx9z"
/** A Telegram bot token's secret after its `AA`: 33 base64url characters. */
const TG33 = "Fx9Kq2LmN4pR6sT8vW0yZ1aB3cD5eF7gH"

describe("tester19 F1: vendor tokens", () => {
  it("each sample goes with its rule's id, in prose, a command, JSON and JSON text in a string", () => {
    const samples = secretSamples()
    for (const id of IDS) {
      expect(samples[id]?.length, id).toBeGreaterThan(0)
      for (const key of samples[id]) {
        expect(r.text(key), key).toBe(marker(id))
        expect(gone(`echo ${key} | gh secret set X`, key, "echo ", " | gh secret set X")).toBe(`echo ${marker(id)} | gh secret set X`)
        expect(r.text(`the key is (${key}), ok`)).toBe(`the key is (${marker(id)}), ok`)
        gone(`{"out": ["${key}"]}`, key)
        gone(inString(`{"out": "${key}"}`), key)
      }
    }
  })

  it("the realistic shapes", () => {
    expect(r.text(j("GROQ_KEY is gsk_", AL52, "."))).toBe(`GROQ_KEY is ${marker("groq-key")}.`)
    expect(r.text(j("vault login hvs.", "CAESIJ", "x".repeat(84), "Q7"))).toBe(`vault login ${marker("vault-token")}`)
    expect(r.text(j("secret GOCSPX-", "h_QXSXFZbyP1G0gPpHY5HDEwKOEC"))).toBe(`secret ${marker("google-oauth-secret")}`)
    expect(r.text(j("Bearer ya29.", "a0AfH6SMBx3kLq9Zp2Yw8Vt5Rn1Mj7Hg4Fd0Sa6Qe"))).toContain("[REDACTED:")
    expect(r.text(j("doctl auth init -t dop_v1_", HEX64))).toBe(`doctl auth init -t ${marker("digitalocean-token")}`)
    expect(r.text(j("X-Shopify-Access-Token shpat_", HEX32))).toBe(`X-Shopify-Access-Token ${marker("shopify-token")}`)
    expect(r.text(j("sntryu_", HEX64))).toBe(marker("sentry-token"))
    // a Discord bot token: the bot's id (1234567890123456789) in base64, a time, an HMAC
    const discord = j(Buffer.from("1234567890123456789").toString("base64url"), ".GhAbCd.", "x7Kq9LmN2pR4sT6vW8yZ0aB1cD3eF5gH7iJ9kL")
    expect(r.text(`client.login("${discord}")`)).toBe(`client.login("${marker("discord-bot-token")}")`)
    expect(r.text(j("curl https://api.telegram.org/bot", "7123456789:AA", TG33, "/getMe")))
      .toBe(`curl https://api.telegram.org/bot${marker("telegram-bot-token")}/getMe`)
    expect(r.text(j("echo 123456789:AA", TG33))).toBe(`echo ${marker("telegram-bot-token")}`)
    // the Bot API's documented example: 32 characters after `AA`
    expect(r.text(j("110201543:AA", "HdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"))).toBe(marker("telegram-bot-token"))
    expect(r.text(j("lin_api_", AL52.slice(0, 40)))).toBe(marker("linear-api-key"))
    expect(r.text(j("PMAK-", HEX32.slice(0, 24), "-", HEX64.slice(0, 34)))).toBe(marker("postman-api-key"))
    expect(r.text(j("glsa_", AL52.slice(0, 32), "_", HEX32.slice(0, 8)))).toBe(marker("grafana-token"))
    expect(r.text(j("DATABRICKS_HOST=x dapi", HEX32, " run"))).toBe(`DATABRICKS_HOST=x ${marker("databricks-token")} run`)
  })

  it("near misses stay", () => {
    // a body well under the rule's floor (session 20: a body a bit shorter or longer than the canonical length goes,
    // see redaction-lengths20.test.ts), another charset
    stays(j("gsk_", AL52.slice(0, 30)))
    stays(j("xai-", "grok-2-latest and xai-", AL52.slice(0, 30)))
    stays(j("dop_v1_", HEX64.slice(0, 32)))
    stays(j("dop_v1_", HEX64.toUpperCase()))
    stays(j("shpat_", HEX32.slice(0, 20), " shpat_", HEX32, "g"))
    stays(j("lin_api_", AL52.slice(0, 24)))
    stays(j("PMAK-", HEX32.slice(0, 24), "-", HEX32.slice(0, 20)))
    stays(j("glsa_", AL52.slice(0, 32), "_ZZZZZZZZ"))
    stays(j("dapi", HEX32.slice(0, 20), " dapi_version dapiClient"))
    stays(j("sntryu_", HEX32))
    stays("GOCSPX-short and GOCSPX-xxxxx in a README")
    stays("ya29.short")
    stays("hvs.short hvb.also-short")
    // the prefix inside a longer word
    stays(j("mygsk_", AL52))
    stays(j("xdapi", HEX32))
    // digits then `:A…` that is no Telegram token: a time, a line number, a longer run, no `AA`
    stays(j("12:AA", TG33))
    stays(j("123456789:AB", TG33))
    stays(j("123456789:AA", TG33.slice(0, 20)))
    stays(j("file.ts:123456:AA", TG33))
    stays(j("abc123456789:AA", TG33))
    // dotted base64 words whose first part is no Discord id (text, not digits)
    stays(j(Buffer.from("hello world, this!").toString("base64url"), ".GhAbCd.", "x7Kq9LmN2pR4sT6vW8yZ0aB1cD3eF5gH7iJ9kL"))
    stays("NT.abcdef.ghijklmnopqrstuvwxyzabcdefghij and MTIz.a.b")
  })
})
