/**
 * Session 12's redaction fixes (tester12 F1-F5): secret headers inside quoted command-line arguments, an event's
 * `text` that restates its tool input, other secret shapes (prose, .netrc, XML, YAML lists, Markdown tables,
 * quoted passphrases), a PEM private key's tail without its BEGIN line, and ordinary code that was rewritten
 * (f-strings, matrix products, public keys, data keys). Each with its near misses.
 */
import { describe, expect, it } from "@effect/vitest"
import type { SessionEvent } from "../../src/domain/model.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const R = marker
const F = R("secret-field")
// built at run time so that no secret scanner flags this file
const j = (...p: Array<string>) => p.join("")
const S = (n: number) => j("Zq9", "SECRET", "k", String(n))


describe("redaction 12 (F1): a secret header inside a quoted command-line argument", () => {
  const HEADERS = ["X-API-Key", "X-Api-Key", "x-api-key", "X-Auth-Token", "X-Vault-Token", "PRIVATE-TOKEN", "Private-Token", "Api-Key", "Auth-Token", "X-Access-Token", "X-Client-Secret"]

  it("curl -H / --header in double or single quotes, wget --header=: the value goes, the header's name stays", () => {
    HEADERS.forEach((h, i) => {
      const v = S(i)
      expect(r.text(`curl -H "${h}: ${v}" https://a.example.com`), h).toBe(`curl -H "${h}: ${F}" https://a.example.com`)
      expect(r.text(`curl -H '${h}: ${v}' https://a.example.com`), h).toBe(`curl -H '${h}: ${F}' https://a.example.com`)
      expect(r.text(`curl --header "${h}:${v}" https://a.example.com`), h).toBe(`curl --header "${h}:${F}" https://a.example.com`)
      expect(r.text(`wget --header="${h}: ${v}" https://x.example.com`), h).toBe(`wget --header="${h}: ${F}" https://x.example.com`)
      // the command as JSON text (a Bash tool call's input as its event's text)
      gone(inString(`curl -H "${h}: ${v}" https://a.example.com`), v, `${h}: `)
    })
    // the tester's vault token (dots in it) and GitLab's token of letters and digits
    gone(`curl -H "X-Vault-Token: hvs.CAESIabc123def456" https://vault:8200/v1/secret`, "hvs.CAESIabc123def456")
    gone(`curl --header "PRIVATE-TOKEN: abcdefghij1234567890" https://gitlab.example.com/api`, "abcdefghij1234567890")
  })

  it("near misses stay: a reference, a word that is no secret, a header that names none", () => {
    stays(`curl -H "X-Api-Key: $API_KEY" https://a.example.com`)
    stays(`curl -H "X-Auth-Token: \${TOKEN}" https://a.example.com`)
    stays(`curl -H "Content-Type: application/json" -H "Accept: text/plain" https://a.example.com`)
    stays(`echo "token: required"`)
    stays(`curl -H "X-Request-Id: 123e4567-e89b" https://a.example.com`)
  })
})

const toolCall = (toolInput: unknown): SessionEvent => ({
  contractVersion: "1.1.0",
  provider: "claude-code",
  sourceId: "src_x",
  sessionId: "s1",
  eventId: "e1",
  sequence: 1,
  occurredAt: "2026-08-01T00:00:01.000Z",
  kind: "tool-call",
  role: "assistant",
  text: JSON.stringify(toolInput),
  toolName: "mcp__http__fetch",
  toolInput,
  toolCallId: "toolu_k",
  cursor: "c1",
  rawReference: { locatorClass: "jsonl-line", line: 1 },
  extensions: { "native.claude-code": { toolInput } }
} as unknown as SessionEvent)

