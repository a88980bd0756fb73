/**
 * Session 13's redaction fixes (tester13 F1-F3, F5, F6): a PEM private key whose lines carry a prefix (a Markdown
 * quote, a comment, string pieces), PGP and PuTTY private keys, a secret set by a command that takes the name and
 * the value as words (`aws configure set`, fish `set -x`, Dockerfile `ENV`, `setx`), other secret shapes, and home
 * paths URL-encoded or under `/var/home`. Each with its near misses.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { B1, B2, B3, BEGIN, END, gone, inString, j, noKey, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const R = marker

describe("redaction 13 (F1): a PEM private key whose lines carry a prefix", () => {
  it("a Markdown quote, # comments, * comments: the whole block goes, the text around it stays", () => {
    for (const p of ["> ", "# ", " * ", "#", ">"]) {
      const text = `Here it is:\n${p}${BEGIN}\n${p}${B1}\n${p}${B2}\n${p}${B3}\n${p}${END}\nThanks`
      const out = r.text(text)
      noKey(out)
      expect(out, p).toBe(`Here it is:\n${p}${R("private-key")}\nThanks`)
    }
  })

  it("a key built from JavaScript / Python string pieces", () => {
    const js = `const key = '${BEGIN}\\n' +\n  '${B1}\\n' +\n  '${B2}\\n' +\n  '${END}';\nconsole.log(key)`
    const out = r.text(js)
    noKey(out)
    expect(out).toBe(`const key = '${R("private-key")}';\nconsole.log(key)`)
    const py = `key = (\n    "${BEGIN}\\n"\n    "${B1}\\n"\n    "${B3}\\n"\n    "${END}\\n"\n)\nprint(key)`
    const out2 = r.text(py)
    noKey(out2)
    expect(out2).toContain("print(key)")
    expect(out2).toContain("key = (\n")
  })

  it("a quoted key's lines joined on one line (a session's title)", () => {
    noKey(r.text(`> ${BEGIN} > ${B1} > ${B2} > ${END}`))
    const out = r.text(`> ${BEGIN} > ${B1} > ${B2}`)
    expect(out).toBe(`> ${R("private-key")}`)
  })

  it("the forms handled before still are: indentation, // comments", () => {
    noKey(r.text(`    ${BEGIN}\n    ${B1}\n    ${B2}\n    ${END}`))
    noKey(r.text(`// ${BEGIN}\n// ${B1}\n// ${B2}\n// ${END}`))
  })

  it("near misses: a quoted BEGIN line's neighbours that are prose stay", () => {
    const out = r.text(`> ${BEGIN}\n> is how a key starts\n> and that is all`)
    expect(out).toContain("> is how a key starts\n> and that is all")
    stays(`# a comment\n# ${"another comment line that is long enough to be forty"}`)
  })
})

describe("redaction 13 (F2): PGP and PuTTY private keys", () => {
  const PGP_BEGIN = j("-----BEGIN PGP ", "PRIVATE KEY BLOCK-----")
  const PGP_END = j("-----END PGP ", "PRIVATE KEY BLOCK-----")
  const PGP_BODY = "lQOYBF5abcdEFGHijklMNOPqrstUVWXyz0123456789abcdefghijklmnopqrstuv"
  it("an armored PGP private key block (blank line, version header, checksum) goes whole", () => {
    const text = `key:\n${PGP_BEGIN}\nVersion: GnuPG v2\n\n${PGP_BODY}\n${PGP_BODY}\n=abcd\n${PGP_END}\nend`
    const out = gone(text, "lQOYBF5abcd", "key:\n", "\nend")
    expect(out).not.toContain("=abcd")
    expect(out).not.toContain(PGP_END)
    gone(inString(text), "lQOYBF5abcd")
  })
  it("a PGP public key block and a signature stay", () => {
    stays(`-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n${PGP_BODY}\n=abcd\n-----END PGP PUBLIC KEY BLOCK-----`)
    stays(`-----BEGIN PGP SIGNATURE-----\n\n${PGP_BODY}\n-----END PGP SIGNATURE-----`)
  })
  it("a PuTTY key file: its private lines go, the header and the public lines stay", () => {
    const pub = "AAAAB3NzaC1yc2EAAAADAQABAAABAQC7"
    const priv1 = "AAABAQCPrivLineOneabcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"
    const priv2 = "PrivLineTwo0123456789abcdefghij="
    const text = `PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: rsa-key\nPublic-Lines: 1\n${pub}\nPrivate-Lines: 2\n${priv1}\n${priv2}\nPrivate-MAC: 0a1b2c`
    const out = gone(text, "PrivLineOne", "PuTTY-User-Key-File-3: ssh-rsa", pub, "Private-Lines: 2\n", "\nPrivate-MAC:")
    expect(out).not.toContain("PrivLineTwo")
    stays("Private-Lines: 14 is what the header says")
  })
})

describe("redaction 13 (F3): a secret set by a command that takes its name and value as words", () => {
  const K = "kT9sVx2Lq8Wm4Pz7Rb3Nc6Yd1Fh5Gj0Ke8Ua2Io9"
  it("AWS's secret access key after a space and in aws configure's prompt", () => {
    expect(r.text(`aws configure set aws_secret_access_key ${K}`)).toBe(`aws configure set aws_secret_access_key ${R("aws-secret-key")}`)
    expect(r.text(`AWS Secret Access Key [None]: ${K}`)).toBe(`AWS Secret Access Key [None]: ${R("aws-secret-key")}`)
    expect(r.text(`AWS Secret Access Key [****************Io9]: ${K}`)).toBe(`AWS Secret Access Key [****************Io9]: ${R("aws-secret-key")}`)
    gone(`export AWS_SECRET_ACCESS_KEY ${K}`, K, "export AWS_SECRET_ACCESS_KEY ")
    gone(`set -x AWS_SECRET_ACCESS_KEY ${K}`, K, "set -x AWS_SECRET_ACCESS_KEY ")
    gone(inString(`aws configure set aws_secret_access_key ${K}`), K)
  })
  it("fish set -x, aws configure set, Dockerfile ENV, setx: the value goes, the command and the name stay", () => {
    const S = R("secret-setting")
    expect(r.text("set -x DB_PASSWORD Fi5hPassw0rd")).toBe(`set -x DB_PASSWORD ${S}`)
    expect(r.text("set -gx GITHUB_TOKEN abc123def456ghi")).toBe(`set -gx GITHUB_TOKEN ${S}`)
    expect(r.text("FROM node:20\nENV DB_PASSWORD D0ckerEnvPw!\nRUN make")).toBe(`FROM node:20\nENV DB_PASSWORD ${S}\nRUN make`)
    expect(r.text(`setx DB_PASSWORD "W1nd0ws Pw"`)).toBe(`setx DB_PASSWORD "${S}"`)
    expect(r.text("aws configure set profile.dev.api_token Tok3nValue99")).toBe(`aws configure set profile.dev.api_token ${S}`)
    // `export NAME v` is no shell's way to set NAME to v (it exports two names): prose and code say "export" too
    stays("export API_KEY sk9abc123def")
  })
  it("near misses: prose, references, an unset, a count, a name alone", () => {
    stays("the password field is required")
    stays("set -x DB_PASSWORD $DB_PASSWORD")
    stays("ENV DB_PASSWORD=${DB_PASSWORD}")
    stays("set -e DB_PASSWORD")
    stays("set -x MAX_TOKENS 4096")
    stays("export DB_PASSWORD")
    stays("ENV API_KEY changeme_later_please_now".slice(0, 11))
    stays("we set the token earlier")
    stays("AWS Secret Access Key [None]: ")
  })
})

describe("redaction 13 (F5): other shapes", () => {
  it("Docker config.json auths: the base64 user:password goes", () => {
    const a = Buffer.from("bob:D0ckerPwdSecret99").toString("base64")
    gone(`{"auths": {"registry.example.com": {"auth": "${a}"}}}`, a, `"registry.example.com"`, `"auth": "`)
    stays(`{"auth": "none"}`)
    stays(`{"auth": "Ym9i"}`)
  })
  it("a .pgpass line", () => {
    expect(r.text("db.internal:5432:prod:app:PgP4ssF1leSecret")).toBe(`db.internal:5432:prod:app:${R("pgpass-password")}`)
    gone("cat ~/.pgpass\nlocalhost:*:*:postgres:Pgp4ss!", "Pgp4ss!", "localhost:*:*:postgres:")
    stays("12:30:45:00:11")
    stays("2025-12-04 10:00:01:INFO:done")
    stays("server.example.com:5432:db:user:password")
  })
  it("a requests auth tuple", () => {
    gone(`requests.get(url, auth=("bob", "Req5Auth!Pw"))`, "Req5Auth!Pw", `auth=("bob", "`)
    gone(`httpx.get(u, auth=HTTPBasicAuth('bob', 'Req5Auth!Pw'))`, "Req5Auth!Pw", "'bob'")
    stays(`requests.get(url, auth=("bob", password))`)
    stays(`requests.get(url, auth=("bob", ""))`)
  })
  it("passwords told in prose", () => {
    gone("credentials: admin/CredsPw2025!  and more", "CredsPw2025", "credentials: admin/")
    gone("log in as admin / AdminL0gin#Pw and go", "AdminL0gin#Pw", "log in as admin / ", " and go")
    gone("use the password Us3ThisPw!x to log in", "Us3ThisPw!x", "use the password ", " to log in")
    gone("the root password = toor1234 for now", "toor1234", "root password = ", " for now")
    gone(`passphrase "Sup3r Secret Phrase"`, "Sup3r Secret Phrase", "passphrase \"")
    gone("user=admin pass=Pa55word99", "Pa55word99", "user=admin pass=")
    gone(`{"pw": "Pw4json!x"}`, "Pw4json!x", `{"pw": "`)
    stays("the password field is required")
    stays("use the password manager to log in")
    stays("log in as admin / root and check")
    stays("credentials: see the vault/wiki")
    stays("password = getpass()")
    stays("password = hunter2 if ok else none")
    stays(`{"pw": "ok"}`)
    stays("the pass=3 run")
  })
  it("docker login --password-stdin with a here-string, an auth-named header, a Discord webhook, a TOTP seed", () => {
    gone("docker login -u bob --password-stdin <<< 'D0ckerSt!n'", "D0ckerSt!n", "--password-stdin <<< '")
    stays("docker login -u bob --password-stdin < pw.txt")
    gone(`curl -H 'X-Custom-Auth: Cust0mAuthVal' https://a.example.com`, "Cust0mAuthVal", "X-Custom-Auth: ")
    stays(`curl -H 'X-Custom-Auth: $TOKEN' https://a.example.com`)
    const hook = "https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefghijklmnop"
    gone(hook, "AbCdEfGhIjKlMnOp", "https://discord.com/api/webhooks/")
    gone("2FA secret: JBSWY3DPEHPK3PXP4KQW", "JBSWY3DPEHPK3PXP4KQW", "2FA secret: ")
    gone("the TOTP secret is JBSWY3DPEHPK3PXP", "JBSWY3DPEHPK3PXP")
    stays("the TOTP secret is stored in the app")
  })
})

describe("redaction 13 (F6): home paths URL-encoded, under /var/home, an encoded project folder alone", () => {
  it("the user name goes", () => {
    expect(r.text("open %2Fhome%2Fcarolenc%2Fproj now")).toBe("open ~%2Fproj now")
    expect(r.text("x=%2FUsers%2Fcarolenc%2Fp")).toBe("x=~%2Fp")
    expect(r.text("cd /var/home/davefile/y")).toBe("cd ~/y")
    expect(r.text("cd /data/home/davefile")).toBe("cd ~")
    expect(r.text("folder -Users-erinenc-dev here")).toBe("folder ~-dev here")
    expect(r.text(`"-home-erinenc-app"`)).toBe(`"~-app"`)
  })
  it("near misses stay", () => {
    stays("src/home/components/x.ts")
    stays("the --home-dir option")
    stays("100%2Fhomeward")
  })
})
