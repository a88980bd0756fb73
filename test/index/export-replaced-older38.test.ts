/**
 * A Muse Code export (one JSON document, not an append-only log) replaced by an older or shorter export (a backup
 * restored over a newer one, the same document with records left out): the import read it again as a new generation
 * and the imported events it no longer holds left `sessions`, `show`, `search` and `usage` without a word: muse-code
 * "complete", no diagnostic (tester38 F7). docs/import.md "Sources rewritten after a prefix of what was imported":
 * such a loss "is never silent": `SOURCE_REWRITTEN`, counting the events imported and those the file no longer holds
 * (coverage stays complete: the file was read whole). The expected count is what a fresh import of each document
 * holds, against the first import's.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const EXPORT = nodePath.resolve("fixtures", "muse-code", "export", "orderly.json")

type Doc = { events: Array<unknown> } & Record<string, unknown>

const importJson = (dir: string, index: string, file: string) => {
  const r = cli(["import", "--index", index, "--workspace", dir, file, "--json"], { env: { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") } })
  const data = JSON.parse(r.stdout).data
  return { code: r.code, data, muse: data.providers.find((p: { provider: string }) => p.provider === "muse-code") }
}

/** The events an index holds in all (every session's count). */
const events = (index: string) =>
  (JSON.parse(cli(["sessions", "--index", index, "--json"]).stdout).data as Array<{ eventCount: number }>).reduce((n, s) => n + s.eventCount, 0)

describe("a Muse Code export replaced by one that holds fewer of the imported events (tester38 F7)", () => {
  for (
    const [name, cut] of [
      ["its last record left out", (es: Array<unknown>) => es.slice(0, -1)],
      ["three records in the middle left out", (es: Array<unknown>) => [...es.slice(0, 3), ...es.slice(6)]]
    ] as const
  ) {
    it(`${name}: SOURCE_REWRITTEN counts the imported events it no longer holds; coverage complete`, () => {
      const dir = tempDir("si-export-older38-")
      const file = nodePath.join(dir, "orderly.json")
      const doc = JSON.parse(fs.readFileSync(EXPORT, "utf8")) as Doc
      fs.writeFileSync(file, JSON.stringify(doc))
      const index = nodePath.join(dir, "i.db")
      const first = importJson(dir, index, file)
      expect(first.muse.coverage).toBe("complete")
      const imported = events(index)
      const older = JSON.stringify({ ...doc, events: cut(doc.events) })
      // What the older document holds on its own: a fresh index of it.
      const alone = nodePath.join(dir, "alone.json")
      fs.writeFileSync(alone, older)
      importJson(dir, nodePath.join(dir, "alone.db"), alone)
      const holds = events(nodePath.join(dir, "alone.db"))
      expect(holds).toBeLessThan(imported)
      fs.writeFileSync(file, older)
      const again = importJson(dir, index, file)
      expect(again.muse.coverage).toBe("complete")
      expect(again.data.sources.newGenerations ?? again.data.sources.reimported ?? 1).toBeGreaterThan(0)
      const said = again.muse.diagnostics.filter((d: { code: string }) => d.code === "SOURCE_REWRITTEN")
      expect(said).toHaveLength(1)
      expect(said[0].details).toMatchObject({ path: file, missing: imported - holds, imported })
      expect(said[0].message).toContain(`no longer holds ${imported - holds} of the ${imported} events imported from it`)
      expect(events(index)).toBe(holds)
    })
  }
})
