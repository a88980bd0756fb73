/**
 * Session 10's redaction fixes (leaks a fresh user found in session 9): a
 * number under a password's name (a PIN), `pass` / `pwd` alone as a key, a
 * header or a named value given as a name/value pair (`["X-Api-Key", "…"]`,
 * HAR's `{"name": …, "value": …}`), and a secret assigned to a member or an
 * index (`self.password = "…"`, `os.environ["DB_PASSWORD"] = "…"`); in text
 * and, where it applies, in structured values; each with its near misses.
 */
import { describe, expect, it } from "@effect/vitest"
import { builtinRules, marker, redactText } from "../../src/domain/redaction/rules.js"
import { restateText } from "../../src/domain/redaction/redact.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const R = marker
const F = R("secret-field")
// a pair's value: the `secret-pair` rule's marker (its own id since session 11; it was `secret-field`'s)
const P = R("secret-pair")
// built at run time so that no secret scanner flags this file
const j = (...p: Array<string>) => p.join("")
const S = (n: number) => j("Zq9", "SECRET", "k", String(n))
const PIN = j("8473", "6251")


describe("redaction 10: a number under a password's name", () => {
  it("JSON text: the number goes, the marker quoted so the JSON stays JSON", () => {
    expect(r.text(`{"password": ${PIN}}`)).toBe(`{"password": "${F}"}`)
    expect(r.text(`{"db_password":${PIN},"user":"x"}`)).toBe(`{"db_password":"${F}","user":"x"}`)
    expect(r.text(`{'password': ${PIN}}`)).toBe(`{'password': '${F}'}`)
    expect(JSON.parse(r.text(JSON.stringify({ a: 1, DB_PASSWORD: 1234, b: [2] })))).toEqual({ a: 1, DB_PASSWORD: F, b: [2] })
  })

  it("YAML-ish and assignment text, any name of the family, any spacing", () => {
    for (const name of ["password", "Password", "PASSWORD", "db_password", "dbPassword", "DB_PASSWORD", "passwd", "passphrase", "secret", "client_secret", "admin-password"]) {
      expect(r.text(`${name}: ${PIN}`), name).toBe(`${name}: ${F}`)
      expect(r.text(`${name}:${PIN}\n`), name).toBe(`${name}:${F}\n`)
      gone(`  ${name}: ${PIN} # the pin`, PIN, name, "# the pin")
      gone(`"${name}" : ${PIN}`, PIN, name)
      gone(`${name} = ${PIN}`, PIN, name)
      gone(`const ${name} = ${PIN};`, PIN, name)
    }
    // a short PIN too, and a name made of `pass`/`pwd` after another word when it is a PIN (4 digits or more)
    gone(`password: 0042`, "0042")
    gone(`{"password": 7}`, ": 7")
    for (const name of ["db_pass", "DB_PASS", "mysql_pwd", "MYSQL_PWD", "adminPass", "userPwd"]) gone(`${name}: ${PIN}`, PIN, name)
  })

  it("JSON text inside a JSON string (escaped quotes), and after a `\\n` escape", () => {
    const held = inString(`{"password": ${PIN}, "user": "bob"}`)
    const out = gone(held, PIN, `\\"user\\": \\"bob\\"`)
    expect(out).toContain(`\\"password\\": \\"${F}\\"`)
    gone(inString(`config:\npassword: ${PIN}\nuser: bob`), PIN, "user: bob")
  })

  it("near misses stay: counts under token names, other names, comparisons, booleans", () => {
    for (
      const keep of [
        "max_tokens: 4096", `{"max_tokens": 4096}`, `"token_count": 12`, `{"token": 12}`, "token: 4096", "input_tokens: 100",
        "api_key: 12345", `{"sort_key": 3}`, `"pass": 3`, "pass: 3", "pass: 12 (100%)", "pwd: 1234", "first_pass: 2", "password_length: 12",
        "password_min_length: 8", `{"password": true}`, "password: null", "password == 1234", "if password === 1234:", "password != 1234",
        "password <= 5", `"max_token": 100`, "secret_count: 3", "page: 2", "count: 84736251"
      ]
    ) stays(keep)
  })

  it("structured values: a number under a password's name or a pass/pwd name after a word (a PIN); counts stay", () => {
    expect(r.value({ db_pass: Number(PIN), MYSQL_PWD: 4242, password: 7 })).toEqual({ db_pass: F, MYSQL_PWD: F, password: F })
    const keep = { first_pass: 2, pass: 3, pwd: 1234, max_tokens: 4096, token: 12, api_key: 12345, token_count: 12 }
    expect(r.value(keep)).toEqual(keep)
  })
})

