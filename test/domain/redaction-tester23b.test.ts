/**
 * tester23b F2, F4, F8: command-line passwords of shapes no rule knew (Samba's `user%password`, a `user:password` or a
 * password piped to a command that reads one from stdin, a subcommand that sets a secret, `config set <secret's name>
 * <value>`, Redis' `AUTH`), a Terraform variable's default under a secret's name or in a `sensitive` block, and what
 * stands before a line-start rule's command or setting (a Windows prompt, a Markdown quote, a list item, a label).
 * Each family with variants of other commands, quoting and spacing, and the look-alikes that must stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
/** A password of the tester's shape (a digit and mixed case), joined at run time. */
const pw = (tag: string) => j("Zq9", tag, "1x")

describe("tester23b F2: user%password (Samba)", () => {
  it("the password after -U/--user and %, quoted or not, with a domain; smbclient's password after the service", () => {
    const v = pw("Smb")
    expect(r.text(`smbclient //srv/share -U alice%${v}`)).toBe(`smbclient //srv/share -U alice%${marker("user-password")}`)
    gone(`rpcclient -U 'CORP\\alice%${v}' 10.0.0.1`, v, "CORP\\alice%", "10.0.0.1")
    gone(`net ads join -U "admin%${v} x"`, v, "admin%")
    gone(`smbcacls //srv/share file --user=alice%${v}`, v, "--user=alice%")
    gone(inString(`smbclient //srv/share -U "alice%${v}"`), v, "alice%")
    gone(`smbclient //srv/share ${v} -U alice`, v, "-U alice")
    // (a marker after curl's -U is no user:password of curl's: redacting again changes nothing)
    gone(`curl -s https://x.example -U bob%${v}`, v, "-U bob%")
  })

  it("look-alikes stay: no password after the user, a % of another option, a word of letters as smbclient's argument", () => {
    for (const t of ["smbclient //srv/share -U alice", "ps -U root -o %cpu", "smbclient -L //srv -U%", "smbclient //srv/share -N", "smbclient //srv/share password -U bob"]) stays(t)
  })
})

describe("tester23b F2: a value piped into a command that reads a password", () => {
  it("chpasswd keeps the user; printf, yes, passwd --stdin, vncpasswd, kinit, gh, here-strings", () => {
    const v = pw("Pipe")
    expect(r.text(`echo 'alice:${v}' | chpasswd`)).toBe(`echo 'alice:${marker("piped-password")}' | chpasswd`)
    gone(`echo "bob:${v}" | sudo chpasswd`, v, "bob:", "sudo chpasswd")
    gone(`printf 'alice:${v}\\n' | /usr/sbin/chpasswd`, v, "alice:")
    gone(`echo 'devs:${v}' | chgpasswd`, v, "devs:")
    expect(r.text(`printf '%s\\n' ${v} | sudo -S systemctl restart app`)).toBe(`printf '%s\\n' ${marker("piped-password")} | sudo -S systemctl restart app`)
    gone(`yes ${v} | sudo -k -S true`, v, "sudo -k -S true")
    gone(`echo ${v} | vncpasswd -f > ~/.vnc/passwd`, v, "vncpasswd -f")
    gone(`echo -e "${v}\\n${v}" | passwd bob`, v, "passwd bob")
    gone(`echo ${v} | passwd --stdin bob`, v)
    gone(`echo -n ${v} | kinit bob@EXAMPLE.COM`, v)
    gone(`echo ${v}Tok | gh auth login --with-token`, v)
    gone(`echo ${v} | gh secret set API_KEY`, v, "gh secret set API_KEY")
    gone(`chpasswd <<< 'alice:${v}'`, v, "alice:")
    gone(`sudo -S apt update <<< "${v}"`, v, "sudo -S apt update")
    gone(inString(`echo 'alice:${v}' | chpasswd`), v, "alice:")
  })

  it("look-alikes stay: references, files, no reader, sudo without -S, gh secret set reading its stdin", () => {
    for (const t of [
      "echo $PW | chpasswd", "cat pw.txt | chpasswd", "chpasswd < users.txt", "echo root | grep -f /etc/passwd", `printf '%s\\n' "$PW" | sudo -S ls`,
      "echo hello1x | sudo pacman -S vim", "sudo apt update <<< 'hello1x'", "gh secret set NAME", "gh secret set API_KEY < key.txt",
      "echo '<password>' | passwd --stdin bob", "yes | sudo apt install jq", "echo done1 | tee out.txt"
    ]) stays(t)
  })
})

