/**
 * Redaction, leftovers found by fresh users: secrets passed on command lines
 * (`mysql -pX`, `--password=X`, `curl -u user:X`, `PGPASSWORD=X`, `--token X`,
 * `sshpass -p X`, `docker login -p X`, `redis-cli -a X`, a URL password
 * holding `@`), and secrets in object keys. False positives stay at 0:
 * `-p 8080`, `ssh -p 22`, `mkdir -p`, `curl -u user` without a password,
 * prose about options.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction as r } from "../../src/services/Redaction.js"
import { secretSamples } from "../support/secrets.js"

/** A fresh password-shaped value (built at run time, no literal secret in the repository). */
let n = 0
const pw = (letters = false) => {
  n++
  const body = `Zq${"xKvLmRtW".slice(n % 4)}${n}`
  return letters ? body.replace(/[0-9]/g, "q") + "Abcdefghijklmn" : `${body}9!x`
}

/** [command line, secret that must go, rule id that must name it]. */
const commandLines = (): ReadonlyArray<readonly [string, string, string]> => {
  const cases: Array<readonly [string, string, string]> = []
  const add = (f: (s: string) => string, id: string, secret = pw()) => cases.push([f(secret), secret, id])
  add((s) => `mysql -u root -p${s} orders`, "cli-password")
  add((s) => `mysqldump --single-transaction -uroot -p'${s}' shop > shop.sql`, "cli-password")
  add((s) => `docker exec db mysql -h 127.0.0.1 -P 3306 -p"${s}" -e 'select 1'`, "cli-password")
  add((s) => `mariadb -p${s}`, "cli-password")
  add((s) => `sshpass -p ${s} ssh deploy@host uptime`, "cli-password")
  add((s) => `sshpass -p'${s}' scp a host:`, "cli-password")
  add((s) => `docker login -u bot -p ${s} registry.example.com`, "cli-password")
  add((s) => `podman login registry.io --username bot -p ${s}`, "cli-password")
  add((s) => `redis-cli -h cache -a ${s} ping`, "cli-password")
  add((s) => `sqlcmd -S db -U sa -P ${s} -Q "select 1"`, "cli-password")
  add((s) => `mongosh "mongodb://db" -u admin -p ${s}`, "cli-password")
  add((s) => `curl -u alice:${s} https://api.example.com/v1`, "cli-password")
  add((s) => `curl --user 'bob:${s}' https://x.example`, "cli-password")
  add((s) => `curl -sS -ualice:${s} https://x.example`, "cli-password")
  add((s) => `curl --proxy-user p:${s} -x proxy:3128 https://x.example`, "cli-password")
  add((s) => `mysql --password=${s} -u root`, "cli-secret-option")
  add((s) => `mysql --password ${s} -u root`, "cli-secret-option")
  add((s) => `gh auth login --token ${s}`, "cli-secret-option")
  add((s) => `npm publish --token=${s}`, "cli-secret-option")
  add((s) => `vault login -token=${s}`, "cli-secret-option")
  add((s) => `wget --http-password=${s} https://x.example/f`, "cli-secret-option")
  add((s) => `tool --api-key "${s}" run`, "cli-secret-option")
  add((s) => `deploy --client-secret='${s}'`, "cli-secret-option")
  add((s) => `cli --auth-token ${s}`, "cli-secret-option")
  add((s) => `PGPASSWORD=${s} psql -h db`, "secret-assignment")
  add((s) => `MYSQL_PWD=${s} mysql -u root`, "secret-assignment")
  add((s) => `export DB_PASS=${s}`, "secret-assignment")
  add((s) => `GPG_PASSPHRASE='${s}' make sign`, "secret-assignment")
  add((s) => `git clone https://alice:${s}@github.com/org/repo.git`, "url-credentials")
  add((s) => `psql postgresql://app:${s}@db:5432/prod`, "url-credentials")
  // a password holding "@" (browsers and libpq split at the last "@" before the host)
  add((s) => `redis://admin:${s}@cache:6379`, "url-credentials", `p@ss${pw()}`)
  add((s) => `https://user:${s}@host.example/x`, "url-credentials", `a@b@c${pw()}`)
  return cases
}