describe("redaction 12 (F2): an event's text restating its tool input is redacted as the input is", () => {
  it("a value under a secret-named key: gone from toolInput, extensions and text alike", () => {
    const v = S(1)
    const out = r.event(toolCall({ credentials: v, url: "https://a.example.com" }))
    expect(out.toolInput).toEqual({ credentials: F, url: "https://a.example.com" })
    expect(out.text).toBe(JSON.stringify({ credentials: F, url: "https://a.example.com" }))
    expect(JSON.stringify(out)).not.toContain(v)
  })

  it("a header in an argument array, a header map, a secret option's next argument, a nested list", () => {
    const inputs = [
      { args: ["--header", `X-Api-Key: ${S(2)}`] },
      { headers: { "X-Api-Key": S(3) } },
      { argv: ["deploy", "--token", S(4)] },
      { auth: { passwords: [S(5)] } },
      { credential: S(6), note: `the value ${S(6)} again` }
    ]
    inputs.forEach((input, i) => {
      const out = JSON.stringify(r.event(toolCall(input)))
      expect(out, JSON.stringify(input)).not.toContain(S(i + 2))
    })
  })

  it("the text's other words stay, and an event without a secret is the same object", () => {
    const e = toolCall({ sort_key: "name", url: "https://a.example.com", command: "ls -la" })
    expect(r.event(e)).toBe(e)
    const out = r.event(toolCall({ api_key: S(7), path: "src/app.ts" }))
    expect(out.text).toBe(JSON.stringify({ api_key: F, path: "src/app.ts" }))
  })

  it("a short value (3 characters) is not hunted in the text; a value as part of a longer word stays", () => {
    const e = { ...toolCall({ password: "abc" }), text: "abc abcdef" } as SessionEvent
    expect(r.event(e).text).toBe("abc abcdef")
    const v = S(8)
    const e2 = { ...toolCall({ password: v }), text: `x${v}y and ${v}.` } as SessionEvent
    expect(r.event(e2).text).toBe(`x${v}y and ${F}.`)
  })
})

describe("redaction 12 (F3): other secret shapes", () => {
  it("a password told as what it is set to: 'change the password to X'", () => {
    gone("Change the password to Winter2025!", "Winter2025", "Change the password to ")
    gone("reset the admin password to S3cure#Pass", "S3cure#Pass", "reset the admin password to ")
    gone("set the passphrase to 'Tr0ub4dor&3'", "Tr0ub4dor&3")
    gone("Update my password as H4ppy-Days now", "H4ppy-Days")
    // near misses: words, a length, a path, a file, a next step
    stays("Change the password to something stronger")
    stays("Set the password to at least 12 characters")
    stays("write the password to /tmp/pw1.txt")
    stays("save the password to ~/.pgpass")
    stays("the password to the server is wrong")
  })

  it("a quoted passphrase told in prose", () => {
    gone(`the password is "open sesame 7"`, "open sesame 7", `the password is "`)
    gone(`my passphrase is 'correct horse 9 battery'`, "correct horse 9 battery")
    stays(`the password is "required"`)
    stays(`the password is "too short"`)
  })

  it(".netrc lines: the password goes, the machine and login stay", () => {
    expect(r.text("machine api.example.com login bob password NetrcPw88")).toBe(`machine api.example.com login bob password ${R("netrc-password")}`)
    gone("machine github.com\n  login bob\n  password NetrcPw89\n", "NetrcPw89", "machine github.com", "login bob")
    gone(inString("machine github.com\n  login bob\n  password NetrcPw89\n"), "NetrcPw89", "login bob")
    gone("default login anonymous password Anon-Pw-77", "Anon-Pw-77")
    stays("the machine learning model uses a password field")
    stays("machine api.example.com login bob password $NETRC_PW")
  })

  it("XML: CDATA text of a secret element, a properties-XML entry keyed by a secret's name", () => {
    expect(r.text("<password><![CDATA[CdataPw77]]></password>")).toBe(`<password><![CDATA[${R("secret-element")}]]></password>`)
    expect(r.text(`<entry key="db.password">XmlEntryPw9</entry>`)).toBe(`<entry key="db.password">${R("secret-element")}</entry>`)
    expect(r.text(`<property name="apiToken">tok_abc_99</property>`)).toBe(`<property name="apiToken">${R("secret-element")}</property>`)
    stays(`<entry key="db.url">jdbc:postgresql://db/app</entry>`)
    stays(`<entry key="sort_key">name</entry>`)
    stays("<description><![CDATA[some text]]></description>")
  })

  it("a card verification value or PIN told in prose", () => {
    gone("the CVV is 123", "123", "the CVV is ")
    gone("My card's CVC is 4821.", "4821")
    stays("the CVV is required")
    stays("the CVV is 3 digits")
  })

  it("home paths: a Claude Code project folder's encoded home, a WSL path", () => {
    expect(r.text("see ~/.claude/projects/-home-bobby-work-app/abc.jsonl")).toBe("see ~/.claude/projects/~-work-app/abc.jsonl")
    expect(r.text("projects/-Users-bobby-src/x.jsonl")).toBe("projects/~-src/x.jsonl")
    expect(r.text("\\\\wsl$\\Ubuntu\\home\\bobby\\src")).toBe("~\\src")
    expect(r.text("\\\\wsl.localhost\\Ubuntu\\home\\bobby\\src")).toBe("~\\src")
    expect(r.text("/mnt/c/Users/bobby/src")).toBe("~/src")
    stays("projects/-tmp-case/abc.jsonl")
    stays("my-home-page")
  })
})