describe("tester23b F2: a subcommand that sets a secret", () => {
  it("gh --body/-b, rabbitmqctl, security -w/-p, wpa_passphrase, nmcli, user-secrets, --from-literal, secretsmanager, keyvault, secrets set", () => {
    const v = pw("Set")
    const C = marker("command-secret")
    expect(r.text(`gh secret set DEPLOY_KEY --body ${v}`)).toBe(`gh secret set DEPLOY_KEY --body ${C}`)
    expect(r.text(`gh secret set DEPLOY_KEY -b "${v}" --repo o/r`)).toBe(`gh secret set DEPLOY_KEY -b "${C}" --repo o/r`)
    gone(`gh secret set DEPLOY_KEY --body=${v}`, v)
    expect(r.text(`rabbitmqctl add_user bob ${v}`)).toBe(`rabbitmqctl add_user bob ${C}`)
    gone(`rabbitmqctl change_password bob '${v}'`, v, "change_password bob")
    gone(`sudo rabbitmqctl -n rabbit@h authenticate_user "bob" ${v}`, v)
    expect(r.text(`security add-generic-password -a bob -s svc -w ${v}`)).toBe(`security add-generic-password -a bob -s svc -w ${C}`)
    gone(`security add-internet-password -a bob -s example.com -w '${v}' -U`, v, "-U")
    gone(`security unlock-keychain -p ${v} login.keychain`, v, "login.keychain")
    expect(r.text(`wpa_passphrase HomeNet ${v}`)).toBe(`wpa_passphrase HomeNet ${C}`)
    gone(`wpa_passphrase "Home Net" '${v} with spaces' >> wpa.conf`, v, "wpa.conf")
    gone(`nmcli con modify home wifi-sec.psk '${v}'`, v)
    gone(`dotnet user-secrets set "Stripe:SecretKey" "${v}"`, v, "Stripe:SecretKey")
    gone(`kubectl create secret generic app --from-literal=api=${v} --from-literal=user=admin`, v, "user=admin")
    gone(`aws secretsmanager create-secret --name db --secret-string '{"user":"a","pass":"${v}"}'`, v)
    gone(`az keyvault secret set --vault-name kv --name db --value ${v}`, v)
    gone(`fly secrets set STRIPE=${v} OTHER=${v}b`, v, "STRIPE=", "OTHER=")
  })

  it("look-alikes stay: no value (a prompt or stdin), find-… -w (a flag), prose, references", () => {
    for (const t of [
      "gh secret set NAME", "gh secret set NAME --body \"$TOKEN\"", "rabbitmqctl add_user bob", "rabbitmqctl add_user bob password",
      "security find-generic-password -s svc -w", "security add-generic-password -a bob -s svc -w", "wpa_passphrase takes the SSID and the passphrase",
      "wpa_passphrase HomeNet < pass.txt", "kubectl create configmap app --from-literal=mode=Fast1", "fly secrets list"
    ]) stays(t)
  })
})

describe("tester23b F2: config set <a secret's name> <value>", () => {
  it("npm, pnpm, yarn, git, glab, poetry, composer, bundle", () => {
    const v = pw("Cfg")
    const F = marker("config-secret")
    expect(r.text(`npm config set //registry.npmjs.org/:_authToken ${v}LongToken`)).toBe(`npm config set //registry.npmjs.org/:_authToken ${F}`)
    expect(r.text(`yarn config set npmAuthToken ${v}LongToken`)).toBe(`yarn config set npmAuthToken ${F}`)
    gone(`npm set //npm.pkg.github.com/:_authToken ${v}`, v)
    gone(`pnpm config set --location=global //reg.example/:_password "${v}"`, v)
    gone(`npm config set _auth ${v}`, v)
    gone(`git config --global github.token ${v}`, v, "github.token")
    gone(`glab config set token ${v} -g`, v, "-g")
    expect(r.text(`poetry config http-basic.myrepo alice ${v}`)).toBe(`poetry config http-basic.myrepo alice ${F}`)
    gone(`composer config -g github-oauth.github.com ${v}`, v)
    gone(`composer config --global http-basic.repo.example.org bob '${v}'`, v, "bob")
    expect(r.text(`bundle config set --global gems.contribsys.com alice:${v}`)).toBe(`bundle config set --global gems.contribsys.com alice:${F}`)
  })

  it("look-alikes stay: a registry, an editor, a user name, references, a setting with no value", () => {
    for (const t of [
      "npm config set registry https://registry.npmjs.org/", "npm config set //registry.npmjs.org/:_authToken ${NPM_TOKEN}", "git config --global core.editor vim",
      "git config --global user.name Bob", "poetry config http-basic.myrepo alice", "yarn config set npmRegistryServer https://npm.example", "npm config get _authToken"
    ]) stays(t)
  })
})