describe("redaction 10: `pass` and `pwd` alone as a key", () => {
  it("text: a value that looks like a secret goes", () => {
    expect(r.text(`{"pass": "hunter2x"}`)).toBe(`{"pass": "${F}"}`)
    expect(r.text(`pwd: s3cr3t!`)).toBe(`pwd: ${F}`)
    expect(r.text(`{"pwd": "s3cr3t!"}`)).toBe(`{"pwd": "${F}"}`)
    for (const text of [`pass: hunter2x`, `PASS: ${S(1)}`, `{'pass': '${S(1)}'}`, `Pass = "${S(1)}"`, `{"pass":"${S(1)}","user":"x"}`, `- pwd: "${S(2)}"`]) {
      gone(text, text.includes("hunter") ? "hunter2x" : text.includes(S(1)) ? S(1) : S(2))
    }
    gone(inString(`{"pass": "${S(3)}"}`), S(3))
  })

  it("text near misses: booleans, short words, test results, paths, longer words", () => {
    for (
      const keep of [
        `"pass": true`, `"pass": "ok"`, "pass: 3", `"pass": 3`, "pass: 3/3", "pass: 100%", `{"pass": "passed"}`, "pwd: /srv/app2", `"pwd": "~/src1"`,
        `"pwd": "C:\\\\work\\\\x1"`, "bypass: x1y2", "compass: n2e", `{"pass": null}`, `pass: "$PASS"`, "pass: none"
      ]
    ) stays(keep)
  })

  it("structured values: the same", () => {
    expect(r.value({ pass: "hunter2x", pwd: "s3cr3t!" })).toEqual({ pass: F, pwd: F })
    const keep = { pass: true, ok: { pass: "ok" }, n: { pass: 3 }, ratio: { pass: "3/3" }, dir: { pwd: "/srv/app2" }, PWD: "/srv/x" }
    expect(r.value(keep)).toEqual(keep)
  })
})

