/**
 * Session 26 (tester26a F3, F4, F5, F6): a `.pgpass` password with libpq's escapes (`\:`, `\\`) goes whole
 * (`pgpass-password`); Django's `pbkdf2_sha256$iterations$salt$hash` is a password hash (`password-hash`); a
 * setting's line after a heavy bar `  12 ┃ `, a spaced colon `  12 : ` or a bar without a number `│ ` (`secret-line`);
 * a password told in prose in backticks, "the password was changed to …", "user admin and pass …", an appositive
 * "…, the root password", and Russian/German `пароль …`/`Passwort …` with white space alone (as English `password …`).
 * Values are made up.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
const PG = marker("pgpass-password")
const HASH = marker("password-hash")
const LINE = marker("secret-line")
const CRED = marker("credential-prose")
const PROSE = marker("password-prose")
const INTL = marker("password-prose-intl")

describe("a .pgpass password with libpq's escapes (tester26a F3)", () => {
  it.each([
    ["localhost:5432:*:admin:QZpg\\:pass43", `localhost:5432:*:admin:${PG}`],
    ["db:5432:app:u:QZpgpass44\\\\", `db:5432:app:u:${PG}`],
    ["db:5432:app:u:pass\\:word", `db:5432:app:u:${PG}`],
    ["  1 \u2502 db:5432:app:u:Pg\\\\Esc9", `  1 \u2502 db:5432:app:u:${PG}`],
    ["echo 'db:5432:app:u:Pg\\:Echo9' > ~/.pgpass", `echo 'db:5432:app:u:${PG}' > ~/.pgpass`],
    // JSON text: each backslash doubled
    ['{"command":"echo \'db:5432:app:u:Pg\\\\:Json9\' > ~/.pgpass"}', `{"command":"echo 'db:5432:app:u:${PG}' > ~/.pgpass"}`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })

  it.each(["localhost:5432:db:user:password", "db:5432:app:u:$PGPASSWORD", "12:30:45:00:11"])("%j stays", (text) => {
    expect(r.text(text)).toBe(text)
  })
})

describe("Django's PBKDF2 password hash (tester26a F5)", () => {
  const h = ["pbkdf2_sha256$260000$QZsalt23$", "QZdjangohashAbCdEfGhIjKlMnOpQrStUvWxYz012345="].join("")
  it.each([
    [h, HASH],
    [`password = "${h}"`, `password = "${HASH}"`],
    [`1|admin|${h}|2024-01-01`, `1|admin|${HASH}|2024-01-01`],
    [["pbkdf2_sha1$10000$abc$", "Zm9vYmFyYmF6cXV4cXV1eA=="].join(""), HASH],
    // crypt(3) hashes of the finding, on the base already
    ["admin:$6$rounds=5000$saltsalt$QZshahash22abcdefghijklmnopqrstuvwxyz0123456789:19000:0:99999:7:::", `admin:${HASH}:19000:0:99999:7:::`],
    ["user:$apr1$QZsalt$QZapr1hashabcdefghij12", `user:${HASH}`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })

  it.each([
    "pbkdf2_sha256$260000",
    "pbkdf2_sha256$<iterations>$<salt>$<hash>",
    "the hasher is pbkdf2_sha256 with 260000 iterations",
    "mypbkdf2_sha256$260000$abc$Zm9vYmFyYmF6cXV4cXV1eA=="
  ])("%j stays", (text) => {
    expect(r.text(text)).toBe(text)
  })
})

describe("a setting's line after other gutters (tester26a F6)", () => {
  it.each([
    ["\u2502 DB_PASSWORD = QZbarOnly27", `\u2502 DB_PASSWORD = ${LINE}`],
    ["  12 \u2503 DB_PASSWORD = QZheavybar28", `  12 \u2503 DB_PASSWORD = ${LINE}`],
    ["  12 : DB_PASSWORD = QZcolonbar29", `  12 : DB_PASSWORD = ${LINE}`],
    ["\u2503 +api_secret = QZx1234", `\u2503 +api_secret = ${LINE}`],
    ['{"stdout":"  3 \\u2503 db_password = Qz9heavy"}', `{"stdout":"  3 \\u2503 db_password = ${LINE}"}`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })

  it.each(["at 12 : the password = fine", "\u2502 password = \u2502", "\u2502 DB_PASSWORD = $DB_PASSWORD"])("%j stays", (text) => {
    expect(r.text(text)).toBe(text)
  })
})

describe("passwords told in prose (tester26a F4)", () => {
  it.each([
    ["use the password `QZtick37` to log in", `use the password \`${CRED}\` to log in`],
    ["Use password `QZtick35` to log in", `Use password \`${CRED}\` to log in`],
    ["the admin password was changed to QZchanged39", `the admin password was changed to ${PROSE}`],
    ["the password has been reset to Temp!2024", `the password has been reset to ${PROSE}`],
    ["login with user admin and pass QZadmin2024", `login with user admin and pass ${CRED}`],
    ["user bob & pw Hunt3r!x", `user bob & pw ${CRED}`],
    ["I set it to QZmango8899, the root password", `I set it to ${PROSE}, the root password`],
    ["\u043c\u043e\u0439 \u043f\u0430\u0440\u043e\u043b\u044c QZvodka7777", `\u043c\u043e\u0439 \u043f\u0430\u0440\u043e\u043b\u044c ${INTL}`],
    ["\u043f\u0430\u0440\u043e\u043b\u044c QZvodka7778", `\u043f\u0430\u0440\u043e\u043b\u044c ${INTL}`],
    ["Passwort QZbrezel779", `Passwort ${INTL}`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })

  it.each([
    "set the password `db_password` in config",
    "pass `--password-stdin` to docker login",
    "the password was changed to something stronger",
    "write the password to /tmp/pw1",
    "the user list and pass 1234 along",
    "see step2, the password manager",
    "Passwort vergessen",
    "Passwort ist falsch",
    "das Passwort 2x falsch eingegeben",
    "Passwort v1.2.3",
    "\u043f\u0430\u0440\u043e\u043b\u044c \u043e\u0442 wifi2"
  ])("%j stays", (text) => {
    expect(r.text(text)).toBe(text)
  })
})
