/**
 * tester22b F5: password shapes every redacted output let through (export NDJSON and ATIF, show's Markdown, the
 * replay, MCP answers): SQL's `IDENTIFIED BY '…'`, Go's `password := "…"` and typed declarations, `echo … |
 * docker login --password-stdin`, keytool's `-storepass`, `sqlplus user/pw@db`, `htpasswd -b`, a colour code whose
 * ESC was stripped (`[32msk_live_…`), PowerShell's `ConvertTo-SecureString "…" -AsPlainText`, and the short options
 * of ssh-keygen, zip, unzip, 7z, the LDAP tools, FreeRDP and `net use`. Each value goes (the names, options and
 * quotes stay), is a known secret of its session (a later message restating it loses it too), and the prose, code,
 * references and placeholders that look like them stay.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent } from "../../src/domain/model.js"
import { sessionRedactor } from "../../src/domain/redaction/redact.js"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction, Redaction } from "../../src/services/Redaction.js"
import { gone, inString, j, sessionEvent, shareableOutputs, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
// samples (not real secrets), joined at run time so that no secret scanner flags this file
const P = (n: number) => j("Qx", "7vT", String(n), "mFa!9")
const STRIPE = j("sk", "_live_", "4eC39HqLyjWDarjtT1zdp7dc")

/** The shapes of F5: [text, the value that must go, what the text becomes]. */
const SHAPES: ReadonlyArray<readonly [string, string, string]> = [
  [`ALTER USER 'app'@'%' IDENTIFIED BY '${P(1)}';`, P(1), `ALTER USER 'app'@'%' IDENTIFIED BY '${marker("sql-password")}';`],
  [`CREATE USER 'bob'@'localhost' IDENTIFIED WITH caching_sha2_password BY '${P(2)}';`, P(2), `CREATE USER 'bob'@'localhost' IDENTIFIED WITH caching_sha2_password BY '${marker("sql-password")}';`],
  [`create user app identified by ${P(3).slice(0, -2)}9_x account unlock;`, `${P(3).slice(0, -2)}9_x`, `create user app identified by ${marker("sql-password")} account unlock;`],
  ["alter user scott identified by tiger;", "tiger", `alter user scott identified by ${marker("sql-password")};`],
  [`SET PASSWORD FOR 'bob'@'localhost' = '${P(4)}';`, P(4), `SET PASSWORD FOR 'bob'@'localhost' = '${marker("sql-password")}';`],
  [`SET PASSWORD = PASSWORD('${P(5)}');`, P(5), `SET PASSWORD = PASSWORD('${marker("sql-password")}');`],
  [`password := "${P(6)}"`, P(6), `password := "${marker("secret-field")}"`],
  [`apiToken := "${P(7)}"`, P(7), `apiToken := "${marker("secret-field")}"`],
  [`val password: String = "${P(8)}"`, P(8), `val password: String = "${marker("secret-field")}"`],
  [`let password: &str = "${P(9)}";`, P(9), `let password: &str = "${marker("secret-field")}";`],
  [`echo "${P(10)}" | docker login -u bob --password-stdin`, P(10), `echo "${marker("stdin-password")}" | docker login -u bob --password-stdin`],
  [`printf '%s' '${P(11)}' | helm registry login r.io -u bob --password-stdin`, P(11), `printf '%s' '${marker("stdin-password")}' | helm registry login r.io -u bob --password-stdin`],
  [`echo ${P(12)} | gpg --batch --passphrase-fd 0 -d f.gpg`, P(12), `echo ${marker("stdin-password")} | gpg --batch --passphrase-fd 0 -d f.gpg`],
  [`keytool -list -keystore ks.jks -storepass ${P(13)}`, P(13), `keytool -list -keystore ks.jks -storepass ${marker("command-password")}`],
  [`keytool -importkeystore -deststorepass '${P(14)}' -destkeypass x`, P(14), `keytool -importkeystore -deststorepass '${marker("command-password")}' -destkeypass x`],
  [`sqlplus app/${P(15)}@//db:1521/orcl`, P(15), `sqlplus app/${marker("connect-password")}@//db:1521/orcl`],
  ["sqlplus -s scott/tiger@orcl", "tiger", `sqlplus -s scott/${marker("connect-password")}@orcl`],
  [`htpasswd -b -c .htpasswd admin ${P(16)}`, P(16), `htpasswd -b -c .htpasswd admin ${marker("htpasswd-password")}`],
  [`htpasswd -nb admin ${P(17)} > creds`, P(17), `htpasswd -nb admin ${marker("htpasswd-password")} > creds`],
  [`[32m${STRIPE}[0m`, STRIPE, `[32m${marker("stripe-key")}[0m`],
  [`$pw = ConvertTo-SecureString "${P(18)}" -AsPlainText -Force`, P(18), `$pw = ConvertTo-SecureString "${marker("securestring-password")}" -AsPlainText -Force`],
  [`ssh-keygen -t ed25519 -N '${P(19)}' -f ~/.ssh/deploy`, P(19), `ssh-keygen -t ed25519 -N '${marker("command-password")}' -f ~/.ssh/deploy`],
  [`zip -P ${P(20)} backup.zip db.sql`, P(20), `zip -P ${marker("command-password")} backup.zip db.sql`],
  [`unzip -P ${P(21)} backup.zip`, P(21), `unzip -P ${marker("command-password")} backup.zip`],
  [`7z a -p${P(22)} backup.7z db.sql`, P(22), `7z a -p${marker("command-password")} backup.7z db.sql`],
  [`ldapsearch -x -D "cn=admin,dc=ex,dc=com" -w ${P(23)} -b dc=ex,dc=com`, P(23), `ldapsearch -x -D "cn=admin,dc=ex,dc=com" -w ${marker("command-password")} -b dc=ex,dc=com`],
  [`xfreerdp /v:host /u:bob /p:${P(24)}`, P(24), `xfreerdp /v:host /u:bob /p:${marker("command-password")}`],
  [`net use Z: \\\\srv\\share /user:CORP\\bob ${P(25)}`, P(25), `net use Z: \\\\srv\\share /user:CORP\\bob ${marker("command-password")}`]
]

