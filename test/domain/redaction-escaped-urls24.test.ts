/**
 * tester24a F3: a URL written with JSON-escaped slashes (`postgres:\/\/app:…@db:5432\/main`: PHP's json_encode, Java
 * encoders; `\\\/` in JSON text held in a string) is the same URL: its password (`url-credentials`), a query's
 * credential with an escaped slash inside its value (`url-query-secret`) and a webhook's secret path (`slack-token`,
 * `discord-webhook`) go as they do with plain slashes; scheme, user, host and names stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
/** `text` with each `/` written `\/` (one JSON escape level; `levels` 2: JSON text in a JSON string). */
const escaped = (text: string, levels = 1) => text.replace(/\//g, levels === 1 ? "\\/" : "\\\\\\/")

describe("URLs with escaped slashes (tester24a F3)", () => {
  it("url-credentials: the password goes, as with plain slashes, at one and two escape levels", () => {
    const pw = j("EscSlash", "Pw4411")
    for (const url of [`postgres://app:${pw}@db:5432/main`, `https://bob:${pw}@git.example.com/o/r.git`, `amqp://guest:${pw}@mq/vhost`]) {
      const want = r.text(url)
      expect(want).toContain(marker("url-credentials"))
      expect(r.text(escaped(url))).toBe(escaped(want))
      expect(r.text(`{"url": "${escaped(url)}"}`)).toBe(`{"url": "${escaped(want)}"}`)
      expect(r.text(escaped(url, 2))).toBe(escaped(want, 2))
      gone(JSON.stringify({ out: `{"url": "${escaped(url)}"}` }), pw)
    }
    // the tester's case, as a tool's output of a JSON file
    expect(r.text(`{"url": "postgres:\\/\\/app:${pw}@db:5432\\/main"}`)).toBe(`{"url": "postgres:\\/\\/app:${marker("url-credentials")}@db:5432\\/main"}`)
  })

  it("what is no password stays: a host's port, a scope after the path", () => {
    stays(escaped("https://registry.example.com:443/@scope/pkg"))
    stays(escaped("see http://example.com/a:b@c"))
  })

  it("url-query-secret: a value with an escaped slash in it goes whole", () => {
    const v = j("Abc123", "/Def456xyz+0")
    for (const name of ["token", "sig", "access_token", "api_key"]) {
      const url = `https://x.example/c?${name}=${v}&y=1`
      const want = `https://x.example/c?${name}=${marker("url-query-secret")}&y=1`
      expect(r.text(url)).toBe(want)
      expect(r.text(escaped(url))).toBe(escaped(want))
      expect(r.text(inString(escaped(url)))).toBe(inString(escaped(want)))
    }
    stays(escaped("https://x.example/c?page=2/3&q=token"))
  })

  it("a Slack or Discord webhook's secret path goes with escaped slashes too", () => {
    const slack = j("https://hooks.slack.com/services/", "T0000000/B0000000/", "XXXXXXXXXXXXXXXXXXXXXXXX")
    const discord = j("https://discord.com/api/webhooks/123456789/", "abcdefghijklmnopqrstuvwxyz0123")
    for (const url of [slack, discord]) {
      const want = r.text(url)
      expect(want).toContain("[REDACTED:")
      expect(r.text(escaped(url))).toBe(escaped(want))
    }
  })
})