describe("redaction 12 (F4): a PEM private key's tail without its BEGIN line", () => {
  const body = [
    j("MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"),
    j("MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu"),
    j("NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ")
  ]
  const END = j("-----END ", "PRIVATE KEY-----")
  it("body lines then the END line: all go", () => {
    expect(r.text(`${body[1]}\n${body[2]}\n${END}\n`)).toBe(`${R("private-key")}\n`)
    expect(r.text(`tail:\n${body[2]}\nAAAEC3NzaC1\n${j("-----END OPENSSH ", "PRIVATE KEY-----")}`)).toBe(`tail:\n${R("private-key")}`)
    // JSON text (its newlines escaped)
    const esc = r.text(inString(`${body[1]}\n${body[2]}\n${END}`))
    expect(esc).not.toContain(body[1].slice(0, 20))
    expect(esc).not.toContain(body[2].slice(0, 20))
  })
  it("a whole block as before; prose before the tail stays", () => {
    expect(r.text(`Here it is:\n${body[2]}\n${END}`)).toBe(`Here it is:\n${R("private-key")}`)
    expect(r.text(`${j("-----BEGIN ", "PRIVATE KEY-----")}\n${body[0]}\n${END}`)).toBe(R("private-key"))
    stays(`-----END PUBLIC KEY-----`)
    stays(`-----END CERTIFICATE-----`)
  })
})

describe("redaction 12 (F5): ordinary code stays", () => {
  it("Python f-strings and template strings under a key's name", () => {
    stays(`cache_key = f"user:{user_id}"`)
    stays(`redis_key = f"session:{sid}:data"`)
    stays(`sort_key = f"{last}_{first}"`)
    stays(`cache_key = rf'x{y}1'`)
    // a plain string value still goes
    gone(`api_key = "${S(1)}"`, S(1))
    gone(`api_key = ${S(2)}`, S(2))
  })

  it("a matrix product with a method call is no email", () => {
    stays("attn = q@k.transpose(-2, -1)")
    stays("out = x@w.reshape(4, 4)")
    stays("y = W@x.T + b")
    gone("mail bob@example.com (work)", "bob@example.com")
  })

  it("a public key is no secret", () => {
    stays("public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMq user@host")
    stays(`{"public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"}`)
    stays(`PUBLIC_KEY=ssh-rsa AAAAB3NzaC1yc2E`)
    expect(r.value({ publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMq", private_key: S(3) })).toEqual({
      publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMq",
      private_key: F
    })
    gone(`private_key: ${S(4)}`, S(4))
  })

  it("keys of data: primary, foreign, sort, partition, cache, idempotency, routing keys", () => {
    stays("primary_key: user_id2")
    stays("Idempotency-Key: order-2024-001")
    stays(`{"partition_key": "tenant_42", "foreign_key": "user_id2", "routing_key": "orders.v2"}`)
    stays("CACHE_KEY=user42")
    expect(r.value({ primaryKey: "user_id2", idempotency_key: "order-2024-001", api_key: S(5) })).toEqual({
      primaryKey: "user_id2",
      idempotency_key: "order-2024-001",
      api_key: F
    })
  })
})
