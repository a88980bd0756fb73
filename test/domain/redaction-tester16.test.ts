/**
 * Session 16's redaction additions (tester15's finding 5, and the secret shapes a user of the tool would expect):
 * a kubeconfig's `client-key-data`, SendGrid keys, age identities, a bare AWS secret access key next to its key id,
 * a password piped to `sudo -S` by `echo`, Rails' `SECRET_KEY_BASE`, PyPI tokens, a token whose characters are
 * JSON-escaped (`\u0073k-proj-…`) or HTML entities (`ghp&#95;…`). Each is gone from every redacted output (NDJSON
 * export, ATIF, the replay, the Markdown transcript), and its near misses stay.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { builtinRules, marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { gone, inString, j, sessionEvent, shareableOutputs, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const R = marker

// samples (not real secrets), joined at run time
const SG = j("SG.", "aB3dE5fG7hJ9kL1mN3pQ5r", ".", "sT7uV9wX1yZ3aB5cD7eF9gH1iJ3kL5mN7pQ9rS1tU3v")
const AGE = j("AGE-SECRET-KEY-1", "QQPZ7Z8K9J4HNMXQ5F3T2V6W8Y0A2C4E6G8J0L2N4P6R8T0V2X4Z6B8DQZ")
const KEYDATA = j("LS0tLS1CRUdJTiBSU0Eg", "UFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdTFTVTFMZlZMUEhDb3pNeEgyTW80bGdPRWVQek5tMHRS")
const AKID = j("AK", "IAQ3XJ7PZ2M4KD8WNB")
const AWS_SECRET = j("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYzQ8v3Lm2Np")
const SUDO_PW = j("MyR00t", "Pw!")
const KEY_BASE = j("9f2c4e6a8b0d1f3e5a7c9b1d3f5e7a9c", "2b4d6f8e0a1c3e5b7d9f1a3c5e7b9d1f")
const PYPI = j("pypi-", "AgEIcHlwaS5vcmcCJDY3ZjM0YjE4LTRkMmItNGE4Yy1iNmQwLTExZDE4ZjY3YzQyNQACKlszLCJhYmNkIl0AAAYgQ7xZ2pL9mN4vK8rT1sW6yB3dF5hJ0gC")
const PROJ_BODY = j("abc123", "DEF456ghi789JKL012mno345PQR678stu")
const GHP_BODY = j("A1b2C3d4E5f6G7h8I9j0", "K1l2M3n4O5p6Q7r8S9t0")

describe("redaction 16: each new shape goes, with its name kept", () => {
  it("sample lengths are the shapes' own", () => {
    expect(AKID.length).toBe(20)
    expect(AWS_SECRET.length).toBe(40)
    expect(AGE.length).toBe("AGE-SECRET-KEY-1".length + 58)
    expect(GHP_BODY.length).toBe(40)
  })

  it("a kubeconfig's client-key-data (a base64 PEM private key): YAML, JSON, JSON text in a string", () => {
    const yaml = `users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJU\n    client-key-data: ${KEYDATA}\n`
    expect(gone(yaml, KEYDATA, "client-certificate-data: LS0tLS1CRUdJTiBDRVJU")).toContain(`client-key-data: ${R("kubeconfig-key")}\n`)
    gone(inString(yaml), KEYDATA)
    expect(gone(`{"client-key-data": "${KEYDATA}"}`, KEYDATA)).toBe(`{"client-key-data": "${R("kubeconfig-key")}"}`)
    // a kubeconfig user's bearer token (secret-field's `token` name) goes too
    gone(`users:\n- name: ci\n  user:\n    token: ${j("kube", "TokEn0123456789abcdef")}\n`, j("kube", "TokEn0123456789abcdef"))
    stays("client-key-data: <base64>")
    stays("client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=")
  })

  it("SendGrid keys", () => {
    expect(gone(`export SENDGRID=${SG} now`, SG)).toBe(`export SENDGRID=${R("sendgrid-key")} now`)
    expect(r.text(`mail with ${SG}.`)).toBe(`mail with ${R("sendgrid-key")}.`)
    stays("SG.a.b and SG.config.value")
    stays(j("SG.", "aB3dE5fG7hJ9kL1mN3pQ5r", ".short"))
  })

  it("age secret keys (the public recipient age1… stays)", () => {
    expect(gone(`# key: ${AGE}`, AGE)).toBe(`# key: ${R("age-secret-key")}`)
    stays("AGE-SECRET-KEY-1 is the prefix")
    stays("# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p")
  })

  it("a bare AWS secret access key next to its key id (prose, CSV, the next line)", () => {
    expect(gone(`use ${AKID} and secret ${AWS_SECRET} for prod`, AWS_SECRET, " for prod"))
      .toBe(`use ${R("aws-access-key")} and secret ${R("aws-secret-key")} for prod`)
    expect(gone(`Access key ID,Secret access key\n${AKID},${AWS_SECRET}\n`, AWS_SECRET))
      .toBe(`Access key ID,Secret access key\n${R("aws-access-key")},${R("aws-secret-key")}\n`)
    gone(`key id: ${AKID}\nsecret: ${AWS_SECRET}`, AWS_SECRET)
    gone(inString(`key id: ${AKID}\nsecret: ${AWS_SECRET}`), AWS_SECRET)
  })

  it("near misses of the AWS secret: no key id near, a git sha, a path, a longer run", () => {
    stays(`secret ${AWS_SECRET} alone`)
    const sha = "3f4e5d6c7b8a99887766554433221100ffeeddcc"
    expect(r.text(`${AKID} at commit ${sha}`)).toBe(`${R("aws-access-key")} at commit ${sha}`)
    const path = "src/domain/redaction/rules/aws/keys/abcd"
    expect(path.length).toBe(40)
    expect(r.text(`${AKID} in ${path}`)).toBe(`${R("aws-access-key")} in ${path}`)
    const longer = `${AWS_SECRET}Ab9`
    expect(r.text(`${AKID} blob ${longer}`)).toBe(`${R("aws-access-key")} blob ${longer}`)
  })

  it("a password piped to sudo -S by echo (also after a \\n escape of JSON text)", () => {
    expect(gone(`echo '${SUDO_PW}' | sudo -S apt-get update`, SUDO_PW)).toBe(`echo '${R("sudo-password")}' | sudo -S apt-get update`)
    expect(gone("echo MyR00tPw | sudo -k -S ls", "MyR00tPw")).toBe(`echo ${R("sudo-password")} | sudo -k -S ls`)
    expect(gone('echo "hunter22" | sudo -Sv', "hunter22")).toBe(`echo "${R("sudo-password")}" | sudo -Sv`)
    expect(gone("echo -n 'pa ss 99' | sudo --stdin true", "pa ss 99")).toBe(`echo -n '${R("sudo-password")}' | sudo --stdin true`)
    expect(gone(inString(`cd /srv\necho '${SUDO_PW}' | sudo -S systemctl restart app`), SUDO_PW)).toContain(`echo '${R("sudo-password")}' | sudo -S`)
    expect(gone(`{"command": "echo \\"${SUDO_PW}\\" | sudo -S id"}`, SUDO_PW)).toBe(`{"command": "echo \\"${R("sudo-password")}\\" | sudo -S id"}`)
  })

  it("sudo's options with an argument before -S (a user, a group, a prompt, --user=)", () => {
    expect(gone(`echo '${SUDO_PW}' | sudo -u root -S whoami`, SUDO_PW)).toBe(`echo '${R("sudo-password")}' | sudo -u root -S whoami`)
    expect(gone("echo hunter22 | sudo -g wheel -u deploy -S id", "hunter22")).toBe(`echo ${R("sudo-password")} | sudo -g wheel -u deploy -S id`)
    expect(gone('echo "hunter22" | sudo -p "" -S ls', "hunter22")).toBe(`echo "${R("sudo-password")}" | sudo -p "" -S ls`)
    expect(gone("echo hunter22 | sudo --user=root --stdin ls", "hunter22")).toBe(`echo ${R("sudo-password")} | sudo --user=root --stdin ls`)
    expect(gone("echo hunter22 | sudo -E -u root -kS ls", "hunter22")).toBe(`echo ${R("sudo-password")} | sudo -E -u root -kS ls`)
  })

  it("near misses of sudo -S with options: the -S of the command sudo runs", () => {
    stays("echo yes | sudo -u root pacman -S vim")
    stays("echo hunter22 | sudo -k apt-get -S x")
  })

  it("near misses of sudo -S: a reference, another sudo, no sudo", () => {
    stays("echo $PW | sudo -S ls")
    stays('echo "$SUDO_PASS" | sudo -S ls')
    stays("echo hello | sudo tee /etc/x")
    stays("echo ls | sudo -s")
    stays("echo hunter22 | grep -S x")
  })

  it("Rails SECRET_KEY_BASE (environment, YAML, JSON text, a tool call's env)", () => {
    expect(gone(`SECRET_KEY_BASE=${KEY_BASE} rails s`, KEY_BASE)).toBe(`SECRET_KEY_BASE=${R("secret-key-base")} rails s`)
    expect(gone(`secret_key_base: "${KEY_BASE}"`, KEY_BASE)).toBe(`secret_key_base: "${R("secret-key-base")}"`)
    gone(`{"SECRET_KEY_BASE": "${KEY_BASE}"}`, KEY_BASE)
    const v = r.value({ env: { SECRET_KEY_BASE: "short1", secretKeyBase: "x" } })
    expect(v).toEqual({ env: { SECRET_KEY_BASE: R("secret-field"), secretKeyBase: R("secret-field") } })
    stays("SECRET_KEY_BASE=$(rails secret)")
    stays("SECRET_KEY_BASE=${SECRET}")
  })

  it("PyPI tokens", () => {
    expect(gone(`twine upload -u __token__ -p ${PYPI} dist/*`, PYPI.slice(5))).toContain(R("pypi-token"))
    gone(`[pypi]\nusername = __token__\npassword = ${PYPI}\n`, PYPI.slice(5))
    expect(r.text(`token ${PYPI}.`)).toBe(`token ${R("pypi-token")}.`)
    stays("pip install pypi-simple pypi-AgE")
  })

  it("a token whose characters are JSON \\u escapes or HTML entities", () => {
    const esc = j("\\u0073", "k-proj-", PROJ_BODY)
    expect(gone(`{"note": "${esc}"}`, PROJ_BODY)).toBe(`{"note": "${R("escaped-token")}"}`)
    expect(gone(`key \\u0073\\u006b-proj-${PROJ_BODY} here`, PROJ_BODY)).toBe(`key ${R("escaped-token")} here`)
    expect(gone(`token ghp&#95;${GHP_BODY} here`, GHP_BODY)).toBe(`token ${R("escaped-token")} here`)
    expect(gone(`<code>ghp&#x5f;${GHP_BODY}</code>`, GHP_BODY)).toBe(`<code>${R("escaped-token")}</code>`)
    expect(gone(`gh&#112;&lowbar;${GHP_BODY}`, GHP_BODY)).toBe(R("escaped-token"))
    // JSON text with its own \n escapes
    gone(inString(`line\n{"k": "${esc}"}`), PROJ_BODY)
  })

  it("a token whose characters are percent-encoded (a URL's query, an over-eager encoder)", () => {
    expect(gone(`GET /hook?token=ghp%5F${GHP_BODY}&x=1`, GHP_BODY)).toBe(`GET /hook?token=${R("escaped-token")}&x=1`)
    expect(gone(`curl "https://x.test/?k=ghp%5f${GHP_BODY}"`, GHP_BODY)).toBe(`curl "https://x.test/?k=${R("escaped-token")}"`)
    expect(gone(`key=%73k-proj-${PROJ_BODY}`, PROJ_BODY)).toBe(`key=${R("escaped-token")}`)
    // a token right after a percent-encoded separator (`%20`, `%3A`, `%3D`, `%2F`, `%26`: a logged request, `--data-urlencode`)
    const ANT = j("sk-ant-api03-", "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zx9Yw8Vu7Ts6Rq5-AbCdEfAA")
    gone(`Authorization%3A%20token%20ghp_${GHP_BODY}`, GHP_BODY)
    gone(`path=a%2F${ANT}`, ANT.slice(14))
    gone(`x-api-key%3A%20${ANT}`, ANT.slice(14))
    expect(gone(`id%3D${AKID}%26next`, AKID)).toBe(`id%3D${R("aws-access-key")}%26next`)
    gone(`key%20${AKID}%26`, AKID)
    // percent-encoded words that hold no token stay as written
    stays("50% off, 100%, a%5Fb, snake%5Fcase_name, %41%42%43, path%2Dto%2Efile")
  })

  it("escaped-token done from each escape gives what its pattern gives", () => {
    const rule = builtinRules.find((x) => x.id === "escaped-token")!
    const parts = ["\\u0073", "\\\\u006b", "\\u00e9", "%5F", "%73", "%20", "%", "&#95;", "&#x5F;", "&#47;", "&lowbar;", "&period;", "ghp", "sk-proj-", "\\n", "\\",
      "a", "9", "-", ".", ";", "&", "#", " ", "\n", "é", GHP_BODY, PROJ_BODY]
    let seed = 16
    const pick = () => parts[(seed = (seed * 48271) % 2147483647) % parts.length]
    for (let i = 0; i < 5000; i++) {
      const s = Array.from({ length: 1 + (i % 14) }, pick).join("")
      rule.pattern.lastIndex = 0
      expect(rule.apply!(s), JSON.stringify(s)).toBe(s.replace(rule.pattern, rule.replace as (m: string) => string))
    }
  })

  it("a quoted value under a key's name that starts with a JSON \\u escape (tester15's sample: no digit, so no openai-key)", () => {
    const v = j("\\u0073", "k-proj-UNICODEESCAPEDSECRETxxxxxxxxxxxx")
    expect(gone(`json_unicode_escaped: {"api_key": "${v}"}`, "UNICODEESCAPED")).toBe(`json_unicode_escaped: {"api_key": "${R("secret-field")}"}`)
    gone(inString(`{"api_key": "${v}"}`), "UNICODEESCAPED")
    stays('{"sort_key": "\\u00e9t\\u00e9", "api_key": "caf\\u00e9"}')
  })

  it("near misses of escaped tokens: ordinary escapes and entities stay", () => {
    stays("caf\\u00e9 and na\\u00efve and \\u0041BC")
    stays("a&#95;b and snake&#95;case&#95;name and &amp; &lt;tag&gt;")
    stays("\\u0073k-short and ghp&#95;short")
    stays("\\u0073k-proj-abcdefghijklmnopqrstuvwxyz")
  })

  it("forms redacted before this session stay redacted (Slack, Stripe, npm, Hugging Face, GitLab, Azure, Docker, Twilio)", () => {
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      [j("xo", "xb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"), "slack-token", "AbCdEfGhIjKlMnOpQrStUvWx"],
      [j("xo", "xp-1234567890-1234567890123-1234567890123-0123456789abcdef0123456789abcdef"), "slack-token", "0123456789abcdef0123456789abcdef"],
      [j("https://hooks.slack", ".com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"), "slack-token", "XXXXXXXXXXXXXXXXXXXXXXXX"],
      [j("sk", "_live_", "4eC39HqLyjWDarjtT1zdp7dc"), "stripe-key", "4eC39HqLyjWDarjtT1zdp7dc"],
      [j("rk", "_live_", "51H8xYzAbCdEfGhIjKlMnOp"), "stripe-key", "51H8xYzAbCdEfGhIjKlMnOp"],
      [j("np", "m_", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"), "npm-token", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"],
      [j("h", "f_", "AbCdEfGhIjKlMnOpQrStUvWxYz012345"), "huggingface-token", "AbCdEfGhIjKlMnOpQrStUvWxYz012345"],
      [j("gl", "pat-", "xY9zAbCdEfGhIjKlMnOp"), "gitlab-token", "xY9zAbCdEfGhIjKlMnOp"],
      [j("S", "K", "0123456789abcdef0123456789abcdef"), "twilio-api-key", "0123456789abcdef0123456789abcdef"]
    ]
    for (const [secret, rule, part] of cases) expect(gone(`x ${secret} y`, part)).toBe(`x ${R(rule)} y`)
    const azure = j("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=", "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==", ";EndpointSuffix=core.windows.net")
    gone(azure, "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==", "AccountName=acct", "EndpointSuffix=core.windows.net")
    const dockerAuth = Buffer.from("bob:s3cretPassw0rd").toString("base64")
    gone(`{"auths": {"ghcr.io": {"auth": "${dockerAuth}"}}}`, dockerAuth)
  })
})

describe("redaction 16: gone from every redacted output", () => {
  const secrets: ReadonlyArray<readonly [string, string]> = [
    [`client-key-data: ${KEYDATA}`, KEYDATA],
    [`export SENDGRID_KEY_VALUE ${SG}`, SG],
    [AGE, AGE],
    [`${AKID} and secret ${AWS_SECRET}`, AWS_SECRET],
    [`echo '${SUDO_PW}' | sudo -S apt-get update`, SUDO_PW],
    [`SECRET_KEY_BASE=${KEY_BASE}`, KEY_BASE],
    [PYPI, PYPI.slice(5)],
    [j("\\u0073", "k-proj-", PROJ_BODY), PROJ_BODY],
    [`ghp&#95;${GHP_BODY}`, GHP_BODY]
  ]
  const events = () =>
    secrets.flatMap(([text], i) => [
      sessionEvent(2 * i + 1, { kind: "message", role: "user", occurredAt: "2026-08-01T00:00:01.000Z", text: `see ${text} here` }),
      sessionEvent(2 * i + 2, { kind: "tool-call", occurredAt: "2026-08-01T00:00:02.000Z", toolName: "Bash", toolInput: { command: `run ${text}` }, text: null })
    ])
  const none = (where: string, out: unknown) => {
    const s = JSON.stringify(out)
    for (const [, secret] of secrets) expect(s, `${where}: ${secret}`).not.toContain(JSON.stringify(secret).slice(1, -1))
  }

  it.effect("NDJSON export, ATIF, the replay and the Markdown transcript", () =>
    Effect.gen(function*() {
      for (const [where, out] of yield* shareableOutputs(events, secrets.map(([text]) => text))) none(where, out)
    }).pipe(Effect.provide(Redaction.layer)))
})
