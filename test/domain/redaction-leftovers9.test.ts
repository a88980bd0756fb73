/**
 * Session 9's redaction fixes (found by a fresh user): a secret under a
 * secret-named key of a structured value (a tool call's input, a provider's
 * `extensions`) is redacted whole, as `secret-field` redacts it in text,
 * with its near misses (counts, policies, cursors, booleans, references)
 * left alone; a secret option's value as the next element of an argument
 * array; and the text rules' leftovers (a fragment's first parameter, an
 * unquoted password holding `&`, `secret = "…"`, `Authorization: token …`,
 * `The password for prod is …`).
 */
import { describe, expect, it } from "@effect/vitest"
import type { SessionEvent } from "../../src/domain/model.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
const R = marker
// built at run time so that no secret scanner flags this file
const j = (...p: Array<string>) => p.join("")
const S = (n: number) => j("Zq9", "SECRET", "k", String(n))

const event = (toolInput: unknown, extensions: Record<string, unknown> = {}): SessionEvent => ({
  contractVersion: "1.1.0",
  provider: "claude-code",
  sourceId: "src_x",
  sessionId: "s1",
  eventId: "e1",
  sequence: 1,
  occurredAt: "2026-08-01T00:00:01.000Z",
  kind: "tool_call",
  role: "assistant",
  text: null,
  toolName: "CustomTool",
  toolInput,
  toolCallId: "toolu_k",
  cursor: "c1",
  rawReference: { locatorClass: "jsonl-line", line: 1 },
  extensions
} as unknown as SessionEvent)

