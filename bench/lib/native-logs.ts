/**
 * The Muse Code native logs (`session.jsonl`) under a bench root (`generate/native.ts` writes them in
 * `YYYY/MM/DD/<id>/`), in the order the folders are read: what the floors and probes that read every log walk.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"

/** Every `session.jsonl` below `root` (absolute paths, as `readdirSync` lists them; sort them where order matters). */
export const nativeLogsUnder = (root: string): Array<string> => {
  const out: Array<string> = []
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = nodePath.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name === "session.jsonl") out.push(p)
    }
  }
  walk(root)
  return out
}