describe("redaction of secrets on command lines", () => {
  for (const [text, secret, id] of commandLines()) {
    it(`${id}: ${text.replace(secret, "<secret>")}`, () => {
      const out = r.text(text)
      expect(out).not.toContain(secret)
      // no part of it is left either (a password split at "@" leaves nothing behind)
      for (const part of secret.split("@").filter((p) => p.length >= 4)) expect(out).not.toContain(part)
      expect(out).toContain(marker(id))
      // the command and the option stay
      expect(out.slice(0, 4)).toBe(text.slice(0, 4))
      // also as JSON text inside text (a tool input held as a string)
      expect(r.text(JSON.stringify({ command: text }))).not.toContain(secret)
      expect(r.text(`$ ${text}\n`)).not.toContain(secret)
      expect(r.text(out)).toBe(out)
    })
  }

  it("the option and the user stay: only the secret goes", () => {
    const s = pw()
    expect(r.text(`mysql -uroot -p${s} db`)).toBe(`mysql -uroot -p${marker("cli-password")} db`)
    expect(r.text(`curl -u alice:${s} https://x.example`)).toBe(`curl -u alice:${marker("cli-password")} https://x.example`)
    expect(r.text(`gh auth login --token ${s}`)).toBe(`gh auth login --token ${marker("cli-secret-option")}`)
    expect(r.text(`x --password="${s}"`)).toBe(`x --password="${marker("cli-secret-option")}"`)
    expect(r.text(`https://u:p@ss${s}@h.example/x`)).toBe(`https://u:${marker("url-credentials")}@h.example/x`)
  })

  it("a quoted value goes whole (spaces too; single, double and JSON-escaped quotes); the user and the quotes stay", () => {
    const R = (id: string) => marker(id)
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`curl -u "eve:pw with space" https://x.example`, `curl -u "eve:${R("cli-password")}" https://x.example`],
      [`curl -u 'carol:quoted pass' https://x.example`, `curl -u 'carol:${R("cli-password")}' https://x.example`],
      [`curl --user="dan:a b c" https://x.example`, `curl --user="dan:${R("cli-password")}" https://x.example`],
      [`curl --proxy-user 'frank:it"s here' -x p https://x.example`, `curl --proxy-user 'frank:${R("cli-password")}' -x p https://x.example`],
      [`mytool --password "two words here" --verbose`, `mytool --password "${R("cli-secret-option")}" --verbose`],
      [`mytool --password='a b' --verbose`, `mytool --password='${R("cli-secret-option")}' --verbose`],
      [`mytool --password 'a b'`, `mytool --password '${R("cli-secret-option")}'`],
      [`mytool --api-key "it's mine" x`, `mytool --api-key "${R("cli-secret-option")}" x`],
      [`mytool --token="x 'y' z"`, `mytool --token="${R("cli-secret-option")}"`]
    ]
    for (const [input, expected] of cases) {
      expect(r.text(input), input).toBe(expected)
      // The same command inside JSON text (a tool input held as a string): the quotes are `\"`.
      const json = JSON.stringify({ command: input })
      expect(r.text(json), json).toBe(JSON.stringify({ command: expected }))
    }
    for (const leak of ["space", "pass", "words", "here", "a b", "mine", "y' z"]) {
      for (const [input] of cases) expect(r.text(input)).not.toContain(`${leak}"`)
    }
  })

  it("a key on a command line is named by its own rule", () => {
    const key = secretSamples()["github-token"][0]
    expect(r.text(`gh auth login --token ${key}`)).toBe(`gh auth login --token ${marker("github-token")}`)
  })

  it("no false positives: ports, flags without a value, curl -u without a password, prose, references", () => {
    const innocent = [
      "-p 8080",
      "ssh -p 22 host.example",
      "mkdir -p /tmp/x/y",
      "docker run -p 8080:80 -p8443:443 nginx",
      "docker run --rm -p3306:3306 mysql:8",
      "python -m http.server -p 8000",
      "git add -p",
      "mysql -u root -p orders",
      "mysql -u root -p",
      "mysql --protocol=tcp -P 3306",
      "curl -u alice https://api.example.com",
      "curl -u $USER:$TOKEN https://api.example.com",
      "curl -u alice: https://x.example",
      "docker login -u bot --password-stdin registry.example.com",
      "echo $PW | sshpass -e ssh host",
      "gh auth login --with-token < token.txt",
      "use the --token flag to authenticate",
      "pass --password to the command, then --token as well",
      "mysql --password=$MYSQL_PASSWORD",
      "deploy --api-key \"${API_KEY}\"",
      "parser.add_argument(\"--password\", help=\"the password\")",
      "--max-tokens 4096 --token-limit 100",
      "export PWD=/srv/app",
      "npm install --registry https://registry.npmjs.org:443/@types/node",
      "https://example.com:8080/a@b",
      "ssh://git@github.com:22/org/repo.git",
      "redis-cli -h cache ping",
      "docker login registry.example.com"
    ]
    for (const s of innocent) expect(r.text(s), s).toBe(s)
  })

  it("linear time on near misses of the command-line rules", () => {
    const N = 200_000
    const inputs = ["mysql -p", "mysql ", " -p", "-p", "curl -u a:", "curl ", "login -p ", "--token ", "--a-", "-a-", "sshpass ", "x://a:b@", "@", "a:b@c@"]
      .flatMap((p) => [p.repeat(Math.floor(N / p.length)), p + "x".repeat(N), p + " ".repeat(N) + "y"])
    const started = performance.now()
    for (const s of inputs) r.text(s)
    // linear: these take tens of milliseconds; a quadratic rule, minutes (loose bound: CI's loaded 2 cores)
    expect(performance.now() - started).toBeLessThan(15_000)
  }, 120_000)
})

