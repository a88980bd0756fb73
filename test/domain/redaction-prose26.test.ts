/**
 * Session 26 (tester25a F1, F13, F5): passwords given in prose that survived every redacted output.
 * F1: German's "Das Passwort lautet …", Italian's "la password è …", Polish `hasło: …`, Russian `Пароль: …`, Japanese
 * `パスワードは …`, Chinese `密码是…` (`password-prose-intl`). F13: the value before the words ("… is the password for
 * prod", "use … as the password"), a dash after the word (`Password — …`), `pw: …`, "my pwd is …", "creds are admin / …",
 * `PIN code 482917`.
 * F5: `sshpass -f <(echo '…')` and an email written `bob.hidden.user [at] corp-example.com`. Each goes as text, as
 * JSON text and as JSON text held in a string (the rules are shared by every redacted output); prose about passwords
 * stays. Non-ASCII text is written as \u escapes.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { allGone, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const INTL = marker("password-prose-intl")
const PROSE = marker("password-prose")
const CRED = marker("credential-prose")

/** Each [text, what it must become]: exactly that, and the secret gone as JSON text and in a string too. */
const table = (cases: ReadonlyArray<readonly [string, string, string]>) => {
  for (const [text, want, secret] of cases) {
    expect(r.text(text), text).toBe(want)
    allGone(text, [secret])
  }
}

describe("tester25a F1: a password told in German with lautet, Italian, Polish, Russian, Japanese, Chinese", () => {
  it("the corpus rows and their variants", () => {
    const de = j("Geheimnis", "4711Xy")
    const it_ = j("Itali4", "Pw99")
    const pl = j("P0lskie", "Haslo1")
    const ru = j("Qwerty", "987Rr")
    const ja = j("JpPassw0rd", "55")
    const zh = j("ZhMima", "123456Ab")
    table([
      [`Das Passwort lautet ${de} f\u00fcr den Server.`, `Das Passwort lautet ${INTL} f\u00fcr den Server.`, de],
      [`Das Kennwort lautet: ${de}`, `Das Kennwort lautet: ${INTL}`, de],
      [`la password \u00e8 ${it_}`, `la password \u00e8 ${INTL}`, it_],
      [`La password del server \u00e8: ${it_}.`, `La password del server \u00e8: ${INTL}.`, it_],
      [`has\u0142o: ${pl}`, `has\u0142o: ${INTL}`, pl],
      [`Moje has\u0142o to ${pl}`, `Moje has\u0142o to ${INTL}`, pl],
      [`haslo brzmi ${pl}`, `haslo brzmi ${INTL}`, pl],
      [`\u041f\u0430\u0440\u043e\u043b\u044c: ${ru} \u0434\u043b\u044f \u0432\u0445\u043e\u0434\u0430`, `\u041f\u0430\u0440\u043e\u043b\u044c: ${INTL} \u0434\u043b\u044f \u0432\u0445\u043e\u0434\u0430`, ru],
      [`\u043f\u0430\u0440\u043e\u043b\u044c \u2014 ${ru}`, `\u043f\u0430\u0440\u043e\u043b\u044c \u2014 ${INTL}`, ru],
      [`\u043f\u0430\u0440\u043e\u043b\u044c \u044d\u0442\u043e ${ru}`, `\u043f\u0430\u0440\u043e\u043b\u044c \u044d\u0442\u043e ${INTL}`, ru],
      [`\u30d1\u30b9\u30ef\u30fc\u30c9\u306f ${ja} \u3067\u3059`, `\u30d1\u30b9\u30ef\u30fc\u30c9\u306f ${INTL} \u3067\u3059`, ja],
      // no spaces: the token ends where the Japanese does; a full-width colon; corner brackets
      [`\u30d1\u30b9\u30ef\u30fc\u30c9\u306f${ja}\u3067\u3059\u3002`, `\u30d1\u30b9\u30ef\u30fc\u30c9\u306f${INTL}\u3067\u3059\u3002`, ja],
      [`\u30d1\u30b9\u30ef\u30fc\u30c9\uff1a${ja}`, `\u30d1\u30b9\u30ef\u30fc\u30c9\uff1a${INTL}`, ja],
      [`\u30d1\u30b9\u30ef\u30fc\u30c9\u306f\u300c${ja}\u300d\u3067\u3059`, `\u30d1\u30b9\u30ef\u30fc\u30c9\u306f\u300c${INTL}\u300d\u3067\u3059`, ja],
      [`\u5bc6\u7801\u662f ${zh}`, `\u5bc6\u7801\u662f ${INTL}`, zh],
      [`\u6211\u7684\u5bc6\u7801\u662f${zh}\u3002`, `\u6211\u7684\u5bc6\u7801\u662f${INTL}\u3002`, zh],
      [`\u5bc6\u78bc\u70ba ${zh}`, `\u5bc6\u78bc\u70ba ${INTL}`, zh],
      [`\u5bc6\u7801: ${zh}`, `\u5bc6\u7801: ${INTL}`, zh],
      [`\ube44\ubc00\ubc88\ud638\ub294 ${zh}`, `\ube44\ubc00\ubc88\ud638\ub294 ${INTL}`, zh]
    ])
  })

  it("prose in those languages, and words without a digit or a symbol, stay", () => {
    stays("Das Passwort lautet wie folgt:")
    stays("Das Passwort lautet: falsch")
    stays("la password \u00e8 sbagliata")
    stays("La password \u00e8 obbligatoria.")
    stays("has\u0142o: nieprawid\u0142owe")
    stays("has\u0142o to tajemnica")
    stays("\u041f\u0430\u0440\u043e\u043b\u044c: \u043d\u0435\u0432\u0435\u0440\u043d\u044b\u0439")
    stays("\u043f\u0430\u0440\u043e\u043b\u044c \u2014 \u044d\u0442\u043e \u0441\u0435\u043a\u0440\u0435\u0442")
    stays("\u30d1\u30b9\u30ef\u30fc\u30c9\u306f\u5fd8\u308c\u307e\u3057\u305f")
    stays("\u5bc6\u7801\u662f\u4ec0\u4e48\uff1f")
    stays("\u5bc6\u7801\u662f ******")
    stays("\u30d1\u30b9\u30ef\u30fc\u30c9: $PASSWORD")
    // a word that only ends like one
    stays("Kennwortes: Abc123xyz9")
  })
})

