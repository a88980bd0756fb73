/**
 * `session-ingest replay` (issue 15): the page on stdout or in a new --out
 * file (never over an existing one, the index not even read then), its size
 * reported, and the errors of an unknown session, as the other index
 * commands have them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { fixturesDir, repoRoot, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const imported = () => {
  const dir = tempDir("si-replay-cli-")
  const index = path.join(dir, "i.db")
  expect(cli(["import", "--index", index, "--agents-root", path.join(fixturesDir, "muse-agents", "agents"), "--workspace", dir]).code).toBe(0)
  return { dir, index }
}

describe("session-ingest replay", () => {
  it("prints the page on stdout, or writes it to a new --out file and says its size; the same page both ways", () => {
    const { dir, index } = imported()
    const r = cli(["replay", "sess-cron", "--index", index])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.startsWith("<!doctype html>")).toBe(true)
    expect(r.stdout).toContain("sess-cron")
    const out = path.join(dir, "cron.html")
    const w = cli(["replay", "sess-cr", "--index", index, "--out", out])
    expect(w.code, w.stderr).toBe(0)
    expect(w.stdout).toBe("")
    expect(w.stderr).toBe(`wrote ${out} (${Buffer.byteLength(r.stdout)} bytes)\n`)
    expect(fs.readFileSync(out, "utf8")).toBe(r.stdout)
    const j = cli(["replay", "sess-cron", "--index", index, "--out", path.join(dir, "cron2.html"), "--json"])
    expect(JSON.parse(j.stdout)).toMatchObject({ command: "replay", status: "ok", data: { out: path.join(dir, "cron2.html"), bytes: Buffer.byteLength(r.stdout) } })
  })

  it("never overwrites: an existing --out is refused before the index is read, and left as it was", () => {
    const dir = tempDir("si-replay-cli-")
    const out = path.join(dir, "exists.html")
    fs.writeFileSync(out, "mine")
    const r = cli(["replay", "sess-cron", "--index", path.join(dir, "no-such.db"), "--out", out])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^session-ingest: INVALID_ARGUMENT: .*exists\.html already exists; --out never overwrites a file\.\n {2}remedy: /)
    expect(fs.readFileSync(out, "utf8")).toBe("mine")
  })

  it("is redacted by default: a planted secret, an email and a home path are not in the page; --no-redact keeps them", () => {
    const dir = tempDir("si-replay-redact-")
    const root = path.join(dir, "projects")
    fs.cpSync(path.join(fixturesDir, "claude-code", "projects"), root, { recursive: true })
    const file = path.join(root, "-home-alice-code-billing-api", "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37.jsonl")
    const token = "ghp_" + "Q".repeat(36) // built here, so the repository holds no secret-shaped literal
    const email = "carol" + "@" + "example.org"
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("The invoice total is off by one cent", `The invoice total (key ${token}, mail ${email}) is off by one cent`))
    const index = path.join(dir, "i.db")
    const imp = cli(["import", "--index", index, "--claude-root", root, "--agents-root", path.join(fixturesDir, "muse-agents", "agents"), "--workspace", dir])
    expect([0, 8]).toContain(imp.code)
    const page = cli(["replay", "3f2b8c1e", "--index", index])
    expect(page.code, page.stderr).toBe(0)
    for (const secret of [token, email, "/home/alice"]) expect(page.stdout).not.toContain(secret)
    expect(page.stdout).toContain("[REDACTED:github-token]")
    expect(page.stdout).toContain("[REDACTED:email]")
    const raw = cli(["replay", "3f2b8c1e", "--index", index, "--no-redact"])
    expect(raw.code, raw.stderr).toBe(0)
    for (const secret of [token, email, "/home/alice"]) expect(raw.stdout).toContain(secret)

    // tester31b F1: each page says which it is, and a --no-redact run says so on stderr (the export's ATIF too).
    expect(page.stdout).toContain("<dt>Redaction</dt><dd>redacted: secrets, emails and home paths replaced by markers</dd>")
    expect(page.stderr).not.toContain("--no-redact")
    expect(raw.stdout).toContain("<dt>Redaction</dt><dd>none (--no-redact): the session as stored, secrets, emails and home paths included; not for sharing</dd>")
    expect(raw.stderr).toBe("note: --no-redact: the page holds the session as stored, secrets, emails and home paths included; do not share it.\n")
    const out = path.join(dir, "raw.html")
    expect(cli(["replay", "3f2b8c1e", "--index", index, "--no-redact", "--out", out]).stderr).toContain(`note: --no-redact: ${out} holds the session as stored`)
    // tester31c F3: a write that fails (the file-size limit) leaves no file, so no note of one
    const failed = path.join(dir, "failed.html")
    const limited = spawnSync("bash", ["-c", `ulimit -f 1; exec "${process.execPath}" bin/session-ingest.mjs replay 3f2b8c1e --index "${index}" --no-redact --out "${failed}"`], {
      cwd: repoRoot,
      encoding: "utf8"
    })
    expect(limited.status, limited.stderr).toBe(7)
    expect(fs.existsSync(failed)).toBe(false)
    expect(limited.stderr).not.toContain("note: --no-redact")
    const atif = (extra: Array<string>) => {
      const r = cli(["export", "3f2b8c1e", "--index", index, "--format", "atif", ...extra])
      expect(r.code, r.stderr).toBe(0)
      return { doc: JSON.parse(r.stdout), stderr: r.stderr }
    }
    const redacted = atif([])
    expect(redacted.doc.extra.session_ingest.redaction).toBe("redacted")
    expect(redacted.stderr).not.toContain("--no-redact")
    const unredacted = atif(["--no-redact"])
    expect(unredacted.doc.extra.session_ingest.redaction).toBe("none")
    expect(JSON.stringify(unredacted.doc)).toContain(token)
    expect(unredacted.stderr).toContain("note: --no-redact: the export holds the session as stored")
    const nd = cli(["export", "3f2b8c1e", "--index", index, "--format", "ndjson", "--no-redact"])
    expect(nd.stderr).toContain("note: --no-redact: the export holds the session as stored")
  })

  it("control characters of the session show as escapes, never act: a bidi override cannot reorder the page", () => {
    const dir = tempDir("si-replay-bidi-")
    const root = path.join(dir, "projects")
    fs.cpSync(path.join(fixturesDir, "claude-code", "projects"), root, { recursive: true })
    const file = path.join(root, "-home-alice-code-billing-api", "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b37.jsonl")
    // JSON escapes in the log: U+202E (right-to-left override), U+202C, and an ANSI colour escape.
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("The invoice total is off by one cent", "The invoice \\u202etxt.exe\\u202c total \\u001b[31mred is off by one cent"))
    const index = path.join(dir, "i.db")
    expect([0, 8]).toContain(cli(["import", "--index", index, "--claude-root", root, "--agents-root", path.join(fixturesDir, "muse-agents", "agents"), "--workspace", dir]).code)
    const page = cli(["replay", "3f2b8c1e", "--index", index, "--no-redact"])
    expect(page.code, page.stderr).toBe(0)
    expect(page.stdout).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u001b]/)
    expect(page.stdout).toContain("txt.exe")
  })

  // tester30b F3: a crash cut the tool_use line short (malformed-json); its result, an orphan, was on no page, nor the line.
  it("shows a tool result whose call line was skipped as its own block, redacted, and the skipped line in the header", () => {
    const dir = tempDir("si-replay-orphan-")
    const id = "55555555-6666-4777-8888-999999999990"
    const folder = path.join(dir, "projects", "-srv-deep")
    fs.mkdirSync(folder, { recursive: true })
    const token = "ghp_" + "Q".repeat(36) // built here, so the repository holds no secret-shaped literal
    const line = (o: object) => JSON.stringify({ sessionId: id, cwd: "/srv/deep", ...o })
    fs.writeFileSync(path.join(folder, `${id}.jsonl`), [
      line({ type: "user", uuid: "d1", timestamp: "2026-11-25T10:00:00Z", message: { role: "user", content: "check the disk" } }),
      line({ type: "assistant", uuid: "d2", timestamp: "2026-11-25T10:00:01Z", message: { id: "m", role: "assistant", content: [{ type: "tool_use", id: "toolu_d", name: "Bash", input: { command: "cat big.log" } }] } }).slice(0, 150),
      line({ type: "user", uuid: "d3", timestamp: "2026-11-25T10:00:02Z", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_d", content: `ERROR: disk failure on /dev/sda1 (key ${token})` }] } })
    ].join("\n") + "\n")
    const index = path.join(dir, "i.db")
    const imp = cli(["import", "--index", index, "--claude-root", path.join(dir, "projects"), "--workspace", dir])
    expect([0, 8], imp.stderr).toContain(imp.code)
    const page = cli(["replay", id, "--index", index])
    expect(page.code, page.stderr).toBe(0)
    expect(page.stdout).toContain("<dt>Parse warnings</dt><dd>1 line skipped: malformed-json 1 (first at line 2)</dd>")
    expect(page.stdout).toContain("<dt>Diagnostics</dt><dd>orphan-tool-output 1 (first at line 3)</dd>")
    expect(page.stdout).toContain('"type":"orphan"')
    expect(page.stdout).toContain("ERROR: disk failure on /dev/sda1 (key [REDACTED:github-token])")
    expect(page.stdout).not.toContain(token)
  })

  it("an unknown session is SOURCE_NOT_FOUND (exit 4) with its remedy, and no file is left", () => {
    const { dir, index } = imported()
    const out = path.join(dir, "none.html")
    const r = cli(["replay", "no-such-session", "--index", index, "--out", out])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/^session-ingest: SOURCE_NOT_FOUND: No session no-such-session in the index\.\n {2}remedy: /)
    expect(fs.existsSync(out)).toBe(false)
    expect(fs.readdirSync(dir).filter((f) => f.includes("none"))).toEqual([])
  })
})
