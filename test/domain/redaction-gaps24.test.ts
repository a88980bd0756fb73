/**
 * Session 24 (tester24a F4, F5, F6, F9): secrets and home folders the rules missed in shareable outputs. Each case's
 * secret is a made-up value; the expected text is what docs/redaction.md says the rule leaves.
 */
import { describe, expect, it } from "@effect/vitest"
import type { SessionEvent } from "../../src/domain/model.js"
import { sessionRedactor } from "../../src/domain/redaction/redact.js"
import { builtinRules, hiddenUserName, homeUserNames, marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction

describe("passwords of documented tool options and variables (tester24a F6)", () => {
  it.each([
    ["SSHPASS=SshPassEnv5512 sshpass -e ssh host", `SSHPASS=${marker("secret-assignment")} sshpass -e ssh host`],
    ["export SSHPASS='pw with 1 space'", `export SSHPASS='${marker("secret-assignment")}'`],
    ["REDISCLI_AUTH=RedisPw123 redis-cli -h cache", `REDISCLI_AUTH=${marker("secret-assignment")} redis-cli -h cache`],
    ["lftp -u bob,LftpPw77123 ftp.example.org", `lftp -u bob,${marker("cli-password")} ftp.example.org`],
    ["lftp -u 'bob,Lftp pass 9' ftp.example.org", `lftp -u 'bob,${marker("cli-password")}' ftp.example.org`],
    ["lftp -e 'open -u bob,LfPw12345 host; mirror'", `lftp -e 'open -u bob,${marker("cli-password")} host; mirror'`],
    ["plink -ssh -pw PuttyPw123 bob@host", `plink -ssh -pw ${marker("cli-password")} bob@host`],
    ["pscp.exe -pw hunter2x f bob@host:/tmp", `pscp.exe -pw ${marker("cli-password")} f bob@host:/tmp`],
    ["mosquitto_pub -h h -u bob -P MqttPw123 -t t -m x", `mosquitto_pub -h h -u bob -P ${marker("cli-password")} -t t -m x`],
    ["ncftpget -u bob -p NcPw1234 ftp.example.org . /f", `ncftpget -u bob -p ${marker("cli-password")} ftp.example.org . /f`],
    ["rdesktop -u bob -p RdPw1234 host", `rdesktop -u bob -p ${marker("cli-password")} host`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })

  it.each([
    "lftp -u bob ftp.example.org",
    "lftp -u $FTP_USER,$FTP_PASS host",
    "rdesktop -p - host",
    "sshpass -e ssh host",
    "echo $SSHPASS",
    "SSHPASS_FILE=/run/pw sshpass -f /run/pw ssh host"
  ])("%j stays as it is", (text) => {
    expect(r.text(text)).toBe(text)
  })
})

describe("a shell's line continuation between a credential's name or scheme and its value (tester24a F5)", () => {
  const json = (s: string) => JSON.stringify({ command: s })
  it.each([
    [
      "curl https://api.x.com \\\n  -H 'Authorization: Bearer \\\n  CurlContBearer9912abcdefghijkl'",
      `curl https://api.x.com \\\n  -H 'Authorization: Bearer \\\n  ${marker("bearer-token")}'`
    ],
    ["curl -H 'Authorization: \\\n   Basic dXNlcjpwYXNzMTIz' u", `curl -H 'Authorization: \\\n   Basic ${marker("authorization")}' u`],
    ["gh api -H 'Authorization: token \\\r\n  ghx_abc12345678' x", `gh api -H 'Authorization: token \\\r\n  ${marker("bearer-token")}' x`],
    ["mysqldump --password \\\n  Dump1234x db", `mysqldump --password \\\n  ${marker("cli-secret-option")} db`],
    ["sshpass -p \\\n   SshCont1234 ssh h", `sshpass -p \\\n   ${marker("cli-password")} ssh h`],
    ["redis-cli -a \\\n  Rc1234xx ping", `redis-cli -a \\\n  ${marker("cli-password")} ping`]
  ])("%j becomes %j, and so in JSON text", (text, want) => {
    expect(r.text(text)).toBe(want)
    expect(r.text(json(text))).toBe(json(want))
  })

  it.each(["curl \\\n  -H 'Accept: application/json' \\\n  https://x", "Bearer \\\n  tokens are fine", "ls --secret \\\n  -l"])("%j stays as it is", (text) => {
    expect(r.text(text)).toBe(text)
  })
})

describe("home folders in other systems' forms (tester24a F9)", () => {
  const home = builtinRules.find((x) => x.id === "home-path")!
  it.each([
    ["ls /usr/home/zqxuserA/proj", "ls ~/proj"],
    ["ls /export/home/zqxuserB", "ls ~"],
    ["cd ~zqxuserC/proj && ls ~/x", "cd ~/proj && ls ~/x"],
    ['{"p":"~zqxuserC\\/x"}', '{"p":"~\\/x"}'],
    ["open file://localhost/home/zqxuserD/b.txt", "open file://localhost~/b.txt"],
    ["file://nas/home/zqxuserD/b.txt", "file://nas~/b.txt"],
    ["C:\\Documents and Settings\\zqxuserE\\y", "~\\y"],
    ["c:/documents and settings/zqxuserE/x", "~/x"],
    ['"C:\\\\Documents and Settings\\\\zqxuserE\\\\x"', '"~\\\\x"']
  ])("%j becomes %j (the rule's pattern and its hand-made form alike)", (text, want) => {
    expect(r.text(text)).toBe(want)
    expect(home.apply!(text)).toBe(want)
    expect(text.replace(home.pattern, "~")).toBe(want)
  })

  it.each(["~half the time", "https://x.org/~bob/page", "C:\\PROGRA~1\\x", "a ~~strike~~ b", "/usr/homebrew/x", "see ~bob later"])("%j stays as it is", (text) => {
    expect(r.text(text)).toBe(text)
    expect(home.apply!(text)).toBe(text)
  })
})

describe("a private key's body without its BEGIN and END lines (tester24a F4)", () => {
  // the tester's case: OpenSSH's magic (`openssh-key-v1\0…none…`), then 70-character lines
  const OPENSSH = [
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdzc2gtcn",
    "NhAAAAAwEAAQAAAYEAPemSplitBodyLineTwoXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "PemSplitBodyLineThreeYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYYY"
  ]
  // PKCS#1 RSA (`MIIEowIBAAK…`), 64-character lines, a short last line
  const PKCS1 = ["MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK", "bwKfBstIs+bMY2Zk/w=="]
  const key = marker("private-key")
  it.each([
    [OPENSSH.join("\n"), key],
    [`${OPENSSH.join("\n")}\ndone`, `${key}\ndone`],
    [`$ sed -n 2,4p id_rsa\n${OPENSSH.join("\r\n")}`, `$ sed -n 2,4p id_rsa\n${key}`],
    [JSON.stringify({ output: PKCS1.join("\n") }), JSON.stringify({ output: key })],
    [`  ${PKCS1.join("\n  ")}\n  next`, `  ${key}\n  next`],
    // PKCS#8 (Ed25519) and SEC1 EC keys, each a line
    ["key: MC4CAQAwBQYDK2VwBCIEIIMCSwT028T57OeHT2WdoL5I5sap8DJM2JhYaG8EeZHi", `key: ${key}`],
    ["MHcCAQEEIDMSNy1a6xA/eiiJWhVxJGBwrKfolaIYoAoGCCqGSM49AwEHoUQDQgAE", key],
    ["MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZm9vYmFyYmF6cXV4", key]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })

  it.each([
    // a certificate, a public key (DER and OpenSSH), a CSR: no private key's start
    "MIIC+TCCAeGgAwIBAgIUMtlmXdtf5kfGbR2HxOCPtOnMoJMwDQYJKoZIhvcNAQEL\nBQAwDDEKMAgGA1UEAwwBeDAeFw0yNjEyMDQxMzM1MTRaFw0yNjEyMDUxMzM1MTRa",
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAxgHnbdBREA4GxausLw7l\n74G66kO0AAvoljsoN2dgd7w98AICUN8tO2yET3MJOTafS+MHKckbIETLQOxZJm7b",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHVFjcdXPlcGOd8M/qYcQU5nJ7VVQ3L70NIYgNcklzJi root@vm",
    "MIICijCCAXICAQAwRTELMAkGA1UEBhMCQVUxEzARBgNVBAgMClNvbWUtU3RhdGUx",
    // the magic inside a longer base64 word is no key's start
    "xMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"
  ])("%j stays as it is", (text) => {
    expect(r.text(text)).toBe(text)
  })
})

describe("the user's name, known from the session's home paths (tester24a F9)", () => {
  const ev = (n: number, text: string, extensions?: Record<string, unknown>) =>
    ({
      contractVersion: "1", provider: "claude-code", sourceId: "s", sessionId: "x", eventId: `e${n}`, sequence: n, kind: "message", role: "tool",
      text, ...(extensions === undefined ? {} : { extensions })
    }) as unknown as SessionEvent
  const redact = (events: ReadonlyArray<SessionEvent>) => {
    const s = sessionRedactor(r)
    for (const e of events) s.see(e)
    return events.map((e) => s.event(e).text)
  }
  const U = marker("user-name")

  it("a user name of 6 characters or more goes wherever the session states it as a word, in later and earlier events", () => {
    const out = redact([
      ev(1, "zorkuser@laptop:~/proj$ make"),
      ev(2, "pwd; whoami\n/home/zorkuser/proj/secretapp\nzorkuser", { "native.claude-code": { cwd: "/home/zorkuser/proj/secretapp" } }),
      ev(3, "[zorkuser@laptop secretapp]$ ls\nhttps://zorkuser:GitCredStore8812abc@github.com and ~zorkuser, cat /home/zorkuser/x")
    ])
    expect(out).toEqual([
      `${U}@laptop:~/proj$ make`,
      `pwd; whoami\n~/proj/secretapp\n${U}`,
      `[${U}@laptop secretapp]$ ls\nhttps://${U}:${marker("url-credentials")}@github.com and ~${U}, cat ~/x`
    ])
  })

  it("only as a word of its own and in its case: zorkuser.github.io, zorkusers, Zorkuser stay", () => {
    expect(redact([ev(1, "cd /home/zorkuser"), ev(2, "see zorkuser.github.io, zorkusers, Zorkuser and my-zorkuser")])[1]).toBe(
      "see zorkuser.github.io, zorkusers, Zorkuser and my-zorkuser"
    )
  })

  it("a common account's name (root, ubuntu, runner, node) and a short one stay; a name of 4 or 5 goes in its own event only", () => {
    expect(redact([ev(1, "ls /home/ubuntu /Users/runner /home/node"), ev(2, "ubuntu@ip-10-0-0-1:~$ node app.js as runner")])[1]).toBe(
      "ubuntu@ip-10-0-0-1:~$ node app.js as runner"
    )
    expect(redact([ev(1, "ls /root /home/bob; echo bob")])[0]).toBe("ls /root ~; echo bob")
    expect(redact([ev(1, "cd /home/kzqw && whoami\nkzqw"), ev(2, "kzqw@host:~$")])).toEqual([`cd ~ && whoami\n${U}`, "kzqw@host:~$"])
  })

  it.each([
    ["zorkuser", true],
    ["kzqw", true],
    ["bob", false],
    ["root", false],
    ["Administrator", false],
    ["ec2-user", false],
    ["john.smith", true]
  ])("hiddenUserName(%j) is %j", (name, want) => {
    expect(hiddenUserName(name)).toBe(want)
  })
})

describe("the user's name is not read from an escape (the differential test's event)", () => {
  it("JSON text `C:\\\\Users\\\\\\npypi`: the `\\n` is a newline, not the name's first letter; nothing else loses an `n`", () => {
    const a = "see C:\\\\Users\\\\\\npypi-ag\\nsecret="
    expect(homeUserNames(a)).toEqual([])
    // plain text keeps its one backslash: `C:\Users\nina` is nina's home
    expect(homeUserNames("C:\\Users\\nina\\x")).toEqual(["nina"])
    const e = { kind: "tool-call", sequence: 1, text: "x", extensions: { k: { a, b: "I am npypi-ag here" } } } as unknown as SessionEvent
    const out = JSON.stringify(defaultRedaction.event(e).extensions)
    expect(out).not.toContain("user-name")
    expect(out).toContain("I am npypi-ag here")
  })
})