describe("redaction 10: a secret header (or a named value) given as a name/value pair", () => {
  const HEADERS = ["X-Api-Key", "x-api-key", "X-API-KEY", "X-Auth-Token", "Api-Key", "X-Access-Token", "Cookie", "Authorization", "Proxy-Authorization", "X-Client-Secret"]

  it("text: `[name, value]` (JSON, Python tuples, nested in a list), the value goes, the name stays", () => {
    HEADERS.forEach((h, i) => {
      const v = S(i)
      expect(r.text(`[["${h}", "${v}"]]`), h).toBe(`[["${h}", "${P}"]]`)
      gone(`headers: [["Content-Type", "application/json"], ["${h}","${v}"]]`, v, h, `["Content-Type", "application/json"]`)
      gone(`headers = [('${h}', '${v}'), ('Accept', '*/*')]`, v, h, `('Accept', '*/*')`)
      gone(`[ "${h}" , "${v}" ]`, v, h)
      gone(inString(`{"headers": [["${h}", "${v}"]]}`), v, h)
    })
    // a cookie header's value, a raw token under Authorization
    gone(`[["Cookie", "session=${S(1)}; theme=dark"]]`, S(1), "Cookie")
    gone(`["Authorization", "${S(2)}"]`, S(2), "Authorization")
  })

  it("text: `Bearer …` in a pair is bearer-token's, the scheme stays", () => {
    const v = j("abc123", "def456")
    expect(r.text(`["Authorization", "Bearer ${v}"]`)).toBe(`["Authorization", "Bearer ${R("bearer-token")}"]`)
  })

  it("text: HAR/Postman objects `{name|key|header, value}`, pretty-printed, escaped, reversed", () => {
    HEADERS.forEach((h, i) => {
      const v = S(i)
      for (const nameKey of ["name", "key", "header"]) {
        expect(r.text(`{"${nameKey}": "${h}", "value": "${v}"}`), `${nameKey} ${h}`).toBe(`{"${nameKey}": "${h}", "value": "${P}"}`)
      }
      gone(`{"name":"${h}","value":"${v}"}`, v, h)
      gone(JSON.stringify({ headers: [{ name: "Accept", value: "*/*" }, { name: h, value: v }] }, null, 2), v, h, `"value": "*/*"`)
      gone(inString(JSON.stringify({ headers: [{ name: h, value: v }] })), v, h)
      gone(`{"value": "${v}", "name": "${h}"}`, v, h)
      gone(`{'key': '${h}', 'value': '${v}', 'type': 'text'}`, v, h)
      gone(`{"id": 3, "name": "${h}", "value": "${v}"}`, v, h)
    })
    // a named value of another kind (a Kubernetes env entry, a form field)
    gone(`{"name": "DB_PASSWORD", "value": "hunter"}`, "hunter", "DB_PASSWORD")
    gone(`{"name": "password", "value": "${S(5)}"}`, S(5))
    // YAML (a Kubernetes env entry): `value:` on the line after `name:`, quoted or bare, and in JSON text
    const yaml = `env:\n  - name: DB_PASSWORD\n    value: hunter two\n  - name: MODE\n    value: prod`
    expect(r.text(yaml)).toBe(`env:\n  - name: DB_PASSWORD\n    value: ${P}\n  - name: MODE\n    value: prod`)
    gone(`- name: X-Api-Key\n  value: "${S(6)}"`, S(6), "X-Api-Key")
    gone(inString(`- name: API_TOKEN\n  value: ${S(7)}\n`), S(7), "API_TOKEN")
    for (const keep of ["- name: MODE\n  value: prod", "- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: x", "- name: DB_PASSWORD\n  value: $DB_PASSWORD"]) stays(keep)
  })

  it("text near misses: other headers, references, empty values, lists of names, cursors", () => {
    for (
      const keep of [
        `["Content-Type", "application/json"]`, `[["Accept", "text/html"], ["User-Agent", "curl/8.1"]]`, `{"name": "Accept", "value": "text/html"}`,
        `{"name": "X-Request-Id", "value": "a1b2c3d4"}`, `["password", "email"]`, `["token", "user"]`, `required: ["username", "password"]`,
        `{"key": "sort_key", "value": "name"}`, `["X-Api-Key", "$API_KEY"]`, `["X-Api-Key", "\${API_KEY}"]`, `{"name": "X-Api-Key", "value": ""}`,
        `{"name": "X-Api-Key", "value": "{{ apiKey }}"}`, `["nextPageToken", "abc1"]`, `{"name": "Authorization", "value": "Bearer ${R("bearer-token")}"}`,
        `["X-Api-Key", "Authorization", "Cookie"]`
      ]
    ) stays(keep)
  })

  it("structured values: `[name, value]` pairs and `{name|key|header, value}` objects", () => {
    HEADERS.forEach((h, i) => {
      const v = S(i)
      expect(r.value({ headers: [[h, v], ["Accept", "*/*"]] }), h).toEqual({ headers: [[h, P], ["Accept", "*/*"]] })
      for (const nameKey of ["name", "key", "header"]) {
        expect(r.value({ headers: [{ [nameKey]: h, value: v }] }), h).toEqual({ headers: [{ [nameKey]: h, value: P }] })
      }
      expect(r.value({ value: v, name: h, type: "text" }), h).toEqual({ value: P, name: h, type: "text" })
    })
    expect(r.value([{ name: "DB_PASSWORD", value: "hunter" }])).toEqual([{ name: "DB_PASSWORD", value: P }])
    expect(r.value({ header: "Cookie", value: "sid=abc; theme=dark" })).toEqual({ header: "Cookie", value: P })
    const keep = {
      a: [["Content-Type", "application/json"]],
      b: { name: "Accept", value: "text/html" },
      c: ["password", "email"],
      d: { key: "sort_key", value: "name" },
      e: ["X-Api-Key", "$API_KEY"],
      f: { name: "X-Api-Key", value: "" },
      g: { name: "X-Api-Key", value: true },
      h: ["X-Api-Key", "Authorization", "Cookie"],
      i: { name: "X-Request-Id", value: "a1b2c3d4" }
    }
    expect(r.value(keep)).toBe(keep)
  })
})

