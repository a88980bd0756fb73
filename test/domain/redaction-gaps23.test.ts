/**
 * Session 23: redaction gaps the docs listed as not seen (docs/redaction.md, "What a command-line rule does not see")
 * and their neighbours, each closed as a class:
 * 1. a key wrapped over lines whose rest ran on into the next line's first word (`ghp_…` at a line's end, then `7z a
 *    -pSecret123 out.7z`: the token took `7z`, and 7-Zip's password was no longer after its command);
 * 2. archive and command passwords: a letters-only value of an option that takes one (`zip -P hunter out.zip`, `7z a
 *    -pSecret`), RAR's `-p`/`-hp`, OpenSSL's `pass:…` and `-k`, `zip --password`, smbclient's `user%password`,
 *    PsExec's `-p`;
 * 3. Windows: `net use \\host\share <password> /user:…` (the password before `/user:`), `net user <name> <password>`,
 *    `cmdkey /pass:`, `wmic /password:`, `schtasks /rp`;
 * 4. Go's `var password string = "…"` and typed declarations of other languages (a TypeScript union, a C pointer).
 * Each secret goes, the commands, options, names and quotes stay, and prose and code that look like them stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
// samples (not real secrets), joined at run time so that no secret scanner flags this file
const GHP = j("ghp", "_", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6")
const OPENAI = j("sk", "-proj-", "Xq7Lm2Pz9Rt4Vb8Nc1Kd6Hs3Jf5Gw0Ya2Ue7Io4")
const GLPAT = j("gl", "pat-", "Zx8Cv7Bn6Mq5Wr4Et3Yu2I")
const CP = marker("command-password")

/** `text` redacted as text, in JSON text and in JSON text held in a string: `secret` goes each time, `want` is the text's redaction. */
const each = (text: string, secret: string, want: string) => {
  expect(r.text(text), text).toBe(want)
  expect(r.text(JSON.stringify({ command: text })), text).toBe(JSON.stringify({ command: want }))
  gone(inString(JSON.stringify({ command: text })), secret)
}

describe("session 23, gap 1: a wrapped key's rest takes no other secret's context", () => {
  const NEXT: ReadonlyArray<readonly [string, string, string]> = [
    // [the next line, its secret, what remains of it after the key's marker]
    ["7z a -pSecret123 out.7z", "Secret123", ` a -p${CP} out.7z`],
    ["7za x -p'Tr0ub4dor 3' out.7z docs", "Tr0ub4dor 3", ` x -p'${CP}' out.7z docs`],
    ["7zz a -mhe=on -pHunterTwo backup.7z db.sql", "HunterTwo", ` a -mhe=on -p${CP} backup.7z db.sql`]
  ]

  it("the key and the next line's password both go (a token at a line's end; \\n, \\r\\n, a JSON \\n escape)", () => {
    for (const key of [GHP, OPENAI, GLPAT]) {
      for (const [line, secret, rest] of NEXT) {
        for (const br of ["\n", "\r\n", "\\n"]) {
          const text = `token: ${key}${br}${line}`
          const out = gone(text, secret)
          expect(out, text).not.toContain(key.slice(-8))
          expect(out, text).toContain(rest)
          // the same as JSON text held in a string
          gone(inString(JSON.stringify({ t: text })), secret)
        }
      }
    }
  })

  it("a key wrapped at any width: the rest of its last line is redacted as that line alone", () => {
    // (a key cut at 30 characters: its rest, `gH3jK6…`, starts the next line, then the command)
    const out = gone(`${GHP.slice(0, 30)}\n${GHP.slice(30)} 7z a -pSecret123 out.7z`, "Secret123")
    expect(out).toBe(`${marker("github-token")} 7z a -p${CP} out.7z`)
    // a second key starting a wrap of its own at that line's end goes too
    const two = r.text(`${GHP}\n7z a -pSecret123 x.7z ${OPENAI.slice(0, 24)}\n${OPENAI.slice(24)}\nThanks`)
    for (const s of ["Secret123", GHP.slice(-8), OPENAI.slice(0, 12), OPENAI.slice(-8)]) expect(two).not.toContain(s)
    expect(two).toMatch(/\nThanks$/)
  })

  it("what follows a wrapped key on its line stays when no rule hides it", () => {
    expect(r.text(`${GHP.slice(0, 30)}\n${GHP.slice(30)} and then make`)).toBe(`${marker("github-token")} and then make`)
    expect(r.text(`key ${GHP}\nThanks, done.`)).toBe(`key ${marker("github-token")}\nThanks, done.`)
  })
})

