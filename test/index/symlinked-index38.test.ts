/**
 * An index named through a symbolic link (`--index link.db`, `push --from link.db`) is refused, as every file
 * session-ingest owns is opened without following a link; but the refusal read "cannot be read (ELOOP: too many
 * symbolic links encountered …)", which sends a user looking for a link loop (tester38 F5). It now says what the file
 * is: a symbolic link, naming its target, not followed, and to pass the file it points to. Nothing is written.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const AGENTS = nodePath.resolve("fixtures", "muse-agents", "agents")

describe("an index named through a symbolic link (tester38 F5)", () => {
  it("sessions --index and push --from: STORE_UNAVAILABLE (exit 6) saying it is a symbolic link to its target, no ELOOP", () => {
    const dir = tempDir("si-symlinked-index38-")
    const real = nodePath.join(dir, "real.db")
    const imported = cli(["import", "--index", real, "--agents-root", AGENTS, "--claude-root", nodePath.join(dir, "none")])
    expect([0, 8]).toContain(imported.code)
    const link = nodePath.join(dir, "link.db")
    fs.symlinkSync("real.db", link)
    const before = fs.readFileSync(real)
    const expected = `Refusing to use ${link} as session-ingest's index: it is a symbolic link (to real.db); session-ingest does not follow it: pass the file it points to.`
    for (const args of [["sessions", "--index", link], ["push", "--from", link, "--to", "postgres://127.0.0.1:1/none"]]) {
      const r = cli(args)
      expect(r.code, r.stderr).toBe(6)
      expect(r.stderr).toContain(`STORE_UNAVAILABLE: ${expected}`)
      expect(r.stderr).not.toContain("ELOOP")
    }
    expect(fs.readFileSync(real)).toEqual(before)
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true)
    // A link to nothing is no "no index yet" (exit 4, whose remedy, an import, would then refuse the link): refused
    // as a link (tester38b F2); nothing is made through it.
    const dangling = nodePath.join(dir, "dangling.db")
    fs.symlinkSync("missing.db", dangling)
    for (const args of [["sessions", "--index", dangling], ["search", "deploy", "--index", dangling], ["push", "--from", dangling, "--to", "postgres://127.0.0.1:1/none"]]) {
      const r = cli(args)
      expect(r.code, r.stderr).toBe(6)
      expect(r.stderr).toContain(`STORE_UNAVAILABLE: Refusing to use ${dangling} as session-ingest's index: it is a symbolic link to a missing file.`)
    }
    expect(fs.existsSync(nodePath.join(dir, "missing.db"))).toBe(false)
  })
})
