/**
 * tester35a F11 and F12 through the CLI. F11: an INI/.env line's secret value holding `;` (`password=Qz7v;K2mX9pL`
 * under `[db]`) is hidden whole in a shared output (the Markdown of `transcript --format markdown`), with a
 * connection string's `;Host=` and a shell's `; run` kept. F12: `usage --by workspace` redacts a workspace as the
 * shareable outputs do (a token in a folder's name, a home folder), in the table and in `--json`; `--no-redact` prints
 * it as stored.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const run = (args: ReadonlyArray<string>) => cli(args, { env: { NO_COLOR: "1", CLAUDE_CONFIG_DIR: "", XDG_CONFIG_HOME: nodePath.join(tempDir("si-xdg-"), "none") } })

const j = (...p: Array<string>) => p.join("")
const TOKEN = j("gh", "p_Wk7vK2mXpL9wR4tY8nB3cF6hJ1Lm2Qp4Wv8R")
const SID = "5e1f3a52-35f1-4c3b-9d35-000000000f12"

/** A Claude Code session in `cwd`: a prompt of `text`, an answer with usage (so `usage` has a row). */
const session = (cwd: string, text: string): string => {
  const base = (type: string, uuid: string, parentUuid: string | null, at: string) =>
    ({ parentUuid, isSidechain: false, userType: "external", cwd, sessionId: SID, version: "1.0.51", gitBranch: "main", type, uuid, timestamp: `2025-07-08T10:00:0${at}.000Z` })
  return [
    { ...base("user", "u1", null, "1"), message: { role: "user", content: text } },
    {
      ...base("assistant", "a1", "u1", "2"),
      requestId: "req_f12",
      message: { model: "claude-sonnet-4-20250514", id: "msg_f12", type: "message", role: "assistant", content: [{ type: "text", text: `Here it is:\n${text}` }], stop_reason: "end_turn", usage: { input_tokens: 4, output_tokens: 9 } }
    }
  ].map((l) => JSON.stringify(l)).join("\n") + "\n"
}

const setup = (cwd: string, text: string) => {
  const root = tempDir("si-f35-root-")
  const dir = nodePath.join(root, cwd.replace(/[^A-Za-z0-9]/g, "-"))
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(nodePath.join(dir, `${SID}.jsonl`), session(cwd, text))
  const index = nodePath.join(tempDir("si-f35-index-"), "index.db")
  expect(run(["import", "--index", index, "--claude-root", root]).code).toBe(0)
  return { root, index, file: nodePath.join(dir, `${SID}.jsonl`) }
}

describe("tester35a F11: a secret value holding `;` in a shared output", () => {
  it("transcript --format markdown hides an INI value whole, keeps a connection string's next pair and a shell's next command", () => {
    const text = "[db]\npassword=Qz7v;K2mX9pL\nhost=db1\n\nconn: Server=db;Password=Rt3Ks6Yb;Host=pg9\n\nexport DB_PASSWORD=Zk4nW8qP; ./deploy.sh"
    const { root, file } = setup("/srv/app", text)
    const r = run(["transcript", "claude-code", file, "--claude-root", root, "--format", "markdown"])
    expect(r.code).toBe(0)
    for (const piece of ["Qz7v", "K2mX9pL", "Rt3Ks6Yb", "Zk4nW8qP"]) expect(r.stdout).not.toContain(piece)
    expect(r.stdout).toContain("password=[REDACTED:secret-assignment]\n")
    expect(r.stdout).toContain("Password=[REDACTED:secret-assignment];Host=pg9")
    expect(r.stdout).toContain("DB_PASSWORD=[REDACTED:secret-assignment]; ./deploy.sh")
  })
})

describe("tester35a F12: usage --by workspace is redacted like a shareable output", () => {
  it("a token in the workspace's path is hidden in the table and in --json; --no-redact shows it as stored", () => {
    const cwd = `/srv/${TOKEN}/proj`
    const { index } = setup(cwd, "hello there, list files")
    const human = run(["usage", "--index", index, "--by", "workspace"])
    expect(human.code).toBe(0)
    expect(human.stdout).not.toContain("Wk7vK2mXpL9w")
    expect(human.stdout).not.toContain("Lm2Qp4Wv8R")
    expect(human.stdout).toContain("/srv/[REDACTED:github-token]/proj")
    const json = JSON.parse(run(["usage", "--index", index, "--by", "workspace", "--json"]).stdout) as { data: { rows: Array<{ key: string }> } }
    expect(json.data.rows.map((x) => x.key)).toEqual(["/srv/[REDACTED:github-token]/proj"])
    const raw = JSON.parse(run(["usage", "--index", index, "--by", "workspace", "--json", "--no-redact"]).stdout) as { data: { rows: Array<{ key: string }> } }
    expect(raw.data.rows.map((x) => x.key)).toEqual([cwd])
    // other groupings are no paths: a day stays as it is
    expect(run(["usage", "--index", index, "--by", "day"]).stdout).toContain("2025-07-08")
  })
})