describe("tester23b F2: Redis passwords", () => {
  it("AUTH after a prompt, at a line's start, with a user, after redis-cli; CONFIG SET requirepass; redis.conf; ACL SETUSER", () => {
    const v = pw("Redis")
    const R = marker("redis-password")
    expect(r.text(`redis-cli\n> AUTH ${v}`)).toBe(`redis-cli\n> AUTH ${R}`)
    expect(r.text(`AUTH default ${v}`)).toBe(`AUTH default ${R}`)
    gone(`127.0.0.1:6379> auth ${v}`, v, "127.0.0.1:6379> auth")
    gone(`redis-cli -h db AUTH "${v}"`, v)
    gone(`CONFIG SET requirepass "${v}"`, v, "requirepass")
    gone(`# redis.conf\nrequirepass ${v}\nmasterauth ${v}`, v, "masterauth")
    gone(`redis-server --requirepass ${v}`, v)
    gone(`127.0.0.1:6379> AUTH ${v}, then PING`, v, ", then PING")
    gone(`ACL SETUSER bob on >${v} ~* +@all`, v, "~* +@all")
    gone(inString(`redis-cli\n> AUTH ${v}`), v)
  })

  it("AUTH in prose stays, and a placeholder", () => {
    for (const t of ["The AUTH command takes a password.", "AUTH failed", "AUTH <password>", "> AUTH is required before SET", "ERR AUTH called without any password configured", "Use AUTH password here"]) stays(t)
  })
})

describe("tester23b F4: a Terraform variable's default", () => {
  it("under a secret's name, on several lines or one; any value in a sensitive block; JSON text", () => {
    const v = pw("TfVar")
    const T = marker("terraform-variable")
    expect(r.text(`variable "db_password" {\n  default = "${v}"\n}`)).toBe(`variable "db_password" {\n  default = "${T}"\n}`)
    gone(`variable "api_token" { type = string, default = "${v}" }`, v)
    gone(`variable "conn" {\n  type      = string\n  default   = "${v}"\n  sensitive = true\n}`, v, "sensitive = true")
    gone(`output "conn" {\n  value     = "${v}"\n  sensitive = true\n}`, v)
    gone(inString(`variable "db_password" {\n  default = "${v}"\n}`), v)
  })

  it("other variables, references, no default stay", () => {
    for (const t of [
      `variable "region" {\n  default = "us-east-1"\n}`, `variable "db_password" {\n  type = string\n}`, `variable "db_password" { default = var.x }`,
      `output "id" {\n  value = aws_instance.x.id\n}`, `variable "instance_count" {\n  default = 3\n}`, `variable "db_password" {\n  default = ""\n  sensitive = true\n}`
    ]) stays(t)
  })
})

describe("tester23b F8: what comes before a line-start rule's command or setting", () => {
  it("a Windows prompt, PowerShell's, a Markdown quote, a list item with backticks, a label", () => {
    const v = pw("Lead")
    const aws = j("Zq9AwsQuote/", "Abcdefghijklmnopqrstuv12")
    expect(r.text(`C:\\> setx API_KEY ${v}`)).toBe(`C:\\> setx API_KEY ${marker("secret-setting")}`)
    gone(`PS C:\\Users\\bob> setx API_KEY "${v}"`, v)
    gone(`C:\\src>setx GITHUB_TOKEN ${v}`, v)
    expect(r.text(`> aws_secret_access_key = ${aws}`)).toBe(`> aws_secret_access_key = ${marker("secret-line")}`)
    expect(r.text("- `aws_secret_access_key = " + aws + "`")).toBe("- `aws_secret_access_key = " + marker("secret-line") + "`")
    gone(`> > password = ${v}`, v)
    gone(`1. DB_PASSWORD = ${v}`, v)
    gone(`[setx] setx API_KEY ${v}`, v, "[setx] setx API_KEY")
    gone(`[aws-configure] aws configure set aws_secret_access_key ${v}LongValue`, v)
    gone(`Run: setx API_KEY ${v}`, v, "Run:")
    gone(`Then run: set -x API_TOKEN ${v}`, v)
  })

  it("prose stays", () => {
    for (const t of ["we export PASS test/app.test.ts", "Note: set the API_KEY to something", "> password = None", "- `password = getpass()`", "> Run: setx API_KEY %KEY%"]) stays(t)
  })
})