describe("tester25a F13: English ways of giving a password", () => {
  it("the corpus rows and their variants", () => {
    const rev = j("Rev1s", "Passw0rd!")
    const as = j("AsTh3", "Passw0rd!")
    const em = j("Em3Dash", "Pw99")
    const pw = j("Abbr3v", "Pw77")
    const pwd = j("Pwd1s", "Pr0se")
    const creds = j("Cr3ds", "SlashPw")
    table([
      [`${rev} is the password for prod`, `${PROSE} is the password for prod`, rev],
      [`${rev} is my password.`, `${PROSE} is my password.`, rev],
      [`"${rev}" is the new root password`, `"${PROSE}" is the new root password`, rev],
      [`(${rev} was the password)`, `(${PROSE} was the password)`, rev],
      [`use ${as} as the password`, `use ${PROSE} as the password`, as],
      [`Set ${as} as your password, then log in.`, `Set ${PROSE} as your password, then log in.`, as],
      [`use 'open sesame 7' as the passphrase`, `use '${PROSE}' as the passphrase`, "open sesame 7"],
      [`Password \u2014 ${em}`, `Password \u2014 ${PROSE}`, em],
      [`the password \u2013 ${em}`, `the password \u2013 ${PROSE}`, em],
      [`root password - ${em}`, `root password - ${PROSE}`, em],
      [`pw: ${pw}`, `pw: ${CRED}`, pw],
      [`PW = ${pw}`, `PW = ${CRED}`, pw],
      [`my pwd is ${pwd}`, `my pwd is ${CRED}`, pwd],
      [`Pwd \u2014 ${pwd}`, `Pwd \u2014 ${CRED}`, pwd],
      [`the pw was ${pwd}.`, `the pw was ${CRED}.`, pwd],
      [`creds are admin / ${creds}`, `creds are admin / ${CRED}`, creds],
      [`Creds: root/${creds}`, `Creds: root/${CRED}`, creds],
      [`credentials are admin / ${creds}`, `credentials are admin / ${CRED}`, creds],
      ["PIN code 482917", `PIN code ${marker("token-prose")}`, "482917"],
      ["the PIN number is: 4821.", `the PIN number is: ${marker("token-prose")}.`, "4821"]
    ])
  })

  it("prose about passwords stays", () => {
    for (const s of [
      "the password is stored in vault",
      "password is required",
      "what is the password policy?",
      "use the password manager",
      "Argon2id is the password hash we use",
      "use bcrypt2 as the password hashing function",
      "OAuth2 is the password replacement",
      "v1.2.3 is the password manager version",
      "Step 2 is the password reset",
      "password \u2014 see the vault",
      "password - required",
      "Password \u2014 $DB_PASSWORD",
      "pwd: /srv/bob/app2",
      "PWD=/srv/app_1 OLDPWD=/tmp",
      "pwd: ~/src/app2",
      "pw: 100",
      "pw: wrong",
      "my pwd is wrong",
      "creds are admin / root",
      "credentials are in the vault",
      "PIN code required",
      "pin number 12 is GPIO"
    ]) stays(s)
  })
})

describe("tester25a F5: a password in a process substitution, an obfuscated email", () => {
  it("sshpass -f <(echo '…') and a --password-file given a process substitution", () => {
    const p = j("H3reStr1", "ngPw")
    const M = marker("substituted-password")
    table([
      [`sshpass -f <(echo '${p}') ssh host`, `sshpass -f <(echo '${M}') ssh host`, p],
      [`sshpass -v -f <(echo -n ${p}) scp a host:`, `sshpass -v -f <(echo -n ${M}) scp a host:`, p],
      [`tool --password-file=<(printf '%s' "${p}") run`, `tool --password-file=<(printf '%s' "${M}") run`, p],
      [`restic --password-file <( echo ${p} ) backup`, `restic --password-file <( echo ${M} ) backup`, p]
    ])
    stays("sshpass -f <(cat pw.txt) ssh host")
    stays("sshpass -f <(echo \"$PW\") ssh host")
    stays("sshpass -f <(echo '<password>') ssh host")
    stays("diff <(echo a1b2c3) <(echo d4e5f6)")
  })

  it("an email written with [at] and [dot]", () => {
    const M = marker("email-obfuscated")
    table([
      ["write to bob.hidden.user [at] corp-example.com", `write to ${M}`, "bob.hidden.user"],
      ["alice(at)example.org, thanks", `${M}, thanks`, "alice"],
      ["carol {AT} mail [dot] example [dot] com.", `${M}.`, "carol"]
    ])
    stays("meet [at] noon")
    stays("we (at) home.")
    stays("ask [at] the desk.")
  })
})
