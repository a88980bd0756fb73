/**
 * An AgentMux home (`~/.agentmux`) laid out the way AgentMux lays it out
 * (issue 18; evidence in docs/providers.md "AgentMux: every archive the agent has"):
 *
 * - the GLOBAL transcript store `shared/agents/transcripts/filestore.db`
 *   (`registry::resolve_shared_transcripts_dir`), holding `agent:u1:current`;
 * - a channel's per-version store `channels/<ch>/versions/<v>/data/db/filestore.db`
 *   and a dev build's `dev/<branch>/data/db/filestore.db`
 *   (`transcript_backfill::collect_data_dirs`), holding the archives that
 *   "New conversation" writes there (`agent_session::archive::archive_session`
 *   / `archive_global_current`: `agent:<uid>:archive:<now_ms>` with `output`,
 *   `output.tsidx` and `output.state.json`), plus zones that are not u1's own.
 *
 * Every store is in WAL mode, as AgentMux's `FileStore::open` leaves it
 * (`PRAGMA journal_mode=WAL`). Session S-X ran in a channel, was archived
 * there by "New conversation", and was resumed in the global `:current`.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { assistant, echo, init, layout } from "./fixture.js"
import { createStore, type StoreFileSpec, tsidxRecord } from "./store-helper.js"

export const UID = "u1"

/** Receive-time bases (unix ms). */
export const OLD0 = 1_700_000_050_000
export const X0 = 1_700_000_400_000
export const DEV0 = 1_700_000_250_000
export const G0 = 1_700_001_000_000

export const CH_ARCHIVE_X = `agent:${UID}:archive:1700000500000`
export const CH_ARCHIVE_OLD = `agent:${UID}:archive:1700000100000`
export const DEV_ARCHIVE = `agent:${UID}:archive:1700000300000`
export const CURRENT = `agent:${UID}:current`

/** S-X's first conversation, archived in the channel store. */
export const chX = layout([
  echo("first question"),
  init("S-X", "/w/x"),
  assistant("S-X", "mx1", [{ type: "text", text: "first answer" }])
])
/** S-OLD, archived earlier in the same channel store. */
export const chOld = layout([init("S-OLD", "/w/old"), assistant("S-OLD", "mo1", [{ type: "text", text: "old answer" }])])
/** S-DEV, archived in a dev build's store. */
export const devLines = layout([init("S-DEV", "/w/dev"), assistant("S-DEV", "md1", [{ type: "text", text: "dev answer" }])])
/** The global current: S-X resumed, then S-NEW. */
export const globalCurrent = layout([
  echo("continue"),
  assistant("S-X", "mx2", [{ type: "text", text: "resumed answer" }]),
  init("S-NEW", "/w/new"),
  assistant("S-NEW", "mn1", [{ type: "text", text: "new answer" }])
])

const other = (sid: string) => layout([init(sid, "/w/not-mine"), assistant(sid, `m-${sid}`, [{ type: "text", text: "not mine" }])]).bytes

/** Zones of the channel store. */
export const channelFiles = (): Array<StoreFileSpec> => [
  { zoneId: CH_ARCHIVE_X, name: "output", bytes: chX.bytes },
  { zoneId: CH_ARCHIVE_X, name: "output.tsidx", bytes: Buffer.from(tsidxRecord(0, X0) + tsidxRecord(chX.lines[2].start, X0 + 2000)) },
  { zoneId: CH_ARCHIVE_X, name: "output.state.json", bytes: Buffer.from("{\"schemaVersion\":2,\"sourceBlockId\":\"\"}") },
  { zoneId: CH_ARCHIVE_OLD, name: "output", bytes: chOld.bytes },
  { zoneId: CH_ARCHIVE_OLD, name: "output.tsidx", bytes: Buffer.from(tsidxRecord(0, OLD0) + tsidxRecord(chOld.lines[1].start, OLD0 + 1000)) },
  // migrate_block_zones_v1 archives: a snapshot only, no `output` (no session)
  { zoneId: `agent:${UID}:archive:1690000000000`, name: "output.state.json", bytes: Buffer.from("{\"nodes\":[]}") },
  // not u1's own: another agent, an id extending u1, a template's shared zone, a block zone, odd suffixes
  { zoneId: "agent:u2:archive:1700000600000", name: "output", bytes: other("S-X") },
  { zoneId: "agent:u10:current", name: "output", bytes: other("S-U10") },
  { zoneId: "agent:claude:current", name: "output", bytes: other("S-TPL") },
  { zoneId: "blk-7f3a", name: "output", bytes: other("S-BLOCK") },
  { zoneId: `agent:${UID}:archive:`, name: "output", bytes: other("S-BAD1") },
  { zoneId: `agent:${UID}:archive:12ab`, name: "output", bytes: other("S-BAD2") }
]

export const devFiles = (): Array<StoreFileSpec> => [
  { zoneId: DEV_ARCHIVE, name: "output", bytes: devLines.bytes },
  { zoneId: DEV_ARCHIVE, name: "output.tsidx", bytes: Buffer.from(tsidxRecord(0, DEV0)) },
  { zoneId: "agent:claude:archive:1700000310000", name: "output", bytes: other("S-TPL2") }
]

export const globalFiles = (): Array<StoreFileSpec> => [
  { zoneId: CURRENT, name: "output", bytes: globalCurrent.bytes },
  {
    zoneId: CURRENT,
    name: "output.tsidx",
    bytes: Buffer.from(tsidxRecord(0, G0) + tsidxRecord(globalCurrent.lines[2].start, G0 + 1000) + tsidxRecord(globalCurrent.lines[3].start, G0 + 2000))
  }
]

export interface Home {
  readonly root: string
  readonly global: string
  readonly channel: string
  readonly dev: string
}

/** Paths of the stores under an AgentMux home `root`. */
export const homePaths = (root: string): Home => ({
  root,
  global: nodePath.join(root, "shared", "agents", "transcripts", "filestore.db"),
  channel: nodePath.join(root, "channels", "stable", "versions", "0.44.1", "data", "db", "filestore.db"),
  dev: nodePath.join(root, "dev", "feature-x", "data", "db", "filestore.db")
})

/** Build the home under `root` (which must exist). */
export const makeHome = (root: string, opts: { global?: boolean } = {}): Home => {
  const h = homePaths(root)
  for (const p of [h.global, h.channel, h.dev]) fs.mkdirSync(nodePath.dirname(p), { recursive: true })
  // AgentMux's own files beside the channel store (objects.db), never read here
  fs.writeFileSync(nodePath.join(nodePath.dirname(h.channel), "objects.db"), "")
  if (opts.global !== false) createStore(h.global, globalFiles(), { wal: true })
  createStore(h.channel, channelFiles(), { wal: true })
  createStore(h.dev, devFiles(), { wal: true })
  return h
}

/** Every file under `dir`, by relative path, with its sha256 (folders as `<dir>`): compare before/after a read. */
export const treeFingerprint = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = nodePath.join(d, name)
      const rel = nodePath.relative(dir, p)
      const st = fs.lstatSync(p)
      if (st.isDirectory()) {
        out[rel] = "<dir>"
        walk(p)
      } else {
        out[rel] = st.isFile() ? createHash("sha256").update(fs.readFileSync(p)).digest("hex") : `<${st.mode}>`
      }
    }
  }
  walk(dir)
  return out
}
