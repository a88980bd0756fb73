/**
 * Session 27: secrets that survived every redacted output after session 26.
 * 1. a passphrase with spaces after a colon ("The passphrase I chose: correct horse QZbattery9");
 * 2. a question mark between the word and the value ("and the password? X");
 * 3. a PostgreSQL password hash: `md5` + 32 hex digits (`pg_authid.rolpassword`, `pg_shadow`) and a SCRAM-SHA-256
 *    verifier (`SCRAM-SHA-256$4096:salt$stored:server`);
 * 4. double percent-encoding (`password%253Dhunter2xyz`: `%25` is `%`, so a server that decodes twice reads `password=…`);
 * 5. custom patterns applied on the decoded view too (`%2D` inside a value a custom pattern names);
 * 6. a secret's name spelled in references or escapes (`&#112;&#97;&#115;&#115;word=…`, `%70assword%3D…`);
 * 7. German with a prepositional phrase ("Das Passwort f\u00fcr den Server lautet \u2026", "Das Kennwort zum Router ist \u2026").
 * Each goes as text, as JSON text and as JSON text held in a string where the shape allows; prose about passwords stays.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction, redactionWith } from "../../src/services/Redaction.js"
import { allGone, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const CRED = marker("credential-prose")
const INTL = marker("password-prose-intl")
const HASH = marker("password-hash")

describe("1: a passphrase with spaces after a colon", () => {
  it("the whole phrase after the colon goes, to the line's or the sentence's end", () => {
    const p = j("correct horse QZ", "battery9")
    expect(r.text(`The passphrase I chose: ${p}`)).toBe(`The passphrase I chose: ${CRED}`)
    expect(r.text(`The passphrase I chose: ${p}. Then I logged in.`)).toBe(`The passphrase I chose: ${CRED}. Then I logged in.`)
    expect(r.text(`my password for the NAS: ${p}\nnext line`)).toBe(`my password for the NAS: ${CRED}\nnext line`)
    expect(r.text(`Passphrase we use: ${p}`)).toBe(`Passphrase we use: ${CRED}`)
    for (const piece of ["correct", "horse", "battery9"]) allGone(`The passphrase I chose: ${p}`, [`: ${piece}`, piece === "battery9" ? piece : "QZbattery9"])
  })

  it("a phrase without a credential-shaped word stays (prose after a colon)", () => {
    for (const t of [
      "The password I chose: the one from the vault.",
      "Password policy: at least 8 characters and 1 digit",
      "Password: see the vault for 2FA",
      "The passphrase we use: ask Bob in person",
      "Password reset: done in version 1.2.3 today",
      "Password changed: 2026-01-02T10:00:00Z by bob"
    ]) stays(t)
  })
})

describe("2: a question mark between the word and the value", () => {
  it("the value after `password?` goes when it is a credential's shape", () => {
    const v = j("hunter2", "xyz")
    expect(r.text(`and the password? ${v}`)).toBe(`and the password? ${CRED}`)
    expect(r.text(`What was the Password? ${v}!`)).toBe(`What was the Password? ${CRED}!`)
    expect(r.text(`the passphrase?  ${v}.`)).toBe(`the passphrase?  ${CRED}.`)
    allGone(`and the password? ${v}`, [v])
  })

  it("a question followed by a word or a sentence stays", () => {
    for (const t of ["What is the password? I forgot it.", "and the password? Same as before", "Forgot your password? Reset2FA is not here", "password? yes"]) {
      expect(r.text(t), t).toBe(t.includes("Reset2FA") ? `Forgot your password? ${CRED} is not here` : t)
    }
  })
})

describe("3: PostgreSQL password hashes", () => {
  const md5 = j("md5", "3175bce1d3201d16", "594cebf9d7eb3f9d")
  const scram = j("SCRAM-SHA-256$4096:Qm9vZ2xlU2FsdA==$", "h7Qx1ZzQ2bYk3q8pZ0Vt0l4ZlB+hGf6oN2o9mQyZc7E=:", "ZxJ0k3mB5a9tq1Z9pGv3X0Y2c8dLw4rN6s7uK1eJ2hA=")

  it("md5 + 32 hex digits in a pg_authid / pg_shadow dump goes whole", () => {
    expect(r.text(` postgres | ${md5} | t`)).toBe(` postgres | ${HASH} | t`)
    expect(r.text(`rolpassword: ${md5}`)).not.toContain(md5.slice(3, 15))
    allGone(`usename | passwd\nbob | ${md5}`, [md5.slice(3)], ["bob |"])
    allGone(`ALTER ROLE bob PASSWORD '${md5}';`, [md5.slice(3)], ["ALTER ROLE bob"])
  })

  it("a SCRAM-SHA-256 verifier goes whole", () => {
    expect(r.text(` alice | ${scram}`)).toBe(` alice | ${HASH}`)
    allGone(`rolpassword = ${scram}`, ["Qm9vZ2xlU2FsdA", "h7Qx1ZzQ2bYk", "ZxJ0k3mB5a9t"])
  })

  it("an md5 checksum or a word beginning with md5 stays", () => {
    for (const t of [
      "md5sum file.txt",
      "md5: 3175bce1d3201d16594cebf9d7eb3f9d  file.txt",
      "MD5 (file) = 3175bce1d3201d16594cebf9d7eb3f9d",
      "method md5 in pg_hba.conf",
      "SCRAM-SHA-256 is the default since PostgreSQL 14",
      "xmd53175bce1d3201d16594cebf9d7eb3f9d"
    ]) stays(t)
  })
})

describe("4: double percent-encoding", () => {
  it("`%253D` is read as `=` (decoded again, up to three levels)", () => {
    const v = j("hunter2", "xyz")
    for (const t of [
      `https://x.example/cb?next=%2Fa%3Fpassword%253D${v}`,
      `https://x.example/cb?q=password%253D${v}&x=1`,
      `https://x.example/cb?q=password%25253D${v}&x=1`,
      `/login?next=%252Fcb%253Faccess_token%253D${v}`
    ]) {
      const out = r.text(t)
      expect(out, t).not.toContain(v)
      expect(out, t).toContain("[REDACTED:")
      expect(r.text(out), `idempotent: ${t}`).toBe(out)
    }
    expect(r.text(`https://x.example/cb?next=%2Fa%3Fpassword%253D${v}`)).toBe(`https://x.example/cb?next=%2Fa%3Fpassword%253D${marker("url-query-secret")}`)
    expect(r.text(`https://x.example/cb?q=password%253D${v}&x=1`)).toBe(`https://x.example/cb?q=password%253D${marker("secret-assignment")}&x=1`)
  })

  it("doubly-encoded innocent URLs stay as written", () => {
    for (const t of ["https://example.com/a?next=%252Fapp%253Ftab%253Dsettings", "100%2525 sure", "q=hello%2520world"]) stays(t)
  })
})

describe("5: custom patterns on the decoded view", () => {
  const red = Either.getOrThrow(redactionWith([{ id: "employee-id", pattern: "EMP-[0-9]{6}" }]))
  it("a custom pattern's match written with escapes goes", () => {
    expect(red.text("id EMP-123456 here")).toBe(`id ${marker("employee-id")} here`)
    expect(red.text("id EMP%2D123456 here")).toBe(`id ${marker("employee-id")} here`)
    expect(red.text("id EMP&#45;123456 here")).toBe(`id ${marker("employee-id")} here`)
    expect(red.text("q=EMP%252D123456&x=1")).toBe(`q=${marker("employee-id")}&x=1`)
    // what it does not match stays as written
    expect(red.text("a%20b &amp; EMP%2D12")).toBe("a%20b &amp; EMP%2D12")
  })
})

describe("6: a secret's name spelled in references or escapes", () => {
  it("the value goes", () => {
    const v = j("hunter2", "xyz")
    for (const t of [`&#112;&#97;&#115;&#115;word=${v}`, `%70assword%3D${v}`, `&#x70;&#x61;ssword=${v}`, `%70%61%73%73%77%6F%72%64%3D${v}`]) {
      const out = r.text(t)
      expect(out, t).not.toContain(v)
      expect(out, t).toContain("[REDACTED:")
    }
  })
})

describe("7: German with a prepositional phrase", () => {
  it("the value goes", () => {
    const v = j("Hunter2", "xyz")
    expect(r.text(`Das Passwort fuer den Server lautet ${v}`)).toBe(`Das Passwort fuer den Server lautet ${INTL}`)
    expect(r.text(`Das Passwort f\u00fcr den Server lautet ${v}`)).toBe(`Das Passwort f\u00fcr den Server lautet ${INTL}`)
    expect(r.text(`Das Kennwort zum Router ist ${v}.`)).toBe(`Das Kennwort zum Router ist ${INTL}.`)
    expect(r.text(`Das Passwort f\u00fcr meinen Account ist: ${v}`)).toBe(`Das Passwort f\u00fcr meinen Account ist: ${INTL}`)
    expect(r.text(`Das Kennwort von der Datenbank lautet ${v}`)).toBe(`Das Kennwort von der Datenbank lautet ${INTL}`)
    allGone(`Das Passwort f\u00fcr den Server lautet ${v}`, [v])
  })

  it("prose stays", () => {
    for (const t of ["Das Passwort f\u00fcr den Server ist falsch.", "Das Kennwort zum Router ist abgelaufen", "Das Passwort f\u00fcr den Server lautet anders"]) stays(t)
  })
})
