/**
 * Whether an index path still names the file a long-running command opened
 * (`import --watch`, `mcp`): a SQLite file deleted or replaced under it (the
 * docs/search.md: "`rm` the file, `import`"; docs/import.md, `--watch`) is another index, which the command must
 * not go on writing into or answering from as if nothing happened.
 *
 * @module
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import { StoreUnavailable } from "../../domain/errors.js"

/** What became of the file the command opened. */
export type IndexFileChange = "deleted" | "replaced"

/** The file's identity (device and inode), or undefined when nothing is at the path. */
const identityOf = (path: string): string | undefined => {
  try {
    const st = fs.statSync(path)
    return `${st.dev}:${st.ino}`
  } catch {
    return undefined
  }
}

/**
 * A check of `path` (one `stat`): the first run that finds a file there
 * records it (its device and inode); each later run succeeds while the same
 * file is there and fails with what `changed` makes of the change (deleted:
 * nothing at the path; replaced: another file) once it is not. With `path`
 * undefined (an index that is no file: PostgreSQL), it always succeeds.
 */
export const indexFileCheck = (
  path: string | undefined,
  changed: (change: IndexFileChange) => StoreUnavailable
): Effect.Effect<void, StoreUnavailable> => {
  let opened: string | undefined
  return Effect.suspend(() => {
    if (path === undefined) return Effect.void
    const now = identityOf(path)
    if (opened === undefined) {
      opened = now
      return Effect.void
    }
    return now === opened ? Effect.void : Effect.fail(changed(now === undefined ? "deleted" : "replaced"))
  })
}