describe("redaction: a secret under a secret-named key of a structured value", () => {
  const names = [
    "DB_PASSWORD", "db-password", "dbPassword", "DbPassword", "password", "Password", "PASSWORD", "passwd", "passphrase",
    "API_KEY", "apiKey", "api_key", "api-key", "X-Api-Key", "clientSecret", "client_secret", "CLIENT_SECRET", "secretKey",
    "secret_key", "secret", "SECRET", "aws_secret", "private_key", "privateKey", "access_token", "auth_token", "GITHUB_TOKEN",
    "accessToken", "token", "refresh_token", "DB_PASS", "mysql_pwd", "credentials", "credential", "googleCredentials"
  ]

  it("each name, at any depth, in a tool input: the value becomes the secret-field marker", () => {
    names.forEach((name, i) => {
      const v = S(i)
      for (const value of [{ [name]: v }, { env: { [name]: v } }, { a: [{ b: { [name]: v } }] }]) {
        const out = JSON.stringify(r.value(value))
        expect(out, name).not.toContain(v)
        expect(out, name).toContain(JSON.stringify(R("secret-field")))
      }
    })
  })

  it("the tester's tool input: all five go, the keys stay", () => {
    const input = { env: { DB_PASSWORD: S(1), API_KEY: S(2), password: S(3), clientSecret: S(4), secretKey: S(5) } }
    const out = r.event(event(input)).toolInput as any
    expect(out).toEqual({
      env: { DB_PASSWORD: R("secret-field"), API_KEY: R("secret-field"), password: R("secret-field"), clientSecret: R("secret-field"), secretKey: R("secret-field") }
    })
  })

  it("a provider's extensions (a Muse Code export's payload.env) and a transcript's blocks too", () => {
    const e = event(null, { "native.muse": { payload: { env: { password: S(6), API_KEY: S(7), HOME_DIR: "/srv/x" } } } })
    const out = r.event(e)
    expect(out.extensions).toEqual({ "native.muse": { payload: { env: { password: R("secret-field"), API_KEY: R("secret-field"), HOME_DIR: "/srv/x" } } } })
    const t = r.transcript({
      sessionId: "s1",
      turns: [{ role: "assistant", timestamp: null, blocks: [{ type: "tool_call", id: "b1", name: "X", input: { env: { dbPassword: S(8) } } }] }],
      compactions: []
    } as any)
    expect(JSON.stringify(t)).not.toContain(S(8))
  })

  it("a password as a number goes too; the marker is a string", () => {
    expect(r.value({ password: 123456, pin_password: 4242 })).toEqual({ password: R("secret-field"), pin_password: R("secret-field") })
    expect(r.value({ db: { DB_PASSWORD: 98765 } })).toEqual({ db: { DB_PASSWORD: R("secret-field") } })
  })

  it("a value that is the whole secret, whatever its shape: short, letters only, spaces, several lines", () => {
    for (const v of ["hunter", "correct horse battery staple", "line one\nline two", "x"]) {
      expect(r.value({ password: v }), v).toEqual({ password: R("secret-field") })
      expect(r.value({ client_secret: v }), v).toEqual({ client_secret: R("secret-field") })
    }
  })

  it("near misses stay: other words, counts, policies, cursors, booleans, null, empty, references, paths", () => {
    const keep = {
      password_policy: "strict",
      passwordPolicy: { minLength: 12 },
      token_count: 1200,
      max_tokens: 4096,
      input_tokens: 12,
      output_tokens: 7,
      max_token: 100,
      secret_santa: "alice",
      next_page_token: "CAESBggDEAEYAQ9aZ3x",
      nextPageToken: "CAESBggDEAEYAQ9aZ3x",
      NextToken: "CAESBggDEAEYAQ9aZ3x",
      password: true,
      token: null,
      secret: false,
      api_key: "",
      DB_PASSWORD: "$DB_PASSWORD",
      client_secret: "${CLIENT_SECRET}",
      GITHUB_TOKEN: "{{ secrets.GITHUB_TOKEN }}",
      PWD: "/srv/app",
      pwd: "/srv/app",
      sort_key: "name",
      primaryKey: "id",
      monkey: "banana7",
      key: "Enter",
      keys: ["a1", "b2"],
      passwordless: "yes",
      token_type: "Bearer",
      tokenizer: "cl100k_base"
    }
    expect(r.value(keep)).toEqual(keep)
  })

  it("under a key/pass/pwd name (a key of a table, a shortcut), a value that does not look like a secret stays", () => {
    expect(r.value({ partition_key: "userId", shortcutKey: "Enter" })).toEqual({ partition_key: "userId", shortcutKey: "Enter" })
    // a partition key keys data (session 12, DATA_KEY): its value stays whatever its shape; a signing key's goes
    expect(r.value({ partition_key: "u1x9Zq" })).toEqual({ partition_key: "u1x9Zq" })
    expect(r.value({ signing_key: "u1x9Zq" })).toEqual({ signing_key: R("secret-field") })
  })

  it("the value of a secret option as the next element of an argument array", () => {
    for (const opt of ["--password", "--token", "--api-key", "--client-secret", "-token", "--db-password"]) {
      expect(r.value({ args: ["mysql", opt, S(9), "db"] }), opt).toEqual({ args: ["mysql", opt, R("cli-secret-option"), "db"] })
    }
    for (const keep of [["--password", "--verbose"], ["--token", "$TOKEN"], ["--password-stdin", "x1"], ["--max-tokens", "4096"], ["--token"]]) {
      expect(r.value({ args: keep }), keep.join(" ")).toEqual({ args: keep })
    }
  })

  it("unchanged values are the same reference (no copy)", () => {
    const v = { a: { max_tokens: 3, list: [1, 2, "x"] } }
    expect(r.value(v)).toBe(v)
  })
})

