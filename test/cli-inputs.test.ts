/**
 * What the CLI does with the paths and ids a user names before they are
 * validated (issue 11, "Trust"): a FIFO anywhere (config, index, state, out,
 * export files, roots) is refused in the README's error format, never a hang;
 * an empty value of any option that names a path or an id is
 * `INVALID_ARGUMENT`, never read as "nothing there".
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { repoRoot, tempDir } from "./support/paths.js"

/** Run the CLI with a deadline: a hang is a failure (status null), not a stuck test. */
const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}, cwd = repoRoot) => {
  const r = spawnSync(process.execPath, [path.join(repoRoot, "bin", "session-ingest.mjs"), ...args], {
    cwd,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 15_000,
    killSignal: "SIGKILL"
  })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** The README's error format: `session-ingest: CODE: problem` then `  remedy: …`. */
const errorLines = (stderr: string, code: string) => {
  expect(stderr).toMatch(new RegExp(`^session-ingest: ${code}: .+\\n  remedy: .+\\n$`))
}

const fifoIn = (dir: string, name: string) => {
  const p = path.join(dir, name)
  fs.mkdirSync(path.dirname(p), { recursive: true })
  execFileSync("mkfifo", [p])
  return p
}

describe("FIFOs the user names are refused, never waited on", () => {
  const dir = tempDir("si-fifo-")
  const xdg = path.join(dir, "xdg")
  fifoIn(xdg, "session-ingest/config.json")
  const fifo = fifoIn(dir, "fifo")
  const cfgDir = path.join(dir, "cfg")
  fs.mkdirSync(cfgDir, { recursive: true })

  it("the default config file is a FIFO: INVALID_ARGUMENT, every command that reads it", () => {
    for (const args of [["sessions", "--index", path.join(dir, "none.db")], ["import", "--index", path.join(dir, "i.db")]]) {
      const r = run(args, { XDG_CONFIG_HOME: xdg })
      expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2)
      errorLines(r.stderr, "INVALID_ARGUMENT")
      expect(r.stderr).toContain("config.json")
      const j = run([...args, "--json"], { XDG_CONFIG_HOME: xdg })
      expect(j.code).toBe(2)
      expect(JSON.parse(j.stdout).error.code).toBe("INVALID_ARGUMENT")
    }
  })

  it("--config FIFO, and --config naming a folder: INVALID_ARGUMENT", () => {
    for (const c of [fifo, cfgDir]) {
      const r = run(["import", "--config", c, "--index", path.join(dir, "i.db")], { XDG_CONFIG_HOME: path.join(dir, "no-xdg") })
      expect(r.code, r.stderr).toBe(2)
      errorLines(r.stderr, "INVALID_ARGUMENT")
    }
  })

  it("a config naming a FIFO as index, state, store or export: refused, no hang", () => {
    const ws = path.join(dir, "ws")
    fs.mkdirSync(ws, { recursive: true })
    const wsFifo = fifoIn(ws, "export.json")
    for (const [key, value] of [["index", fifo], ["state", fifo], ["store", fifo], ["exports", [wsFifo]]] as const) {
      const cfg = path.join(cfgDir, `${key}.json`)
      fs.writeFileSync(cfg, JSON.stringify({ [key]: value, workspaces: [ws], agents: ["u1"], ...(key === "index" ? {} : { index: path.join(dir, `${key}.db`) }) }))
      const r = run(["import", "--config", cfg, "--json"], { XDG_CONFIG_HOME: path.join(dir, "no-xdg") })
      expect(r.code, `${key}: ${r.stderr}`).not.toBeNull()
      expect(r.code, `${key}: ${r.stdout}`).not.toBe(0)
    }
  })

  it("--index, --state, --store, --out, an export file and roots that are FIFOs: refused, no hang", () => {
    const ws = path.join(dir, "ws2")
    fs.mkdirSync(ws, { recursive: true })
    const wsFifo = fifoIn(ws, "export.json")
    const db = path.join(dir, "ok.db")
    const cases: ReadonlyArray<ReadonlyArray<string>> = [
      ["sessions", "--index", fifo],
      ["import", "--index", fifo],
      ["import", "--index", db, "--agent", "u1", "--state", fifo],
      ["import", "--index", db, "--agent", "u1", "--store", fifo],
      ["import", "--index", db, "--workspace", ws, wsFifo],
      ["import", "--index", db, "--agents-root", fifo],
      ["import", "--index", db, "--muse-root", fifo],
      ["discover", "agentmux", "--agent", "u1", "--store", fifo],
      ["discover", "agentmux", "--agent", "u1", "--state", fifo, "--store", path.join(repoRoot, "fixtures", "agentmux", "filestore.db")],
      ["discover", "muse-agents", "--agents-root", fifo],
      ["discover", "muse-code", "--muse-root", fifo],
      ["stream", "muse-code", wsFifo, "--workspace", ws],
      ["stream", "agentmux", "--agent", "u1", "--session", "S-B", "--store", path.join(repoRoot, "fixtures", "agentmux", "filestore.db"), "--state", path.join(dir, "s.db"), "--out", fifo]
    ]
    for (const args of cases) {
      const r = run(args, { XDG_CONFIG_HOME: path.join(dir, "no-xdg") })
      expect(r.code, `${args.join(" ")}: hung`).not.toBeNull()
      expect(r.code, `${args.join(" ")}: ${r.stdout}${r.stderr}`).not.toBe(0)
      // an error in the README's format, or (import, discover) partial coverage naming the cause and its remedy
      if (r.code === 8) expect(r.stdout, args.join(" ")).toMatch(/(NOT_REGULAR_FILE|STORE_UNAVAILABLE|UNREADABLE)[\s\S]*remedy: .+\n/)
      else expect(r.stderr, args.join(" ")).toMatch(/^session-ingest: [A-Z_]+: .+\n {2}remedy: .+\n/m)
    }
  })
})

