/**
 * `import` takes export files, not a provider (tester33c F4). Every other
 * command takes `<provider>` first, so `import --claude-root X claude-code`
 * is an easy habit: `claude-code` was read as a Muse Code export file,
 * "muse-code: /cwd/claude-code: SOURCE_NOT_FOUND", coverage partial, exit 8,
 * for a run that would import every Claude Code source. An argument that is a
 * registered provider's name (the registry's, not a list in the CLI) with no
 * such file is INVALID_ARGUMENT, exit 2, naming the provider's own options,
 * before anything is imported; a file that has that name is still an export
 * file.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { providerIds } from "../src/layers/registry.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

describe("import with a provider's name as its argument (tester33c F4)", () => {
  it("is INVALID_ARGUMENT, exit 2, with the provider's options as the remedy; nothing is written", () => {
    const dir = tempDir("si-import-provider-")
    const root = path.join(dir, "projects")
    fs.mkdirSync(root)
    const index = path.join(dir, "index.db")
    const r = cli(["import", "--claude-root", root, "--index", index, "claude-code", "--json"], { cwd: dir })
    expect(r.code, r.stderr).toBe(2)
    const body = JSON.parse(r.stdout)
    expect(body.error.code).toBe("INVALID_ARGUMENT")
    expect(body.error.message).toContain("claude-code is a provider name, and there is no file claude-code here: import takes no provider argument")
    expect(body.error.remediation).toContain("claude-code's sources are given by --claude-root DIR")
    expect(fs.existsSync(index)).toBe(false)
    const t = cli(["import", "--claude-root", root, "--index", index, "claude-code"], { cwd: dir })
    expect(t.code).toBe(2)
    expect(t.stderr).toContain("INVALID_ARGUMENT: claude-code is a provider name")
    expect(t.stderr).toContain("remedy: Leave out \"claude-code\"")
  })

  it("every registered provider's name is refused so", () => {
    const dir = tempDir("si-import-provider-")
    expect(providerIds.length).toBeGreaterThan(1)
    for (const id of providerIds) {
      const r = cli(["import", "--index", path.join(dir, "index.db"), id, "--json"], { cwd: dir })
      expect(r.code, id).toBe(2)
      expect(JSON.parse(r.stdout).error.message, id).toContain(`${id} is a provider name`)
    }
  })

  it("a file of that name is an export file as before (not refused as a provider name)", () => {
    const dir = tempDir("si-import-provider-")
    fs.writeFileSync(path.join(dir, "claude-code"), "not an export\n")
    fs.mkdirSync(path.join(dir, "projects"))
    const r = cli(["import", "--index", path.join(dir, "index.db"), "--claude-root", path.join(dir, "projects"), "--agents-root", dir, "claude-code", "--json"], { cwd: dir })
    expect(r.code).not.toBe(2)
    expect(r.stdout).not.toContain("is a provider name")
  })

  // tester34c F8: only the exact spelling was caught; `import muse-code` did not say Muse Code's export files are the arguments
  it("a provider's name cased or separated otherwise is caught too, naming the provider; muse-code's remedy names its export files", () => {
    const dir = tempDir("si-import-provider-")
    for (const v of ["Claude-Code", "claude_code", "claudecode", "claude-code/", "CLAUDE CODE"]) {
      const r = cli(["import", "--index", path.join(dir, "index.db"), v, "--json"], { cwd: dir })
      expect(r.code, v).toBe(2)
      const e = JSON.parse(r.stdout).error
      expect(e.message, v).toContain(`${v} (the provider claude-code) is a provider name, and there is no file ${v} here`)
      expect(e.remediation, v).toContain("claude-code's sources are given by --claude-root DIR")
    }
    expect(fs.existsSync(path.join(dir, "index.db"))).toBe(false)
    const m = JSON.parse(cli(["import", "--index", path.join(dir, "index.db"), "muse-code", "--json"], { cwd: dir }).stdout).error
    expect(m.remediation).toMatch(/^Leave out "muse-code": give the muse-code files themselves as the arguments \(import \S+\.\.\.\), or its roots by --/)
    // a word that is no provider's name stays a missing export file, as before
    expect(cli(["import", "--index", path.join(dir, "other.db"), "claude-cod", "--json"], { cwd: dir }).code).not.toBe(2)
  })
})