describe("redaction: text leftovers", () => {
  it("a credential as a fragment's first parameter", () => {
    for (const name of ["id_token", "access_token", "token", "refresh_token", "client_secret", "password"]) {
      expect(r.text(`https://app.example.com/callback#${name}=${S(1)}&state=1`), name)
        .toBe(`https://app.example.com/callback#${name}=${R("url-query-secret")}&state=1`)
    }
    expect(r.text("see https://x.example/docs#token-types here")).toBe("see https://x.example/docs#token-types here")
  })

  it("an unquoted assignment's value runs to white space: an `&` inside it is the password's", () => {
    expect(r.text(`PASSWORD=Tr0ub4dor&3${S(2)} ./run.sh`)).toBe(`PASSWORD=${R("secret-assignment")} ./run.sh`)
    expect(r.text(`DB_PASSWORD=a&b&${S(3)}`)).toBe(`DB_PASSWORD=${R("secret-assignment")}`)
    // a shell operator still ends it
    expect(r.text(`API_TOKEN=${S(4)} && make`)).toBe(`API_TOKEN=${R("secret-assignment")} && make`)
    expect(r.text(`API_TOKEN=${S(4)}& make`)).toBe(`API_TOKEN=${R("secret-assignment")}& make`)
    expect(r.text(`API_TOKEN=${S(4)};make`)).toBe(`API_TOKEN=${R("secret-assignment")};make`)
    // the next parameter of a form body stays
    expect(r.text(`PASSWORD=${S(5)}&user=alice`)).toBe(`PASSWORD=${R("secret-assignment")}&user=alice`)
  })

  it("`name = \"value\"` (TOML, Python, INI) under a secret's name", () => {
    expect(r.text(`secret = "${S(6)}"`)).toBe(`secret = "${R("secret-field")}"`)
    expect(r.text(`db_password = '${S(6)}'`)).toBe(`db_password = '${R("secret-field")}'`)
    expect(r.text(`api_key="${S(6)}"`)).toBe(`api_key="${R("secret-field")}"`)
    for (const keep of [`if password == "x1y2":`, `token = ""`, `secret = "$SECRET"`, `password = input("pw: ")`]) expect(r.text(keep), keep).toBe(keep)
  })

  it("a secret option's value as the next element of an argument array in JSON or Python text", () => {
    expect(r.text(`{"args": ["mysql", "--password", "${S(5)}", "db"]}`)).toBe(`{"args": ["mysql", "--password", "${R("cli-secret-option")}", "db"]}`)
    expect(r.text(`["--db-password","${S(5)}"]`)).toBe(`["--db-password","${R("cli-secret-option")}"]`)
    expect(r.text(`subprocess.run(['tool', '--token', '${S(5)}'])`)).toBe(`subprocess.run(['tool', '--token', '${R("cli-secret-option")}'])`)
    expect(r.text(`{\"args\":[\"--api-key\",\"${S(5)}\"]}`)).toBe(`{\"args\":[\"--api-key\",\"${R("cli-secret-option")}\"]}`)
    for (const keep of [`["--password", "--verbose"]`, `["--token", "$TOKEN"]`, `["--password-stdin", "x1"]`, `["--max-tokens", "4096"]`]) expect(r.text(keep), keep).toBe(keep)
  })

  it("`Authorization: token …` (GitHub's scheme)", () => {
    expect(r.text(`Authorization: token ${S(7)}`)).toBe(`Authorization: token ${R("bearer-token")}`)
    expect(r.text(`-H "authorization: Token ${S(7)}"`)).toBe(`-H "authorization: Token ${R("bearer-token")}"`)
    expect(r.text("the token is a string")).toBe("the token is a string")
  })

  it("a secret as an XML element's text", () => {
    for (const name of ["password", "DbPassword", "client_secret", "apiKey", "access_token", "privateKey", "PASSWORD"]) {
      expect(r.text(`<config><${name}>${S(9)}</${name}></config>`), name).toBe(`<config><${name}>${R("secret-element")}</${name}></config>`)
    }
    for (const keep of ["<NextToken>CAESBggDEAEYAQ9aZ3x</NextToken>", "<max_token>100</max_token>", "<password></password>", "<password>$DB_PASSWORD</password>", "<secret_santa>al1ce</secret_santa>", "<password><value>x</value></password>"]) {
      expect(r.text(keep), keep).toBe(keep)
    }
  })

  it("`Cookie:` and `Set-Cookie:` headers: the values go, the names and attributes stay", () => {
    expect(r.text(`Cookie: session=${S(1)}`)).toBe(`Cookie: session=${R("cookie")}`)
    expect(r.text(`-H "cookie: a=${S(1)}; sid=${S(2)}" https://x.example`)).toBe(`-H "cookie: a=${R("cookie")}; sid=${R("cookie")}" https://x.example`)
    expect(r.text(`Set-Cookie: sid=${S(3)}; Path=/; HttpOnly`)).toBe(`Set-Cookie: sid=${R("cookie")}; Path=/; HttpOnly`)
    expect(r.text("the cookie: it expired")).toBe("the cookie: it expired")
  })

  it("`The password for prod is …`", () => {
    expect(r.text(`The password for prod is ${S(8)}`)).toBe(`The password for prod is ${R("password-prose")}`)
    expect(r.text(`the password of the db is ${S(8)}.`)).toBe(`the password of the db is ${R("password-prose")}.`)
    expect(r.text("The password for prod is wrong")).toBe("The password for prod is wrong")
  })
})
