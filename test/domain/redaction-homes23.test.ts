/**
 * tester23b F5 and F7: home paths and emails the rules missed. A home in JSON with escaped slashes (`\/home\/<user>`:
 * PHP's json_encode, some Java encoders), in titles too; a home after a host in a remote URI
 * (`vscode-remote://ssh-remote+host/home/<user>`); macOS's `/users/` in lower case where it is clearly a home; an
 * email's address literal (`user@[10.0.0.1]`). And what stays: web routes, other URLs, version-like brackets.
 */
import { describe, expect, it } from "@effect/vitest"
import { builtinRules, marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
const home = builtinRules.find((x) => x.id === "home-path")!
const email = builtinRules.find((x) => x.id === "email")!

describe("home paths (tester23b F5, F7)", () => {
  it.each([
    ['Result: {"path":"\\/home\\/zqxuserA\\/proj\\/a.txt"}', 'Result: {"path":"~\\/proj\\/a.txt"}'],
    ['{"p":"\\/Users\\/bob\\/x"}', '{"p":"~\\/x"}'],
    ['{"cwd":"\\/home\\/alice"}', '{"cwd":"~"}'],
    ["vscode-remote://ssh-remote+host/home/zqxuserI/proj", "vscode-remote://ssh-remote+host~/proj"],
    ["vscode-remote://ssh-remote%2Bbox/Users/carol/app", "vscode-remote://ssh-remote%2Bbox~/app"],
    ["sftp://files.example.com/home/dave/x.txt", "sftp://files.example.com~/x.txt"],
    ["cd /users/zqxuserF/proj", "cd ~/proj"],
    ["file:///users/erin/a.txt", "file://~/a.txt"],
    ["ls /users/frank/Library/Caches", "ls ~/Library/Caches"],
    ["cat /users/gina/.ssh/config", "cat ~/.ssh/config"],
    ["open '/users/hal/Documents/plan.md'", "open '~/Documents/plan.md'"]
  ])("%j becomes %j (the rule's pattern and its hand-made form alike)", (text, want) => {
    expect(r.text(text)).toBe(want)
    expect(home.apply!(text)).toBe(want)
    expect(text.replace(home.pattern, "~")).toBe(want)
  })

  it("a title (the first prompt) with an escaped home is redacted too", () => {
    expect(r.title('Result: {"path":"\\/home\\/zqxuserA\\/proj"}', new Map())).toBe('Result: {"path":"~\\/proj"}')
  })

  it.each([
    "https://example.com/home/about",
    "GET /users/bob",
    "GET /users/bob/repos",
    "curl https://api.github.com/users/octocat/repos",
    "api/users/42/Documents",
    "/users/:id/Library",
    "see /users/bob and more",
    '"\\/api\\/users\\/bob"',
    '"\\/var\\/www\\/home\\/index.php"',
    "the /users/bob/Desktopish folder",
    "ssh://git@example.com/srv/home.git",
    "a\\/home\\/ward is not a path start"
  ])("%j stays as it is", (text) => {
    expect(r.text(text)).toBe(text)
    expect(home.apply!(text)).toBe(text)
  })
})

describe("address-literal emails (tester23b F7)", () => {
  it.each([
    ["send to zqxmailA@[10.0.0.1] today", `send to ${marker("email")} today`],
    ["mail root@[IPv6:2001:db8::1].", `mail ${marker("email")}.`],
    ['"to":"ops@[192.168.1.20]"', `"to":"${marker("email")}"`]
  ])("%j becomes %j (the pattern alike)", (text, want) => {
    expect(r.text(text)).toBe(want)
    expect(text.replace(email.pattern, marker("email"))).toBe(want)
  })

  it.each(["pkg@[1.2.3]", "arr@[0]", "git@[10.0.0.1]", "x@[10.0.0]", "x@[IPv4:1.2.3.4]", "@[10.0.0.1]"])("%j stays as it is", (text) => {
    expect(r.text(text)).toBe(text)
    expect(text.replace(email.pattern, marker("email"))).toBe(text)
  })
})
