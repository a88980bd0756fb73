/**
 * Session 24 (tester24a F8): a password told in another language than English (`mot de passe: …`, `Passwort: …`,
 * `contraseña: …`) survived every shareable output; `password-prose` knew English words only. The token goes as
 * `password-prose` takes it (a digit or a symbol in it); words after the name that are prose stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const M = marker("password-prose-intl")

describe("password-prose-intl: a password told in another language", () => {
  it("tester24a C27: French, German and Spanish in one line", () => {
    expect(r.text("mot de passe: MdpFr8812xx, Passwort: PwDe8812yy, contrase\u00f1a: PwEs8812zz")).toBe(
      `mot de passe: ${M}, Passwort: ${M}, contrase\u00f1a: ${M}`
    )
  })

  it("the language's 'is', `=`, a quote, other languages and cases", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["Le mot de passe est S3cr3t!x.", `Le mot de passe est ${M}.`],
      ["Das Kennwort ist Geh31m_2024", `Das Kennwort ist ${M}`],
      ["La contrasena es 'Clave#77a'", `La contrasena es '${M}'`],
      ["Minha senha \u00e9 Senha2024x", `Minha senha \u00e9 ${M}`],
      ["wachtwoord=Wacht9woord", `wachtwoord=${M}`],
      ["L\u00f6senord \u00e4r Hemligt99", `L\u00f6senord \u00e4r ${M}`],
      ["PASSWORT: ABCD9876", `PASSWORT: ${M}`],
      ["\u015fifre: Gizli2024!", `\u015fifre: ${M}!`]
    ]
    for (const [text, want] of cases) expect(r.text(text), text).toBe(want)
  })

  it("prose and words without a digit or a symbol stay", () => {
    stays("mot de passe oubli\u00e9")
    stays("Passwort: falsch")
    stays("Das Passwort ist zu kurz.")
    stays("La contrase\u00f1a es incorrecta")
    stays("senha: ******")
    stays("Kennwort: $PASSWORD")
    stays("Passwortmanager: KeePass2")
  })
})