describe("redaction of secrets in object keys", () => {
  it("a key that holds a secret is redacted; other keys stay", () => {
    const gh = secretSamples()["github-token"][0]
    const key = secretSamples()["anthropic-key"][0]
    const v = { tokens: { [gh]: { owner: "ci" }, [`user:${key}`]: 1 }, "/home/alice/proj": { ok: true }, plain: "x" }
    const out = r.value(v)
    const s = JSON.stringify(out)
    expect(s).not.toContain(gh)
    expect(s).not.toContain(key)
    expect(s).not.toContain("alice")
    expect(out).toEqual({
      // (since session 11 every string under a token's name is a secret: `owner` goes; a number, a count, stays)
      tokens: { [marker("github-token")]: { owner: marker("secret-nested") }, [`user:${marker("anthropic-key")}`]: 1 },
      "~/proj": { ok: true },
      plain: "x"
    })
  })

  it("two keys that redact alike both stay, told apart", () => {
    const [a, b] = secretSamples()["github-token"]
    const out = r.value({ [a]: 1, [b]: 2 }) as Record<string, number>
    expect(Object.values(out).sort()).toEqual([1, 2])
    expect(JSON.stringify(out)).not.toContain(a)
    expect(JSON.stringify(out)).not.toContain(b)
    for (const k of Object.keys(out)) expect(k.startsWith(marker("github-token"))).toBe(true)
  })

  it("keys in an event's native provenance and tool input are redacted too; unchanged values keep their reference", () => {
    const gh = secretSamples()["github-token"][0]
    const same = { a: { b: "nothing" } }
    expect(r.value(same)).toBe(same)
    const e = r.value({ extensions: { "native.x": { headers: { [`Bearer ${gh}`]: true } } } })
    expect(JSON.stringify(e)).not.toContain(gh)
  })
})