describe("session 23, gap 2: archive and command passwords", () => {
  const SHAPES: ReadonlyArray<readonly [string, string, string]> = [
    ["zip -P hunter out.zip f", "hunter", `zip -P ${CP} out.zip f`],
    ["zip -r -P 'hunter' backup.zip ./src", "hunter", `zip -r -P '${CP}' backup.zip ./src`],
    ["zip --password hunter out.zip f", "hunter", `zip --password ${CP} out.zip f`],
    ["unzip -P pw out.zip", "pw", `unzip -P ${CP} out.zip`],
    ["unzip -o -P Secret -d /tmp/x out.zip", "Secret", `unzip -o -P ${CP} -d /tmp/x out.zip`],
    ["7z a -pSecret out.7z f", "Secret", `7z a -p${CP} out.7z f`],
    ["7za x -psecret archive.7z", "psecret", `7za x -p${CP} archive.7z`],
    ["rar a -hpSecret out.rar f", "Secret", `rar a -hp${CP} out.rar f`],
    ["rar a -pHunter2x out.rar f", "Hunter2x", `rar a -p${CP} out.rar f`],
    ["unrar x -p\"two words\" out.rar", "two words", `unrar x -p"${CP}" out.rar`],
    ["openssl enc -aes-256-cbc -d -in f.enc -out f -passin pass:x", "pass:x", `openssl enc -aes-256-cbc -d -in f.enc -out f -passin pass:${CP}`],
    ["openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:hunter", "hunter", `openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:${CP}`],
    ["openssl rsa -in k.pem -passin 'pass:my secret' -out k2.pem", "my secret", `openssl rsa -in k.pem -passin 'pass:${CP}' -out k2.pem`],
    ["openssl enc -aes-256-cbc -k secret -in f -out f.enc", "-k secret", `openssl enc -aes-256-cbc -k ${CP} -in f -out f.enc`],
    ["smbclient //srv/share -U bob%Passw0rd -c ls", "Passw0rd", `smbclient //srv/share -U bob%${marker("user-password")} -c ls`],
    ["psexec \\\\host -u admin -p Passw0rd cmd", "Passw0rd", `psexec \\\\host -u admin -p ${marker("cli-password")} cmd`],
    ["ldapsearch -x -D cn=admin -w secret -b dc=ex", "-w secret", `ldapsearch -x -D cn=admin -w ${CP} -b dc=ex`]
  ]

  it("each value goes (letters only too), the command, the option and the quotes stay", () => {
    for (const [text, secret, want] of SHAPES) each(text, secret, want)
  })

  it("those already covered still go: `zip -P` with a digit, `--password`, 7-Zip with a digit, sshpass, mysql", () => {
    for (const [text, secret] of [
      ["zip -P hunter2 out.zip f", "hunter2"], ["zip --password hunter2 out.zip f", "hunter2"], ["7z a -pSecret123 out.7z", "Secret123"],
      ["sshpass -p pw ssh bob@host", " pw "], ["mysql -u root -pSecret db", "Secret"],
      ["openssl enc -aes-256-cbc -in f -out f.enc -pass pass:secret", "pass:secret"]
    ]) gone(text, secret)
  })

  it("prose, prompts, references and no-password switches stay", () => {
    for (const t of [
      "zip -P is insecure", "zip -P is insecure.", "the zip -P flag", "unzip -P to decrypt files", "7z a -p backup.7z", "rar a -p- out.rar f",
      "rar a -hp out.rar", "7z a -p$PW out.7z", "unzip -P \"$ZIP_PW\" out.zip", "zip -P '<password>' out.zip f",
      "openssl enc -d -aes256 -passin env:PW -in f", "openssl rsa -passin file:pw.txt -in k", "openssl rsa -passin stdin -in k.pem",
      "openssl enc -k $KEY -in f", "ssh-keygen -N flag sets it", "smbclient //srv/share -U bob", "smbclient -U bob%$PW //srv/share",
      "the library archive is a rar a -p file", "keytool -storepass option is insecure"
    ]) stays(t)
  })
})

