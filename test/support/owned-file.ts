/**
 * Helpers of the tests on session-ingest's own SQLite files (the index, the
 * scan state; `src/layers/owned-sqlite.ts`): what a file's header stamps, and
 * the environment a CLI run gets so that no default root of the machine is read.
 */
import Sqlite from "better-sqlite3"

/** The `application_id` SQLite reads of `file` (0: not stamped). */
export const applicationIdOf = (file: string): number => {
  const db = new Sqlite(file)
  try {
    return (db.prepare("PRAGMA application_id").get() as { readonly application_id: number }).application_id
  } finally {
    db.close()
  }
}

/** A CLI run's environment: home in `dir`, no Claude Code or Muse agents default root. */
export const isolatedEnv = (dir: string) => ({ NO_COLOR: "1", HOME: dir, CLAUDE_CONFIG_DIR: "", MUSE_AGENTS_DIR: "" })
