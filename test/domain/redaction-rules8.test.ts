/**
 * Session 8's redaction fixes (found by a fresh user): prose about an
 * option stays whatever punctuation follows it; Azure storage / Service Bus
 * connection-string keys, Twilio API key SIDs and "password is <token>" in
 * prose are redacted, with their near misses left alone.
 */
import { describe, expect, it } from "@effect/vitest"
import { builtinRules, marker, redactText } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
const R = marker
// built at run time so that no secret scanner flags this file
const j = (...p: Array<string>) => p.join("")
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
const seq = (n: number, alphabet: string, seed = 7) => Array.from({ length: n }, (_, i) => alphabet[(i * 31 + seed * 17 + ((i * i) % 7)) % alphabet.length]).join("")

describe("cli-secret-option: prose stays, whatever punctuation follows the word", () => {
  it.each([
    "use the --token flag, then retry",
    "pass --password option.",
    "set --secret value;",
    "try --api-key instead: it works",
    "is it the --token flag?",
    "(see the --password option)",
    "the --token flag! really",
    "run with --pass word, --token flag; --secret thing."
  ])("%j is left alone", (s) => {
    expect(r.text(s)).toBe(s)
  })
  it("values that look like secrets still go, with punctuation around them", () => {
    expect(r.text("mytool --token abc123, then retry")).toBe(`mytool --token ${R("cli-secret-option")} then retry`)
    expect(r.text("mytool --password pa.ss then")).toBe(`mytool --password ${R("cli-secret-option")} then`)
    expect(r.text("mytool --secret s3cret;")).toBe(`mytool --secret ${R("cli-secret-option")};`)
    expect(r.text("mytool --token abcdefghijklmnopqrst.")).toContain(R("cli-secret-option"))
    expect(r.text("mytool --token=flag, then")).toContain(R("cli-secret-option"))
    expect(r.text(`mytool --token "flag", then`)).toBe(`mytool --token "${R("cli-secret-option")}", then`)
  })
})

describe("azure-storage-key: connection-string keys", () => {
  const key = j(seq(86, B64), "==")
  const sbKey = j(seq(43, B64, 3), "=")
  it("AccountKey and SharedAccessKey values go; the rest of the connection string stays", () => {
    const cs = j("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=", key, ";EndpointSuffix=core.windows.net")
    expect(r.text(cs)).toBe(`DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${R("azure-storage-key")};EndpointSuffix=core.windows.net`)
    expect(r.text(`"${cs}"`)).toBe(`"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${R("azure-storage-key")};EndpointSuffix=core.windows.net"`)
    expect(r.text(j("AccountKey=", key))).toBe(`AccountKey=${R("azure-storage-key")}`)
    const sb = j("Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=", sbKey)
    expect(r.text(sb)).toBe(`Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${R("azure-storage-key")}`)
  })
  it("a SAS in a connection string loses its signature, wherever sig= is among its parameters", () => {
    const sig = j(seq(40, B64, 5).replace(/[+/]/g, "x"), "%3D")
    const a = j("BlobEndpoint=https://acme.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2030-01-01&sig=", sig)
    expect(r.text(a)).not.toContain(sig)
    const b = j("BlobEndpoint=https://acme.blob.core.windows.net/;SharedAccessSignature=sig=", sig, "&sv=2022-11-02&sp=rl")
    expect(r.text(b)).not.toContain(sig)
    expect(r.text(b)).toContain("sv=2022-11-02")
  })
  it("near misses stay: a reference, a placeholder, a short word, an inner word, the key's name", () => {
    for (const s of ["AccountKey=$AZURE_KEY", "AccountKey=<your key>", "AccountKey=...", "AccountKey=short", "SharedAccessKeyName=RootManageSharedAccessKey", "the AccountKey setting"]) {
      expect(r.text(s), s).toBe(s)
    }
    // an inner word is no AccountKey for this rule (since session 11, a line `MyAccountKey=<value that looks like a
    // secret>` is `secret-line`'s: a key's name at a line's start, `=`, the rest of the line)
    const azure = builtinRules.filter((x) => x.id === "azure-storage-key")
    const inner = "MyAccountKey=" + key.slice(0, 8)
    expect(redactText(azure, inner)).toBe(inner)
  })
})

describe("twilio-api-key: SK and 32 hex digits", () => {
  const sid = j("SK", "0123456789abcdef0123456789abcdef".split("").reverse().join(""))
  it("a key SID alone, in JSON, in an env line", () => {
    expect(r.text(`key ${sid} here`)).toBe(`key ${R("twilio-api-key")} here`)
    expect(r.text(`{"sid": "${sid}"}`)).toBe(`{"sid": "${R("twilio-api-key")}"}`)
    expect(r.text(`TWILIO_API_KEY_SID=${sid}`)).not.toContain(sid)
  })
  it("other hex stays: a SHA, 31 or 33 digits, upper-case hex, inside a word, no digit or no letter", () => {
    for (const s of [
      "0123456789abcdef0123456789abcdef01234567",
      j("SK", "0123456789abcdef0123456789abcde"),
      j("SK", "0123456789abcdef0123456789abcdef0"),
      j("SK", "0123456789ABCDEF0123456789ABCDEF"),
      j("TASK", "0123456789abcdef0123456789abcdef"),
      j("SK", "01234567890123456789012345678901"),
      j("SK", "abcdefabcdefabcdefabcdefabcdefab")
    ]) expect(r.text(s), s).toBe(s)
  })
})

describe("password-prose: \"password is <token>\" when the token has a digit or a symbol", () => {
  it.each([
    ["my password is hunter2", "my password is "],
    ["The password is: S3cret! ok", "The password is: "],
    ["Password is pa$$word.", "Password is "],
    ["the passphrase is correct-horse-battery-9, keep it", "the passphrase is "],
    ["PASSWORD IS Zq8#xLm2", "PASSWORD IS "]
  ])("%j loses the token", (s, head) => {
    const out = r.text(s)
    expect(out.startsWith(`${head}${R("password-prose")}`), out).toBe(true)
    expect(out).not.toMatch(/hunter2|S3cret|pa\$\$word|battery-9|Zq8#xLm2/)
  })
  it("sentence punctuation after the token stays", () => {
    expect(r.text("my password is hunter2.")).toBe(`my password is ${R("password-prose")}.`)
    expect(r.text("my password is hunter2, sorry")).toBe(`my password is ${R("password-prose")}, sorry`)
    // JSON text held in a string: the token ends at the backslash of a `\n` escape
    expect(r.text("my password is hunter2\\nnext line")).toBe(`my password is ${R("password-prose")}\\nnext line`)
  })
  it.each([
    "my password is wrong",
    "the password is: see the vault",
    "The password is correct!",
    "the password is at least 8 characters",
    "your password is 8+ chars",
    "password is $DB_PASSWORD",
    "the password is well-known",
    "password is required."
  ])("prose %j stays", (s) => {
    expect(r.text(s)).toBe(s)
  })
})