describe("session 23, gap 3: Windows commands", () => {
  const SHAPES: ReadonlyArray<readonly [string, string, string]> = [
    ["net use \\\\host\\share Passw0rd /user:DOMAIN\\bob", "Passw0rd", `net use \\\\host\\share ${CP} /user:DOMAIN\\bob`],
    ["net use Z: \\\\srv\\data$ hunter /user:bob /persistent:no", "hunter", `net use Z: \\\\srv\\data$ ${CP} /user:bob /persistent:no`],
    ["NET USE \\\\host\\share \"pass word 1\" /USER:bob", "pass word 1", `NET USE \\\\host\\share "${CP}" /USER:bob`],
    ["net use Z: \\\\srv\\share /user:CORP\\bob hunter", "hunter", `net use Z: \\\\srv\\share /user:CORP\\bob ${CP}`],
    ["net user bob Passw0rd /add", "Passw0rd", `net user bob ${CP} /add`],
    ["net user bob hunter /add /domain", "hunter", `net user bob ${CP} /add /domain`],
    ["NET USER \"John Smith\" S3cret! /ADD", "S3cret!", `NET USER "John Smith" ${CP} /ADD`],
    ["net user administrator hunter", "hunter", `net user administrator ${CP}`],
    ["C:\\> net user administrator hunter", "hunter", `C:\\> net user administrator ${CP}`],
    ["ls; net user administrator hunter", "hunter", `ls; net user administrator ${CP}`],
    ["cmdkey /add:server /user:bob /pass:pw", "pw", `cmdkey /add:server /user:bob /pass:${CP}`],
    ["cmdkey /generic:TERMSRV/host /user:bob /pass:\"Passw0rd\"", "Passw0rd", `cmdkey /generic:TERMSRV/host /user:bob /pass:"${CP}"`],
    ["CMDKEY /ADD:srv /USER:bob /PASS:hunter", "hunter", `CMDKEY /ADD:srv /USER:bob /PASS:${CP}`],
    ["wmic /node:host /user:admin /password:hunter os get caption", "hunter", `wmic /node:host /user:admin /password:${CP} os get caption`],
    ["schtasks /create /tn job /ru admin /rp Passw0rd /tr c.exe", "Passw0rd", `schtasks /create /tn job /ru admin /rp ${CP} /tr c.exe`]
  ]

  it("each password goes, the command, the user and the options stay", () => {
    for (const [text, secret, want] of SHAPES) each(text, secret, want)
  })

  it("prompts, options, references and prose stay", () => {
    for (const t of [
      "net use \\\\host\\share /user:bob", "net use \\\\host\\share * /user:bob", "net use \\\\host\\share %PW% /user:bob",
      "net use Z: \\\\srv\\share /persistent:no", "net use \\\\srv\\ipc$ \"\" /user:\"\"", "net user bob * /add", "net user bob /delete",
      "net user bob /active:no", "net user", "net user bob", "the net user command lists accounts", "the internet user bob hunter /add",
      "We use .NET user accounts here", "the NET user accounts here", "in our net user accounts here",
      "cmdkey /list", "cmdkey /pass:%PW%", "schtasks /create /ru admin /rp * /tr c.exe", "runas /user:admin cmd"
    ]) stays(t)
  })
})

describe("session 23, gap 4: declarations with a type", () => {
  const F = marker("secret-field")
  const SHAPES: ReadonlyArray<readonly [string, string, string]> = [
    ["var password string = \"hunter2\"", "hunter2", `var password string = "${F}"`],
    ["var password string = \"hunter\"", "hunter", `var password string = "${F}"`],
    ["\tvar dbPassword string=\"Secr3t!x\"", "Secr3t!x", `\tvar dbPassword string="${F}"`],
    ["const APIKey string = \"abcd1234efgh5678\"", "abcd1234efgh5678", `const APIKey string = "${F}"`],
    ["var (\n\tapiToken string = `t0k3n-value`\n)", "t0k3n-value", `var (\n\tapiToken string = \`${F}\`\n)`],
    ["var secret []byte = \"s3cr3t-bytes\"", "s3cr3t-bytes", `var secret []byte = "${F}"`],
    ["const password: string | null = \"hunter2\"", "hunter2", `const password: string | null = "${F}"`],
    ["let password: string|undefined = \"hunter2\";", "hunter2", `let password: string|undefined = "${F}";`],
    ["apiKey: SecretStr1 = \"abcd1234efgh5678\"", "abcd1234efgh5678", `apiKey: SecretStr1 = "${F}"`],
    ["char *password = \"hunter2\";", "hunter2", `char *password = "${F}";`]
  ]

  it("each literal goes, the declaration stays", () => {
    for (const [text, secret, want] of SHAPES) each(text, secret, want)
  })

  it("those already covered still go: Go's :=, Kotlin, Rust, TypeScript, C#", () => {
    for (const [text, secret] of [
      ["password := \"hunter2\"", "hunter2"], ["const apiKey = \"abcd1234efgh5678\"", "abcd1234efgh5678"],
      ["const password: string = \"hunter2\"", "hunter2"], ["let password: &str = \"hunter2\";", "hunter2"],
      ["val password: String = \"hunter2\"", "hunter2"], ["string password = \"hunter2\";", "hunter2"]
    ]) gone(text, secret)
  })

  it("code that reads a secret, declarations without a value and comparisons stay", () => {
    for (const t of [
      "password := getenv(\"PW\")", "password := os.Getenv(\"PW\")", "var password string = os.Getenv(\"PW\")", "var password string",
      "var token *string = nil", "const password: string = process.env.PW", "let password: string | undefined = undefined",
      "string password = Console.ReadLine();", "let password: String = String::new();", "val password: String = \"\"", "password := \"\"",
      "if password string == \"x\"", "var key []byte = []byte(\"x\")", "token string", "the password string = the text typed"
    ]) stays(t)
  })
})