describe("tester22b F5: each shape's value goes, the rest stays", () => {
  it("as text, in JSON text, and in JSON text held in a string", () => {
    for (const [text, secret, want] of SHAPES) {
      expect(r.text(text), text).toBe(want)
      expect(r.text(JSON.stringify({ command: text })), text).toBe(JSON.stringify({ command: want }))
      gone(inString(JSON.stringify({ command: text })), secret)
    }
  })

  it("the tester's repro cases (cases-a, cases-d)", () => {
    const A = "QnbwvT4MfA!7"
    gone(`ALTER USER 'app'@'%' IDENTIFIED BY '${A}';`, A, "ALTER USER 'app'@'%' IDENTIFIED BY '")
    gone(`password := "${A}"`, A, "password := \"")
    gone(`echo "${A}" | docker login -u bob --password-stdin`, A, "| docker login -u bob --password-stdin")
    gone(`keytool -list -keystore ks.jks -storepass ${A}`, A, "-storepass ")
    gone(`sqlplus app/${A}@//db:1521/orcl`, A, "sqlplus app/", "@//db:1521/orcl")
    gone(`htpasswd -b -c .htpasswd admin ${A}`, A, "htpasswd -b -c .htpasswd admin ")
    gone(`net use Z: \\\\srv\\share /user:CORP\\bob ${A}`, A, "/user:CORP\\bob ")
    gone(`$pw = ConvertTo-SecureString "${A}" -AsPlainText -Force`, A, "-AsPlainText -Force")
  })

  it("prose, code, references and placeholders stay", () => {
    for (const t of [
      // SQL
      "use IDENTIFIED BY to set the password", "the IDENTIFIED BY clause.", "CREATE USER x IDENTIFIED BY :pw;", "CREATE USER x IDENTIFIED BY &pw;",
      "CREATE USER x IDENTIFIED BY '$DB_PW';", "CREATE USER x IDENTIFIED BY '%DB_PW%';", "CREATE USER x IDENTIFIED BY '<password>';",
      "CREATE USER x IDENTIFIED BY 'password';", "CREATE USER x IDENTIFIED BY ${PW};", "CREATE USER x IDENTIFIED BY RANDOM PASSWORD;",
      "CREATE USER x IDENTIFIED EXTERNALLY;", "SELECT PASSWORD(pw) FROM t", "a user identified by the team",
      // declarations
      "password := os.Getenv(\"DB_PASSWORD\")", "password: str = Field(default=None)", "password: Optional[str] = None",
      "interface Creds { password: string; token?: Token }", "if password == \"\" {", "password :: String",
      // stdin
      "echo \"$PW\" | docker login -u bob --password-stdin", "echo $CR_PAT | docker login ghcr.io -u bob --password-stdin",
      "cat pw.txt | docker login --password-stdin", "echo '<password>' | docker login --password-stdin", "echo %PW% | docker login --password-stdin",
      "echo ${TOKEN} | docker login --password-stdin", "printf '%s' \"$PW\" | docker login --password-stdin", "echo the password into --password-stdin",
      // options and arguments
      "keytool -list -storepass:env STOREPASS", "keytool -list -storepass $STOREPASS", "the keytool -storepass option is insecure",
      "ssh-keygen -t ed25519 -N '' -f key", "the ssh-keygen -N flag sets it", "ssh-keygen -N \"$PASS\" -f k", "zip -P is insecure",
      "unzip -P to decrypt", "7z a -p backup.7z", "mkdir -p /tmp/x1 && 7z x a.7z", "ldapsearch -x -W -D cn=admin", "ldapsearch -w $LDAP_PW",
      "grep -w foo1 x", "xfreerdp /v:host /u:bob /p:%PW%", "xfreerdp /v:host /u:bob /p:<password>", "net use Z: \\\\srv\\share /user:CORP\\bob * /persistent:no",
      "net use Z: \\\\srv\\share /user:bob /persistent:no", "sqlplus / as sysdba", "sqlplus @run.sql", "sqlplus username/password@db",
      "sqlplus app/$PW@db", "sqlplus user/<password>@db", "htpasswd -c .htpasswd admin", "htpasswd -b to set a password here", "htpasswd -b file user password",
      "htpasswd -B .htpasswd admin S3cret9x",
      "$pw = ConvertTo-SecureString $plain -AsPlainText -Force", "$s = ConvertTo-SecureString $encrypted", "ConvertTo-SecureString \"01000000d08c9ddf\" -Key $key",
      // an ANSI colour code whose ESC was stripped before no token, and brackets in code
      "[32mPASSED[0m tests", "arr[2m] and x[0K", "see [1;33mwarning[0m"
    ]) stays(t)
  })
})