describe("redaction 10: a secret assigned to a member or an index", () => {
  it("text: member, nested member, index by a quoted name; the quotes and the target stay", () => {
    expect(r.text(`self.password = "${S(1)}"`)).toBe(`self.password = "${F}"`)
    expect(r.text(`this.apiKey = '${S(2)}'`)).toBe(`this.apiKey = '${F}'`)
    expect(r.text(`config.db.password = "${S(3)}"`)).toBe(`config.db.password = "${F}"`)
    expect(r.text(`settings["password"] = "${S(4)}"`)).toBe(`settings["password"] = "${F}"`)
    expect(r.text(`os.environ["DB_PASSWORD"] = "${S(5)}"`)).toBe(`os.environ["DB_PASSWORD"] = "${F}"`)
    expect(r.text(`ENV['API_TOKEN'] = '${S(6)}'`)).toBe(`ENV['API_TOKEN'] = '${F}'`)
    for (
      const [text, v] of [
        [`self.db_password="${S(7)}"`, S(7)], [`process.env.GITHUB_TOKEN = "${S(8)}";`, S(8)], [`cfg['client_secret'] = "hunter"`, "hunter"],
        [`app.config["SECRET_KEY"] = '${S(9)}'`, S(9)], [`  obj.auth.token  =  "${S(10)}"`, S(10)], [`user.password = "hunter2"`, "hunter2"],
        [`headers["X-Api-Key"] = "${S(11)}"`, S(11)], [`this.password = "${PIN}"`, PIN],
        [`req.setHeader("X-Api-Key", "${S(14)}")`, S(14)]
      ]
    ) gone(text, v)
    // other languages: PHP, Ruby, Perl, private members
    for (
      const [text, v] of [
        [`$password = '${S(15)}';`, S(15)], [`$this->db_password = "${S(16)}";`, S(16)], [`@password = "${S(17)}"`, S(17)],
        [`this.#apiKey = "${S(18)}"`, S(18)], [`'password' => '${S(19)}',`, S(19)], [`{:api_key => "${S(20)}"}`, S(20)],
        [`config[:api_key] = "${S(21)}"`, S(21)], [`self._api_key = "${S(22)}"`, S(22)], [`self.__token = "${S(23)}"`, S(23)]
      ]
    ) gone(text, v)
    gone(inString(`self.password = "${S(12)}"\nsettings["api_key"] = "${S(13)}"`), S(12))
    gone(inString(`settings["api_key"] = "${S(13)}"`), S(13))
  })

  it("text near misses: comparisons, null values, calls, references", () => {
    for (
      const keep of [
        `if self.password == "${S(1)}":`, `user.password === '${S(1)}'`, `self.password != "${S(1)}"`, `settings["password"] == "${S(1)}"`,
        `self.password = None`, `this.token = null`, `this.apiKey = undefined`, `obj.token = getToken()`, `self.password = "$DB_PASSWORD"`,
        `this.apiKey = process.env.API_KEY`, `self.secret = os.environ["SECRET"]`, `settings["password"] = ""`, `cfg.token = "\${TOKEN}"`,
        `self.sort_key = "name"`, `self.password_hash = hash(pw)`, `self.tokens = ["a1", "b2"]`
      ]
    ) stays(keep)
  })
})

