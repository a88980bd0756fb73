/**
 * Session 21: the redaction gaps session 20 left. (1) Vendor tokens with no rule: Replicate `r8_`, LangSmith
 * `lsv2_pt_`/`lsv2_sk_`, Supabase `sbp_`, Docker Hub `dckr_pat_`, Cloudflare's scannable `cfut_`/`cfat_`/`cfk_`,
 * Adafruit `aio_`, Doppler's other prefixes (`dp.st.`, `dp.ct.`, `dp.sa.`), Okta's `00…` after `SSWS` or a name
 * holding okta, Mailgun's `key-…` and newer keys, Square's `sq0csp-` and `EAAA…`. (2) An opaque value under a
 * structured key named `signature`/`sig` (an HMAC, a presigned upload's, a thinking block's signature). (3) A
 * letters-only password in a command line's `db_password=hunter`. (4) `secret-pair` in JSON text escaped twice,
 * pretty-printed, or quoted with `\u0022`. (5) `Cookie: session\u003d…` (Gson's `=`). (6) A key or a PEM wrapped
 * at any width, not a list of widths. Each with the look-alikes that must stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { BEGIN, END, expectVendorSamplesGo, gone, inString, j, sessionEvent, stays } from "../support/redaction-asserts.js"
import { contextualSamples } from "../support/secrets.js"

const r = defaultRedaction
const F = marker("secret-field")
const P = marker("secret-pair")

const IDS = [
  "replicate-token", "langsmith-key", "supabase-token", "docker-hub-token", "cloudflare-token", "adafruit-key", "mailgun-key",
  "square-secret", "square-access-token"
]

describe("session 21 (1): vendor tokens with no rule before", () => {
  it("each sample goes in a sentence, an assignment, JSON and a header, as its rule's marker", () => {
    expectVendorSamplesGo(IDS)
  })

  it("the realistic places: docker login, a Doppler service token with its config's name, Okta's SSWS header", () => {
    const pat = j("dckr", "_pat_", "Ab3dEf6hIj9lMn2pQr5tUv8xYz1")
    expect(r.text(`echo ${pat} | docker login -u bob --password-stdin`)).toBe(`echo ${marker("docker-hub-token")} | docker login -u bob --password-stdin`)
    for (const p of ["dp.st.prd.", "dp.st.", "dp.ct.", "dp.sa.", "dp.pt."]) {
      const t = j(p, "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3")
      expect(r.text(`doppler run --token ${t} -- npm start`), p).toContain(marker("doppler-token"))
      expect(r.text(`doppler run --token ${t} -- npm start`), p).not.toContain(t.slice(-20))
    }
    const okta = j("0", "0", "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0n")
    const O = marker("okta-token")
    expect(r.text(`curl -H "Authorization: SSWS ${okta}" https://acme.okta.com/api/v1/users`)).toBe(`curl -H "Authorization: SSWS ${O}" https://acme.okta.com/api/v1/users`)
    expect(r.text(`headers = {"Authorization": f"SSWS ${okta}"}`)).toBe(`headers = {"Authorization": f"SSWS ${O}"}`)
    expect(r.text(JSON.stringify({ Authorization: `SSWS ${okta}` }))).toBe(JSON.stringify({ Authorization: `SSWS ${O}` }))
    expect(r.text(`okta.client.token=${okta}`)).toBe(`okta.client.token=${O}`)
    for (const [text, secret] of contextualSamples()["okta-token"]) gone(text, secret)
    // Mailgun's newer key (32, 8 and 8 hex digits) where the text names Mailgun, and a private key in the SDK's call
    const mg = j("0a1b2c3d4e5f6789", "0a1b2c3d4e5f6789", "-1a2b3c4d", "-5e6f7a8b")
    const M = marker("mailgun-key")
    expect(r.text(`mailgun.client({username: 'api', key: '${mg}'})`)).toBe(`mailgun.client({username: 'api', key: '${M}'})`)
    expect(r.text(`MAILGUN_SIGNING_KEY ${mg}\nnext`)).toBe(`MAILGUN_SIGNING_KEY ${M}\nnext`)
    // the newer shape has no prefix: without Mailgun named it stays (as gitleaks and trufflehog take it)
    stays(`build ${mg} done`)
    expect(r.text(`MAILGUN_API_KEY: ${j("ke", "y-", "3ax6", "0a1b2c3d4e5f67890a1b2c3d4e5f")}`)).not.toContain("0a1b2c3d4e5f67890a1b2c3d4e5f")
  })

  it("look-alikes stay: other lengths, one-case words, hashes, UUIDs, base64 images, CFPAT-", () => {
    for (const t of [
      // (not a Cloudflare format: its scannable tokens are cfk_, cfut_, cfat_)
      "CFPAT-abc", "aio_helpers_module", "import aio_pika", "r8_something_long_name_here_ok_fine", "lsv2_pt_short",
      j("lsv2", "_pt_", "0a1b2c3d4e5f67890a1b2c3d4e5f6789"), "sbp_test", j("sb", "p_", "0a1b2c3d4e5f67890a1b2c3d4e5f67890a1b2c3"),
      "dckr_pat_", "dckr_pat_example", "cfut_placeholder",
      // a Mailgun-like key after `-` or a word (a cache key named by an md5), a git SHA, a UUID, an md5 alone
      "cache-key-0a1b2c3d4e5f67890a1b2c3d4e5f6789", "monkey-0a1b2c3d4e5f67890a1b2c3d4e5f6789", "key-aaaaaaaabbbbbbbbccccccccdddddddd",
      "commit 0a1b2c3d4e5f67890a1b2c3d4e5f678901234567 (HEAD -> main)", "id 0a1b2c3d-4e5f-6789-0a1b-2c3d4e5f6789",
      "d41d8cd98f00b204e9800998ecf8427e  empty.txt", "0a1b2c3d4e5f67890a1b2c3d4e5f6789-1a2b3c4d",
      // Okta's shape without its scheme or name, and a 00… count
      j("id ", "0", "0", "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0n"), "okta_domain: acme.okta.com", "OKTA_ORG=00acme",
      // Square: a short EAAA word, base64 data, a PNG
      "EAAAAAAA", "sq0csp-short", j("data:application/octet-stream;base64,EAAA", "Ab3dEf6hIj9lMn2pQr5tUv8x+Yz1bCd4fGh7jKl0nOp3rSt6==") ,
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    ]) stays(t)
  })
})

describe("session 21 (2): an opaque value under a structured key named signature", () => {
  const sig = j("EqQBCkYIBhgCKkB", "x9Zq3Lm0Pa7Wc2Rt8Yb4Nd6Kf1Hj5Gs0Vu3Ie9Oo2Aa7Bb4Cc1Dd8Ee5Ff2Gg9Hh6Ii3Jj0Kk7Ll4Mm1Nn8", "==")
  const hmac = "0a1b2c3d".repeat(8)

  it("a thinking block's signature, a webhook's HMAC, a presigned upload's signature go; the keys stay", () => {
    const input = {
      message: { content: [{ type: "thinking", thinking: "Let me check the config.", signature: sig }] },
      headers: { "X-Hub-Signature-256": `sha256=${hmac}`, "Stripe-Signature": "t=1700000000,v1=" + hmac },
      form: { policy: "eyJleHBpcmF0aW9uIjoiMjAzMCJ9", "x-amz-signature": hmac, request_sig: j("Zq7", "x".repeat(21), "A9") }
    }
    expect(r.value(input)).toEqual({
      message: { content: [{ type: "thinking", thinking: "Let me check the config.", signature: F }] },
      // (Stripe's header holds a `,`: no opaque blob, left to the text rules)
      headers: { "X-Hub-Signature-256": F, "Stripe-Signature": "t=1700000000,v1=" + hmac },
      form: { policy: "eyJleHBpcmF0aW9uIjoiMjAzMCJ9", "x-amz-signature": F, request_sig: F }
    })
  })

  it("in an event: the extensions' signature goes, and so does the same value restated in the event's text", () => {
    const e = sessionEvent(1, { text: `signature ${sig} attached`, extensions: { "native.raw": { signature: sig } } })
    const out = r.event(e)
    expect(JSON.stringify(out)).not.toContain(sig.slice(10, 40))
    expect((out.extensions as Record<string, Record<string, unknown>>)["native.raw"].signature).toBe(F)
  })

  it("what is no opaque signature stays: prose, code, names, short values, booleans, numbers, other last words", () => {
    const input = {
      emailSignature: "Best regards,\nBob", signature: "(a: string, b: number) => void", function_signature: "def f(x: int) -> str",
      sig: "v1", signatureMethod: "HMAC-SHA256", signature_version: "4", signed: true, signatureCount: 3, sig_hex: "abc123",
      signatures: 2, type_signature: "Map<String, List<Integer>>", signature_algorithm: hmac
    }
    expect(r.value(input)).toBe(input)
  })
})

describe("session 21 (3): a letters-only password in a command line's assignment", () => {
  const A = marker("secret-argument")
  it("goes under a password's, a passphrase's or a secret's name, from 4 letters", () => {
    expect(r.text("terraform apply -var db_password=hunter")).toBe(`terraform apply -var db_password=${A}`)
    expect(r.text("make deploy db_password=swordfish client_secret=correcthorse")).toBe(`make deploy db_password=${A} client_secret=${A}`)
    expect(r.text(`ansible-playbook -e "vault_passphrase=tangerine" site.yml`)).toBe(`ansible-playbook -e "vault_passphrase=${A}" site.yml`)
    gone(JSON.stringify({ command: "terraform apply -var db_password=hunter" }), "hunter", "db_password=")
    // (the other forms already went, and still go)
    for (const [t, gonePart] of [["db_password=hunter", "hunter"], ["PASSWORD: correcthorse", "correcthorse"], [`{"password":"swordfish"}`, "swordfish"], ["DB_PASSWORD=hunter ./run", "hunter"]]) gone(t, gonePart)
  })
  it("stays: other names, placeholders, references, short words, identifiers, flags", () => {
    for (const t of [
      "password_reset=true", "passwordless login", "the passwordless flow", "password: <redacted>", "password=${DB_PASS}", "password=$DB_PASS",
      "echo db_password=pwd", "echo db_password=password", "echo db_password=dbPass", "echo db_password=REDACTED", "echo api_key=hunter",
      "run x_token=abcdef", "echo db_password=none", "echo db_password=xxxx", "echo db_password=$(cat pw.txt)", "f(db_password=hunter)"
    ]) stays(t)
  })
})

describe("session 21 (4): secret-pair in JSON text escaped again, pretty-printed, or quoted with \\u0022", () => {
  const V = "Zq7hunterXy42abc"
  const forms: ReadonlyArray<unknown> = [
    { name: "X-Api-Key", value: V }, [["Authorization", V]], { value: V, name: "DB_PASSWORD" }, { env: [{ name: "DB_PASSWORD", value: V }] },
    { headers: [{ key: "X-Auth-Token", value: V, type: "text" }] }
  ]
  it("the value goes in each form, the names and quotes stay", () => {
    for (const f of forms) {
      const pretty = JSON.stringify(f, null, 2)
      for (const t of [
        JSON.stringify(pretty), JSON.stringify(JSON.stringify(pretty)), JSON.stringify({ content: JSON.stringify({ stdout: pretty }) }),
        JSON.stringify(f).replace(/"/g, "\\u0022"), pretty
      ]) {
        const out = r.text(t)
        expect(out, t).not.toContain(V)
        expect(out, t).toBe(t.replace(V, P))
      }
    }
    // a Kubernetes env entry in YAML held in JSON text held in a string
    const k8s = JSON.stringify(JSON.stringify(`env:\n- name: DB_PASSWORD\n  value: ${V}\n`))
    expect(r.text(k8s)).toBe(k8s.replace(V, P))
  })
  it("lists of names and pairs of other names stay, also pretty-printed and escaped", () => {
    for (const v of [["password", "email"], [["Content-Type", "application/json"]], { name: "X-Request-Id", value: V }, { required: ["username", "password"] }]) {
      const pretty = JSON.stringify(v, null, 2)
      for (const t of [pretty, JSON.stringify(pretty), JSON.stringify(JSON.stringify(pretty)), JSON.stringify(v).replace(/"/g, "\\u0022")]) stays(t)
    }
  })
})

describe("session 21 (5): a cookie whose `=` is written \\u003d", () => {
  const C = marker("cookie")
  const v = "Ab3dEf6hIj9lMn2pQr5t"
  it("each cookie's value goes, the names, the escapes and the attributes stay", () => {
    expect(r.text(`Cookie: session\\u003d${v}; theme\\u003ddark`)).toBe(`Cookie: session\\u003d${C}; theme\\u003d${C}`)
    expect(r.text(`Set-Cookie: sid\\u003d${v}; Path\\u003d/; HttpOnly`)).toBe(`Set-Cookie: sid\\u003d${C}; Path\\u003d/; HttpOnly`)
    expect(r.text(`curl -H \\"Cookie: sid\\\\u003d${v}\\"`)).toBe(`curl -H \\"Cookie: sid\\\\u003d${C}\\"`)
    expect(r.text(`Cookie: session\\x3d${v}`)).toBe(`Cookie: session\\x3d${C}`)
  })
  it("stays: no cookie header, a reference, an escape with nothing after it", () => {
    for (const t of ["cookie\\u003dmonster", "the Cookie: header\\u003d", "Cookie: sid\\u003d$SESSION", "Set-Cookie: name"]) stays(t)
  })
})

describe("session 21 (6): keys and private keys wrapped at any width", () => {
  const K = j("sk-ant-api03-", "Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nOp3rSt6vWx9zAb2dEf5hIj8lMn1pQr4tUv7xYz0bCd3fGh6jKl9nOp2rSt5vWx8zAb1dEf4h-Ab3dEfAA")
  const fold = (s: string, w: number) => (s.match(new RegExp(`.{1,${w}}`, "g")) ?? []).join("\n")
  let body = ""
  for (let i = 0; i < 1200; i++) body += "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(i * 7919 + 13) % 64]
  it("a key folded at 24, 32, 50, 57, 110 columns goes whole", () => {
    for (const w of [24, 32, 50, 57, 110]) {
      expect(r.text(`key (fold -w ${w}):\n${fold(K, w)}\nThanks, done.`), String(w)).toBe(`key (fold -w ${w}):\n${marker("anthropic-key")}\nThanks, done.`)
      const t = JSON.stringify({ out: `key:\n${fold(K, w)}\nok` })
      expect(r.text(t), String(w)).toBe(JSON.stringify({ out: `key:\n${marker("anthropic-key")}\nok` }))
    }
  })
  it("a private key's tail and a quoted private key wrapped at 24, 110, 120, 132 columns go whole", () => {
    for (const w of [24, 110, 120, 132]) {
      expect(r.text(`tail -n 5 id_rsa:\n${fold(body, w)}\n${END}\n`), String(w)).toBe(`tail -n 5 id_rsa:\n${marker("private-key")}\n`)
      const quoted = `${BEGIN}\n${fold(body, w)}\n${END}`.split("\n").map((l) => `> ${l}`).join("\n")
      expect(r.text(quoted), String(w)).toBe(`> ${marker("private-key")}`)
      expect(r.text(inString(`${fold(body, w)}\n${END}`)), String(w)).toBe(marker("private-key"))
    }
  })
  it("what is no wrap stays: a longer next line, a narrow first line, prose, a git log", () => {
    const longer = "AbCdEf0123456789xyz".repeat(3)
    expect(r.text(`${K.slice(0, 50)}\n${longer}`)).toBe(`${marker("anthropic-key")}\n${longer}`)
    expect(r.text(`${K}\nThanks`)).toBe(`${marker("anthropic-key")}\nThanks`)
    stays("commit 0a1b2c3d4e5f67890a1b2c3d4e5f678901234567\nAuthor: Bob\n\n    fix the parser\n")
    stays(`sha256 digests:\n${"0a1b2c3d".repeat(8)}\n${"9f8e7d6c".repeat(8)}\n`)
    stays("see the docs:\nhttps://example.com/a/very/long/path/that/wraps\nat/the/terminal/width")
  })
})
