/**
 * tester35b F5 and F6 (session 35). F5: a file named under an authorized
 * root whose session folder is a symlink to a folder outside it stays
 * SOURCE_OUTSIDE_ALLOWED_ROOT (its real place; test/source-access.test.ts,
 * "the rules' errors"), its message naming the link and its remedy to put
 * the real folder there, not to move the file. F6: discovered sources gone
 * before the import read them are rejected SOURCE_NOT_FOUND with the remedy
 * "run the import again" (not the one about command-line paths), one line
 * per provider with their count in the text report, a cause each in --json.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import { sourceAccessNode } from "../src/layers/SourceAccessNode.js"
import { fsError } from "../src/layers/SourceAccessNode.js"
import { planFromPolicy } from "../src/layers/index/importer.js"
import type { ImportReport } from "../src/services/Importer.js"
import type { SourceAccessShape } from "../src/services/SourceAccess.js"
import { VANISHED_REMEDY } from "../src/domain/vanished.js"
import { renderImportReport } from "../src/cli/commands/import.js"
import { importOnce } from "./support/index.js"
import { museNativeRoot } from "./support/source-roots.js"
import { nativeSessionPath } from "../bench/generate/native.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A>)

describe("F5: a symlinked session folder under the root: outside the root, the link named", () => {
  const setup = () => {
    const dir = tempDir("si-35b-f5-")
    const sid = "00000000-0000-4000-8000-000000000002"
    const root = path.join(dir, "root")
    fs.mkdirSync(path.join(root, "2026", "09", "25"), { recursive: true })
    fs.mkdirSync(path.join(dir, "elsewhere", sid), { recursive: true })
    fs.writeFileSync(path.join(dir, "elsewhere", sid, "session.jsonl"), "")
    fs.symlinkSync(path.join(dir, "elsewhere", sid), path.join(root, "2026", "09", "25", sid))
    return { root, file: path.join(root, "2026", "09", "25", sid, "session.jsonl"), link: path.join(root, "2026", "09", "25", sid) }
  }

  it("authorizeFile names the link", async () => {
    const s = setup()
    const e = await run(Effect.flip(sourceAccessNode.authorizeFile(s.file, [s.root], "--muse-root DIR")))
    expect(e.code).toBe("SOURCE_OUTSIDE_ALLOWED_ROOT")
    expect(e.message).toContain(`${s.link} on the way to it is a symlink`)
    expect(e.remediation).toContain("Put the real folder under the root in place of the link")
  })

  it("a file outside every root, with no link on the way, is still SOURCE_OUTSIDE_ALLOWED_ROOT", async () => {
    const s = setup()
    const other = path.join(path.dirname(s.root), "other.jsonl")
    fs.writeFileSync(other, "")
    const e = await run(Effect.flip(sourceAccessNode.authorizeFile(other, [s.root])))
    expect(e.code).toBe("SOURCE_OUTSIDE_ALLOWED_ROOT")
  })

  it("the CLI's inspect: exit 4, the link named, no remedy to move the file", () => {
    const s = setup()
    const r = cli(["inspect", "muse-code", "--muse-root", s.root, s.file])
    expect(r.code).toBe(4)
    expect(r.stderr + r.stdout).toContain("SOURCE_OUTSIDE_ALLOWED_ROOT")
    expect(r.stderr + r.stdout).toContain(`${s.link} on the way to it is a symlink`)
    expect(r.stderr + r.stdout).not.toContain("Move the file under an authorized root")
  })
})

describe("F6: discovered sources gone before they were read", () => {
  it("are rejected SOURCE_NOT_FOUND with the remedy to import again, one cause each; the text groups them", async () => {
    const { root, ws } = museNativeRoot(5)
    const gone = [nativeSessionPath(root, 1), nativeSessionPath(root, 3)]
    // Deleted between discovery and the read: the import's authorization of the file finds it gone (ENOENT).
    const access: SourceAccessShape = {
      ...sourceAccessNode,
      authorizeFile: (p, roots, opt) =>
        gone.includes(path.resolve(p)) ? Effect.fail(fsError(path.resolve(p), Object.assign(new Error("ENOENT"), { code: "ENOENT" }))) : sourceAccessNode.authorizeFile(p, roots, opt)
    }
    const policy = { workspaceRoots: [ws], museRoots: [root] }
    const index = path.join(tempDir("si-35b-f6-"), "i.db")
    const r: ImportReport = await run(importOnce(policy, index, planFromPolicy(policy, { batchSize: 3 }), undefined, undefined, access))
    const causes = r.causes.filter((c) => c.code === "SOURCE_NOT_FOUND")
    expect(causes.map((c) => c.path).sort()).toEqual([...gone].sort())
    expect(causes.every((c) => c.remedy === VANISHED_REMEDY)).toBe(true)
    expect(r.coverage).toBe("partial")
    const text = renderImportReport(r, index)
    expect(text).toContain("muse-code: SOURCE_NOT_FOUND: 2 sources discovery listed were gone when they were read")
    expect(text).toContain("remedy: run the import again.")
    expect(text).not.toContain("relative paths on the command line")
    expect(text.split("\n").filter((l) => l.includes("SOURCE_NOT_FOUND:")).length).toBe(1)
  })

  it("a file named on the command line that is missing keeps the remedy about paths", () => {
    const dir = tempDir("si-35b-f6b-")
    const r = cli(["import", "--index", path.join(dir, "i.db"), "--workspace", dir, "--agents-root", dir, path.join(dir, "nope.json")])
    expect(r.code).toBe(8)
    expect(r.stdout).toContain("nope.json: SOURCE_NOT_FOUND")
    expect(r.stdout).toContain("relative paths on the command line")
    expect(r.stdout + r.stderr).not.toContain(VANISHED_REMEDY)
  })
})