describe("an empty value is INVALID_ARGUMENT, never 'nothing there'", () => {
  const dir = tempDir("si-empty-")
  const env = { XDG_CONFIG_HOME: path.join(dir, "no-xdg") }
  const db = path.join(dir, "i.db")
  const store = path.join(repoRoot, "fixtures", "agentmux", "filestore.db")

  it("every option and argument that names a path, an id or a token", () => {
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ["--agent", ["discover", "agentmux", "--agent", ""]],
      ["--agent", ["import", "--index", db, "--agent", "u1", "--agent", ""]],
      ["--agents-root", ["discover", "muse-agents", "--agents-root", ""]],
      ["--agents-root", ["import", "--index", db, "--agents-root", ""]],
      ["--muse-root", ["discover", "muse-code", "--muse-root", ""]],
      ["--muse-root", ["import", "--index", db, "--muse-root", dir, "--muse-root", ""]],
      ["--workspace", ["import", "--index", db, "--workspace", ""]],
      ["--workspace", ["sessions", "--index", db, "--workspace", ""]],
      ["--store", ["discover", "agentmux", "--agent", "u1", "--store", ""]],
      ["--state", ["import", "--index", db, "--state", ""]],
      ["--index", ["import", "--index", ""]],
      ["--index", ["sessions", "--index", ""]],
      ["--config", ["import", "--config", ""]],
      ["--session", ["stream", "agentmux", "--agent", "u1", "--store", store, "--session", ""]],
      ["--cursor", ["stream", "agentmux", "--agent", "u1", "--store", store, "--session", "S-B", "--cursor", ""]],
      ["--out", ["export", "x", "--index", db, "--out", ""]],
      ["<file>", ["stream", "muse-code", ""]],
      ["<session-id>", ["show", "", "--index", db]],
      ["<export-file>", ["import", "--index", db, ""]]
    ]
    for (const [name, args] of cases) {
      const r = run(args, env)
      expect(r.code, `${args.join(" ")}: ${r.stdout}${r.stderr}`).toBe(2)
      expect(r.stderr).toMatch(new RegExp(`^session-ingest: INVALID_ARGUMENT: ${name}: the value is empty\\.\\n  remedy: .+\\n$`))
      const j = run([...args, "--json"], env)
      expect(j.code).toBe(2)
      const lines = j.stdout.trim().split("\n")
      expect(lines.length, j.stdout).toBe(1)
      const e = JSON.parse(lines[0])
      expect([e.status, e.error.code, e.error.message]).toEqual(["error", "INVALID_ARGUMENT", `${name}: the value is empty.`])
    }
  })

  it("config keys with empty strings", () => {
    for (const [key, value] of [["agents", [""]], ["agentsRoot", ""], ["index", ""], ["museRoots", ["x", ""]], ["workspaces", [""]], ["store", ""], ["state", ""], ["exports", [""]]] as const) {
      const cfg = path.join(dir, `empty-${key}.json`)
      fs.writeFileSync(cfg, JSON.stringify({ [key]: value, ...(key === "index" ? {} : { index: db }) }))
      const r = run(["import", "--config", cfg], env)
      expect(r.code, `${key}: ${r.stdout}${r.stderr}`).toBe(2)
      errorLines(r.stderr, "INVALID_ARGUMENT")
      expect(r.stderr).toContain(`${key}`)
      expect(r.stderr).toContain("the value is empty")
    }
  })
})

