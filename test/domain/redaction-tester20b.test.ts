/**
 * tester20b's redaction findings F8, F2, F4, F5 (F1, the ANSI colour codes, in redaction-ansi20.test.ts): a secret
 * each rule let through, and the look-alikes that must stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker, secretKeyKind } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
// built at run time so that no secret scanner flags this file
const V = ["q8Zk2", "mPa9s", "Ld4fV"].join("")

describe("tester20b F8: a lower-case name_password=value word of a command line", () => {
  it("terraform -var, ansible -e, make: the value goes, the name and = stay", () => {
    const A = marker("secret-argument")
    expect(r.text(`terraform apply -var db_password=${V}`)).toBe(`terraform apply -var db_password=${A}`)
    expect(r.text(`terraform apply -var "db_password=${V}" -auto-approve`)).toBe(`terraform apply -var "db_password=${A}" -auto-approve`)
    expect(r.text(`terraform apply -var 'db_password=${V}'`)).toBe(`terraform apply -var 'db_password=${A}'`)
    expect(r.text(`ansible-playbook -e ansible_become_pass=${V} site.yml`)).toBe(`ansible-playbook -e ansible_become_pass=${A} site.yml`)
    expect(r.text(`make deploy api_token=${V} client_secret=${V}x github_token=${V}y`))
      .toBe(`make deploy api_token=${A} client_secret=${A} github_token=${A}`)
    expect(r.text(`run openai_api_key=${V};echo`)).toBe(`run openai_api_key=${A};echo`)
    // in JSON text (a tool call's command), and JSON text held in a string
    gone(JSON.stringify({ command: `terraform apply -var "db_password=${V}"` }), V, "db_password=")
    gone(inString(JSON.stringify({ command: `ansible-playbook -e ansible_become_pass=${V}` })), V, "ansible_become_pass=")
  })

  it("code, references, counts, cursors, paths and words stay", () => {
    for (const t of [
      "client = Client(host, api_key=key1, timeout=3)", "f(api_key=api_key)", "x db_password=self.config.db_password",
      "python train.py max_tokens=4096 sort_key=name1 next_page_token=CAESBggDEAEY", "ssh -o identity_key=~/.ssh/id_ed25519 host",
      "run db_password=$DB_PASSWORD api_key=${KEY} x_token=None", "set primary_key=id_2",
      // (session 21: `echo db_password=hunter` goes, a password whatever its characters; a short word, an identifier
      // in camelCase and a word under a key's name stay)
      "echo db_password=pwd", "echo db_password=dbPass", "echo api_key=hunter",
      "cmd input_tokens=1200 output_tokens=30", "a foo_token=os.environ.get"
    ]) stays(t)
  })
})

describe("tester20b F2: apikey written as one word", () => {
  it("a JSON field, a header and an assignment named apikey (any case) lose their value", () => {
    expect(r.text(`{"apikey": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"}`)).toBe(`{"apikey": "${marker("secret-field")}"}`)
    expect(r.text(`curl -H "apikey: ${V}" https://x.supabase.co`)).toBe(`curl -H "apikey: ${marker("secret-field")}" https://x.supabase.co`)
    gone(`"Apikey": "${V}"`, V, "Apikey")
    gone(`APIKEY=${V}`, V, "APIKEY=")
    gone(`{"service_apikey": "${V}"}`, V, "service_apikey")
  })

  it("structured keys: apikey, creds, bearer and a cookie's name are secret-named; signature and monkey are not", () => {
    for (const k of ["apikey", "APIKEY", "Apikey", "x_apikey", "creds", "db_creds", "bearer", "Bearer", "session_cookie", "authCookie"]) {
      expect(secretKeyKind(k), k).toBe("key")
    }
    for (const k of ["signature", "monkey", "cookie_policy", "bearer_type", "apikey_count"]) expect(secretKeyKind(k), k).not.toBe("key")
    expect(secretKeyKind("Cookie")).toBe("header")
    const input = { apikey: V, headers: { apikey: `${V}W` }, creds: `${V}R`, bearer: `${V}Q`, session_cookie: `${V}C`, sort_key: "name" }
    const out = JSON.stringify(r.value(input))
    expect(out).not.toContain(V)
    expect(out).toContain(`"sort_key":"name"`)
  })

  it("prose and values that are no secret stay", () => {
    for (const t of ["the monkey: banana", "apikey: required", `{"apikey": "name"}`, "set apikey=$APIKEY"]) stays(t)
  })
})

describe("tester20b F4: home paths whose user folder holds a space, an apostrophe, or is written in lower case", () => {
  it("the whole user folder becomes ~", () => {
    expect(r.text("C:\\Users\\John Smith\\Documents\\app")).toBe("~\\Documents\\app")
    expect(r.text("/Users/Alice Smith/Documents/x")).toBe("~/Documents/x")
    expect(r.text("{\"cwd\":\"C:\\\\Users\\\\Mary Ann O'Neil\\\\src\"}")).toBe("{\"cwd\":\"~\\\\src\"}")
    expect(r.text("\"C:\\Users\\Jane Doe\"")).toBe("\"~\"")
    expect(r.text("c:/users/frank/app and c:\\users\\frank\\app and C:\\\\USERS\\\\frank\\\\x")).toBe("~/app and ~\\app and ~\\\\x")
    expect(r.text("/mnt/c/users/erin/Desktop")).toBe("~/Desktop")
    expect(r.text("/home/dave.o'neil/x")).toBe("~/x")
  })

  it("prose after a home path keeps its words", () => {
    expect(r.text("/home/alice is where the files are")).toBe("~ is where the files are")
    expect(r.text("/Users/bob and/or /home/carol")).toBe("~ and/or ~")
    expect(r.text("echo '/home/alice' done")).toBe("echo '~' done")
    expect(r.text("C:\\Users\\alice is here")).toBe("~ is here")
    stays("the users/ folder and c:/program files/users")
  })
})

describe("tester20b F5: an email address written with %40, \\u0040, or letters of other scripts", () => {
  it("goes whole", () => {
    expect(r.text("https://x.io/invite?email=carol%40example.com&x=1")).toBe(`https://x.io/invite?email=${marker("email")}&x=1`)
    expect(r.text("{\"msg\": \"judy\\u0040example.com\"}")).toBe(`{"msg": "${marker("email")}"}`)
    expect(r.text("björn@exämple.de and 用户@例子.中国")).toBe(`${marker("email")} and ${marker("email")}`)
    gone("mailto:carol%40example.com", "carol", "mailto:")
  })

  it("scoped package names, decorators, images and percentages stay", () => {
    for (const t of [
      "npm i %40types%2Fnode", "https://registry.npmjs.org/%40babel%2fcore", "\\u0040Override", "icon%402x.png", "50%40 off",
      "用户@例子", "@user 你好"
    ]) stays(t)
  })
})

describe("a number's value before a `//` comment (the property test's generated input)", () => {
  it("is no division: the PIN goes", () => {
    expect(r.text("card_cvv: 873 //registry.npmjs.org/x")).toBe(`card_cvv: ${marker("secret-pin")} //registry.npmjs.org/x`)
    stays("pin: 1234 / 2")
  })
})
