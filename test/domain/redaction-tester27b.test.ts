/**
 * Session 27 (tester27b F1, F2, F3, F4, F7, F8): prose passwords that survived every redacted output.
 * F1 German with a complement of several words and an adverb after the verb; F2 the same in French, Spanish,
 * Portuguese, Italian; F3 a passphrase with spaces after "password ... is" (quoted, or unquoted with a credential's
 * word); F4 "password?" with words between and in other languages; F7 percent-encoded UTF-8 letters; F8 HTML's
 * Latin-1 names and no-break (Unicode) spaces. Each with a variant the tester did not use, and near-misses that stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { allGone, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const CRED = marker("credential-prose")
const INTL = marker("password-prose-intl")

describe("F1: German, complement of several words, adverb after the verb", () => {
  it("the value goes, the words stay", () => {
    const v = j("Kk7Db", "#22x")
    expect(r.text(`Das Kennwort der alten Datenbank war ${v}`)).toBe(`Das Kennwort der alten Datenbank war ${INTL}`)
    expect(r.text(`Das Passwort des Servers lautet ${v}`)).toBe(`Das Passwort des Servers lautet ${INTL}`)
    expect(r.text(`Das Passwort heisst ab sofort ${v}`)).toBe(`Das Passwort heisst ab sofort ${INTL}`)
    expect(r.text(`Das Passwort f\u00fcr den Server ist immer noch ${v}`)).toBe(`Das Passwort f\u00fcr den Server ist immer noch ${INTL}`)
    allGone(`Das Passwort fuer den alten Router lautet nun ${v}`, [v], ["Router lautet nun"])
  })
  it("near-misses stay", () => {
    stays("Das Passwort des Servers ist zu kurz")
    stays("Das Passwort f\u00fcr den neuen Server ist jetzt abgelaufen")
    stays("Das Kennwort der Datenbank war 8 Zeichen lang")
  })
})

describe("F2: Romance languages with a complement", () => {
  it("the value goes", () => {
    const v = j("Zz8Qq", "!11y")
    expect(r.text(`Le mot de passe de l'admin est maintenant ${v}`)).toBe(`Le mot de passe de l'admin est maintenant ${INTL}`)
    expect(r.text(`La contrase\u00f1a del servidor de pruebas es ${v}`)).toBe(`La contrase\u00f1a del servidor de pruebas es ${INTL}`)
    expect(r.text(`A senha do servidor \u00e9 agora ${v}`)).toBe(`A senha do servidor \u00e9 agora ${INTL}`)
    expect(r.text(`La password del server di prova \u00e8 ${v}`)).toBe(`La password del server di prova \u00e8 ${INTL}`)
    allGone(`Le mot de passe du routeur est ${v}`, [v], ["routeur est"])
  })
  it("near-misses stay", () => {
    stays("Le mot de passe du serveur est expir\u00e9")
    stays("La contrase\u00f1a del servidor es incorrecta")
  })
})

describe("F3: a passphrase with spaces after 'password ... is'", () => {
  it("a quoted value goes whole, with words between", () => {
    const p = j("purple monkey ", "dish 9")
    expect(r.text(`the password we picked is "${p}" ok`)).toBe(`the password we picked is "${CRED}" ok`)
    allGone(`the password with spaces is "${p}" ok`, [p, "monkey"])
  })
  it("an unquoted phrase with a credential's word goes whole", () => {
    const p = j("blue tango ", "Zebra42x")
    expect(r.text(`my password is ${p}`)).toBe(`my password is ${CRED}`)
    expect(r.text(`Our passphrase was ${p}. Then we left.`)).toBe(`Our passphrase was ${CRED}. Then we left.`)
  })
  it("near-misses stay", () => {
    stays("the password is stored in the vault")
    stays(`the password for the form is "required"`)
    stays(`the password you chose is "too short"`)
    stays("my password is too short")
    stays("the password is hashed with bcrypt before storage")
    stays("the password policy is 12 characters")
    stays("the password is hashed with sha256 first")
    stays("the password was reset by admin2 yesterday")
    stays("The password is set via the env var DB_PASS2")
  })
})

describe("F4: 'password?' with words between, in other languages", () => {
  it("the value goes", () => {
    const v = j("Rt8Rr9", "Zz2")
    expect(r.text(`What's the router password? it's ${v}`)).toBe(`What's the router password? it's ${CRED}`)
    expect(r.text(`Wie ist das Kennwort? Es ist ${v}`)).toBe(`Wie ist das Kennwort? Es ist ${INTL}`)
    expect(r.text(`mot de passe ? ${v}`)).toBe(`mot de passe ? ${INTL}`)
    expect(r.text(`\u00bfLa contrase\u00f1a? ${v}`)).toBe(`\u00bfLa contrase\u00f1a? ${INTL}`)
  })
  it("near-misses stay", () => {
    stays("What's the password? It's stored in 1Password")
    stays("Passwort? Keine Ahnung")
    stays("password? no idea")
  })
})

describe("F7: percent-encoded UTF-8 letters", () => {
  it("the decoded view reads the word; the value goes, the encoded word stays", () => {
    const v = j("Db9Xx", "!77q")
    expect(r.text(`Das Passwort f%C3%BCr die Datenbank ist jetzt ${v}`)).toBe(`Das Passwort f%C3%BCr die Datenbank ist jetzt ${INTL}`)
    expect(r.text(`Le mot de passe de l%E2%80%99admin est ${v}`)).not.toContain(v)
    expect(r.text(`La contrase%C3%B1a del servidor es ${v}`)).toBe(`La contrase%C3%B1a del servidor es ${INTL}`)
  })
  it("an invalid or overlong sequence is not read", () => {
    stays("f%C0%80r 100%C3 %E0%80%80")
  })
})

describe("F8: HTML's Latin-1 names and no-break spaces", () => {
  it("a Latin-1 name is read", () => {
    const v = j("Nn7Tt", "!88z")
    expect(r.text(`Das Kennwort f&uuml;r den Server lautet ${v}`)).toBe(`Das Kennwort f&uuml;r den Server lautet ${INTL}`)
    expect(r.text(`La contrase&ntilde;a del servidor es ${v}`)).toBe(`La contrase&ntilde;a del servidor es ${INTL}`)
    expect(r.text(`Le mot de passe du serveur est d&eacute;sormais ${v}`)).toBe(`Le mot de passe du serveur est d&eacute;sormais ${INTL}`)
  })
  it("a no-break or other Unicode space is a blank", () => {
    const v = j("Ab7Cd9", "Ef2")
    expect(r.text(`password:&nbsp;${v}`)).not.toContain(v)
    expect(r.text(`password:\u00a0${v}`)).not.toContain(v)
    expect(r.text(`my password is\u2003${v}`)).not.toContain(v)
    expect(r.text(`Das Passwort\u202flautet ${v}`)).not.toContain(v)
  })
  it("near-misses stay", () => {
    stays("caf&eacute; &nbsp; na&iuml;ve\u00a0text f&uuml;r alle")
    stays("password:&nbsp;required")
  })
})