describe("tester22b F5: gone from every redacted output, and from the later messages of its session", () => {
  const events = (): ReadonlyArray<SessionEvent> =>
    SHAPES.flatMap(([text], i) => [
      sessionEvent(2 * i + 1, { kind: "message", role: "user", occurredAt: "2026-08-01T00:00:01.000Z", text: `case${i}:\n${text}` }),
      sessionEvent(2 * i + 2, { kind: "tool-call", occurredAt: "2026-08-01T00:00:02.000Z", toolName: "Bash", toolInput: { command: text }, text: null })
    ])
  const none = (where: string, out: unknown) => {
    const s = JSON.stringify(out)
    for (const [, secret] of SHAPES) expect(s, `${where}: ${secret}`).not.toContain(JSON.stringify(secret).slice(1, -1))
  }

  it.effect("NDJSON export, ATIF, the replay, the Markdown transcript and MCP's answers (sessionRedactor)", () =>
    Effect.gen(function*() {
      for (const [where, out] of yield* shareableOutputs(events, SHAPES.map(([text]) => text))) none(where, out)
      // MCP's answers redact each event with its session's known secrets (src/layers/mcp/answers.ts)
      none("mcp", events().map(sessionRedactor(r).event))
    }).pipe(Effect.provide(Redaction.layer)))

  it("a value caught is a known secret: a later message restating it loses it too", () => {
    // (the secret-shaped values: `tiger`, a word, stays redacted where it was caught only)
    for (const [text, secret] of SHAPES.filter(([, s]) => s !== "tiger")) {
      const out = [sessionEvent(1, { kind: "tool-result", text }), sessionEvent(2, { kind: "message", text: `it worked with ${secret} here` })].map(sessionRedactor(r).event)
      expect(out[0].text, text).not.toContain(secret)
      expect(out[1].text, text).toMatch(/^it worked with \[REDACTED:[a-z-]+\] here$/)
    }
  })
})