describe("a root the user names that holds nothing is partial coverage", () => {
  const dir = tempDir("si-emptyroot-")
  const env = { XDG_CONFIG_HOME: path.join(dir, "no-xdg"), HOME: path.join(dir, "home"), MUSE_AGENTS_DIR: "" }
  const emptyRoot = path.join(dir, "empty")
  fs.mkdirSync(emptyRoot, { recursive: true })
  fs.mkdirSync(path.join(dir, "home", "agents"), { recursive: true })
  // junk that is no candidate: a file at the top of the agents root, a muse root with a non-date folder
  const junkAgents = path.join(dir, "junk-agents")
  fs.mkdirSync(junkAgents, { recursive: true })
  fs.writeFileSync(path.join(junkAgents, "notes.txt"), "x")
  const junkMuse = path.join(dir, "junk-muse")
  fs.mkdirSync(path.join(junkMuse, "misc"), { recursive: true })

  it("an empty --agents-root: import and discover exit 8 with the reason and a remedy", () => {
    for (const root of [emptyRoot, junkAgents]) {
      const i = run(["import", "--index", path.join(dir, `a-${path.basename(root)}.db`), "--agents-root", root, "--json"], env)
      expect(i.code, i.stdout).toBe(8)
      const report = JSON.parse(i.stdout).data
      const p = report.providers.find((x: { provider: string }) => x.provider === "muse-agents")
      expect(p.coverage).toBe("partial")
      expect(p.reasonCode).toBe("AGENTS_ROOT_EMPTY")
      const d = run(["discover", "muse-agents", "--agents-root", root], env)
      expect(d.code, d.stdout).toBe(8)
      expect(d.stdout).toContain("AGENTS_ROOT_EMPTY")
      expect(d.stdout).toMatch(/remedy: .*--agents-root/)
      // named in the config file: the same
      const cfg = path.join(dir, `agents-${path.basename(root)}.json`)
      fs.writeFileSync(cfg, JSON.stringify({ agentsRoot: root, index: path.join(dir, `c-${path.basename(root)}.db`) }))
      expect(run(["import", "--config", cfg], env).code).toBe(8)
    }
  })

  it("the default agents root, empty, is not partial", () => {
    const i = run(["import", "--index", path.join(dir, "default.db")], env)
    expect(i.code, i.stdout).toBe(0)
    const d = run(["discover", "muse-agents"], env)
    expect(d.code, d.stdout).toBe(0)
  })

  it("an empty --muse-root: import and discover exit 8 with the reason and a remedy", () => {
    for (const root of [emptyRoot, junkMuse]) {
      const i = run(["import", "--index", path.join(dir, `m-${path.basename(root)}.db`), "--muse-root", root, "--json"], env)
      expect(i.code, i.stdout).toBe(8)
      const p = JSON.parse(i.stdout).data.providers.find((x: { provider: string }) => x.provider === "muse-code")
      expect(p.coverage).toBe("partial")
      expect(p.reasonCode).toBe("MUSE_ROOT_EMPTY")
      const d = run(["discover", "muse-code", "--muse-root", root], env)
      expect(d.code, d.stdout).toBe(8)
      expect(d.stdout).toContain("MUSE_ROOT_EMPTY")
      expect(d.stdout).toMatch(/remedy: .*--muse-root/)
    }
  })
})

describe("an error about a path that holds a line break stays on the README's two lines", () => {
  it("stream, inspect, show and import with paths holding \\n, \\r\\n and U+2028: the break is written \\n / \\r, not as a line", () => {
    const dir = tempDir("si-nl-")
    const roots = ["nl\nFAKE LINE", "crlf\r\nFAKE", "ls\u2028sep"].map((n) => {
      const p = path.join(dir, n)
      fs.mkdirSync(p, { recursive: true })
      return p
    })
    for (const root of roots) {
      for (const args of [
        ["stream", "claude-code", path.join(root, "x.jsonl"), "--claude-root", dir],
        ["inspect", "muse-code", path.join(root, "x.json"), "--workspace", dir],
        ["sessions", "--index", path.join(root, "missing.db")],
        ["import", "--index", path.join(root, "idx.db"), "--claude-root", path.join(root, "none")]
      ]) {
        const r = run(args)
        if (r.code === 0 || r.code === 8) continue
        const what = `${JSON.stringify(args)}: ${JSON.stringify(r.stderr)}`
        expect(r.stderr, what).toMatch(/^session-ingest: [A-Z_]+: [^\n]+\n {2}remedy: [^\n]+\n$/)
        expect(r.stderr, what).not.toContain("\nFAKE")
        expect(r.stderr, what).not.toContain("\u2028")
      }
    }
  })
})