describe("redaction 10: linear on hostile lines", () => {
  it("each rule on 300k-character near misses of the new shapes", () => {
    const N = 300_000
    const prefixes = [
      "password: 1", "\"password\": 1", "pass: a1", "[\"X-Api-Key\", \"", "[\"X-Api-Key\", \"a", "{\"name\": \"X-Api-Key\", \"value\": \"",
      "{\"name\": \"X-Api-Key\", ", "[\"Authorization\", \"", "self.password = \"", "settings[\"password\"] = \"", "a.b.", "[\"a_b_",
      "{\"value\": \"a\", \"name\": \"", "(\"", "[\"", "\"password\" :", "x[\"", "password = 1",
      "- name: DB_PASSWORD\n", "name: X-Api-Key\n  value: ", "{\"name\": \"X-Api-Key\",\n", "\\n  ", "pass: a1 ",
      // session 25: `name = value` after a gutter, a diff's marker, grep's prefix, a string's quote; a spaced key
      "    12\u2192password = 1", "+password = 1", "a.ini:12:password = 1", "\"password = 1", "'token = a", "{\"Api Key\": \"a1",
      // and their parts, alone and in part (was redaction-prefixes25's own check)
      "     5\u2192", "     5\t", "+", "-", "a.ini:12:", "12:", "\"", "'", "\\\"", " \"", "\"db_password = ", "\"db_password = a",
      "     5\u2192db_password = ", "a.ini:1:password = a", "+password = a\"", "{\"Db Password\": \"", "\"Db ", "\"Db Password\"", "a ",
      // session 26: bat's gutter, a `|` gutter, a quote before a diff's marker (tester25b F4)
      "  12 \u2502 password = 1", "  12 \u2502 ", "   5 | password = a", "   5 | ", "  12 \\u2502 password = 1", "> +password = 1", "> > > > +", "> > > > >", "> -",
      // session 26: a password told in other languages, the value before the words, `pw:`, creds, `<(echo`, `[at]`
      "Passwort lautet 1", "Passwort ist", "has\u0142o: 1", "\u041f\u0430\u0440\u043e\u043b\u044c: 1", "\u043f\u0430\u0440\u043e\u043b\u044c \u2014 ", "\u30d1\u30b9\u30ef\u30fc\u30c9\u306f", "\u5bc6\u7801\u662f1",
      "\u30d1\u30b9\u30ef\u30fc\u30c9\u306f\u300c", "password \u00e8 1", "password del a \u00e8 ", "Password \u2014 1", "password - ", "a1 is the ", "a1 is the password",
      "a1 is the new new ", "\"a1\" is ", "'a1 ", "a1 as my password a1 ", "(a1 ", "pw: a1", "pwd is ", "Pw \u2014 ", "creds are a / ", "creds: a/1",
      "sshpass -f <(echo ", "sshpass -v -f ", "--password-file=<(printf '%s' ", "<(echo '", "a [at] b", "a [at] b [dot] ", "a (at) b.", "a.b ",
      // session 26: password hashes and a .pgpass line in a string or after echo (tester25a F4)
      "$6$", "$6$a$", "$6$rounds=5$a$", "\\$6\\$a\\$", "$2b$12$", "$y$a$b$", "$argon2id$v=19$m=1,t=1,p=1$aaaa$", "'a:1:b:c:", "echo a:1:b:c:", "\"a:1:b:c:1",
      // tester26a F3-F6: libpq's escapes, Django's hash, other gutters, prose
      "a:1:b:c:\\", "a:1:b:c:\\:", "a:1:b:c:a\\", "pbkdf2_sha256$", "pbkdf2_sha256$1$", "pbkdf2_sha256$1$a$", "\u2503 ", "  12 \u2503 password = 1",
      "  12 : password = 1", "\u2502 password = 1", "password `a1", "password was changed to ", "user a and pass ", "user a, ",
      "a1, the root ", "a1, the password", "Passwort a1", "\u043f\u0430\u0440\u043e\u043b\u044c a1"
    ]
    const inputs: Array<string> = []
    for (const p of prefixes) {
      inputs.push(p.repeat(Math.floor(N / p.length)))
      inputs.push(p + "a".repeat(N))
      inputs.push(p + "1".repeat(N))
      // a run of white space after it (each alternative of the pair pass once looked back over it from each space)
      inputs.push(p + " ".repeat(N))
      inputs.push((p + "a").repeat(Math.floor(N / (p.length + 1))))
    }
    for (const rule of builtinRules) {
      const started = performance.now()
      for (const s of inputs) redactText([rule], s)
      // linear: these take milliseconds; a quadratic rule would take minutes (loose bound: CI's loaded 2 cores)
      expect(performance.now() - started, rule.id).toBeLessThan(10_000)
    }
  }, 300_000)

  it("the decoded views (session 26): 300k-character near misses of HTML references and percent escapes", () => {
    const N = 300_000
    const prefixes = [
      "&quot;password&quot;: &quot;", "&quot;password&quot;: &quot;a1", "{&quot;api_key&quot;:&quot;a1&quot;}", "&#39;token&#39;: &#x27;",
      "%22password%22%3A%22", "%22password%22%3A%22a1%22", "next=%2Fcb%3Faccess_token%3D", "access_token%3Da1%26", "%2", "%", "%7", "%8F",
      "&", "&amp;", "&amp", "&#", "&#1", "&#x", "&#xFFFFFFF", "&#12345678;", "&abcdefg;", "&ab", "&quot", "&;", "a%20", "Qx7pass%2D",
      "Qx7pass&#45;", "&lt;pre&gt;token: "
    ]
    const inputs: Array<string> = []
    for (const p of prefixes) {
      inputs.push(p.repeat(Math.floor(N / p.length)))
      inputs.push(p + "a".repeat(N))
      inputs.push(p + "1".repeat(N))
      inputs.push((p + "a").repeat(Math.floor(N / (p.length + 1))))
    }
    const known = new Map([[j("Qx7pass", "-Word_88"), F]])
    const started = performance.now()
    for (const s of inputs) {
      r.text(s)
      restateText(s, known)
    }
    // linear: well under a second here; a quadratic view or mapping would take minutes (loose bound: CI's loaded 2 cores)
    expect(performance.now() - started).toBeLessThan(30_000)
  }, 300_000)
})
