/**
 * The live {@link ScanState}: an embedded SQLite database owned by
 * session-ingest (`--state FILE`; default `$XDG_DATA_HOME/session-ingest/state.db`,
 * else `~/.local/share/session-ingest/state.db`), through better-sqlite3
 * (`./sqlite-driver.ts` says why not `@effect/sql`). It is opened only when a
 * scan needs it, so commands of other providers never create it.
 *
 * Table: `agentmux_zone_scan(store TEXT, zone TEXT, scan TEXT /* a stored
 * ZoneScan, see encodeZoneScan *\/, updated_ms INTEGER, PRIMARY KEY (store, zone))`.
 * A commit writes only the zones whose stored text changed (an archive read
 * to its end is not written again) and deletes the zones gone from the store.
 *
 * Table: `agentmux_report(store TEXT, prefix TEXT, scans TEXT, body TEXT,
 * body_digest TEXT, updated_ms INTEGER, PRIMARY KEY (store, prefix))`: the
 * report derived from a store's zones under a prefix (`body`, see
 * `StoredReport`), written in the same transaction as their scans; `scans` is
 * the `scansDigest` of the stored scans it was derived from, `body_digest`
 * the sha256 of `body` (a body that does not match it is not handed out).
 * A commit without a report leaves the saved one (no longer used once the
 * scans it names change); one with the report as loaded does not write it.
 *
 * @module
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { decodeStoredZoneScan, encodeZoneScan, type ZoneScan } from "../../domain/agentmux/record.js"
import { StoreUnavailable } from "../../domain/errors.js"
import { checkOwnedSqlite, createOwnedSqlite, ownershipWhenOpen, STATE_APPLICATION_ID } from "../owned-sqlite.js"
import { type StoreRole, storeFailureFields, tryStore, watchFileSizeLimit } from "../store-failure.js"
import { AccessPolicy } from "../../services/AccessPolicy.js"
import { ScanState, type ScanStateShape, scansDigest, type StoredReport, type StoredScans } from "./ScanState.js"
import { dataDir } from "../data-dir.js"
import { type Driver, openDriver } from "./sqlite-driver.js"
import * as Layer from "effect/Layer"

/** The default state file: `<session-ingest's data folder>/state.db` (see `src/layers/data-dir.ts`). */
export const defaultStateFile = (env: NodeJS.ProcessEnv = process.env): string => nodePath.join(dataDir(env), "state.db")

/** The scan state as a store whose failures are told to the user (see `../store-failure.ts`). */
const stateRole = (path: string): StoreRole => ({
  file: path,
  label: "session-ingest's scan state",
  option: "--state FILE",
  readOnlyRemedy: "Pass --state FILE in a folder you can write to (the scan state is written on every AgentMux scan)."
})

const unavailable = (path: string) => (cause: unknown) => new StoreUnavailable(storeFailureFields(stateRole(path), cause))

const SCHEMA = `CREATE TABLE IF NOT EXISTS agentmux_zone_scan (
  store TEXT NOT NULL,
  zone TEXT NOT NULL,
  scan TEXT NOT NULL,
  updated_ms INTEGER NOT NULL,
  PRIMARY KEY (store, zone)
);
CREATE TABLE IF NOT EXISTS agentmux_report (
  store TEXT NOT NULL,
  prefix TEXT NOT NULL,
  scans TEXT NOT NULL,
  body TEXT NOT NULL,
  body_digest TEXT NOT NULL,
  updated_ms INTEGER NOT NULL,
  PRIMARY KEY (store, prefix)
)`

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** How long the state waits for another process's scan to commit, in ms. */
const BUSY_TIMEOUT_MS = 5000

/** An open state database and what this opening has read of it. */
interface Open {
  readonly db: Driver
  /** The stored text of each zone read by `load`, by `store\0zone`: a commit skips zones whose text is unchanged. */
  readonly loaded: Map<string, string>
  /** The report row read by `load` (its `scans` digest and body), by `store\0prefix`: a commit skips an unchanged one. */
  readonly loadedReports: Map<string, StoredReport>
}

const open = (path: string): Effect.Effect<Open, StoreUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    // A write the file-size limit refuses is then told as such (see `../store-failure.ts`).
    watchFileSizeLimit()
    yield* checkOwnedSqlite(path, STATE_APPLICATION_ID, "scan state", "--state FILE")
    const fail = unavailable(path)
    if (!fs.existsSync(path)) {
      // Made whole, stamped, then checked again (another process may have made it meanwhile).
      yield* tryStore(() => {
        fs.mkdirSync(nodePath.dirname(path), { recursive: true })
        createOwnedSqlite(path, STATE_APPLICATION_ID)
      }, fail)
      yield* checkOwnedSqlite(path, STATE_APPLICATION_ID, "scan state", "--state FILE")
    }
    // Closed after the scan's answer (`closeAfter`, see `openDriver`): its commit is in the WAL by then. Its
    // checkpoint on close syncs (see `synchronous` below).
    const db = yield* openDriver(path, {
      readonly: false,
      timeout: BUSY_TIMEOUT_MS,
      closeAfter: true,
      beforeClose: (d) => d.pragma("synchronous = NORMAL")
    }, fail)
    // What the file is once open (its first read rolls a hot journal back): a creation killed part-way is new again.
    const found = yield* tryStore(() => ({
      id: db.pragma("application_id", { simple: true }) as number,
      objects: (db.prepare("SELECT count(*) AS n FROM sqlite_master").all()[0] as { readonly n: number }).n
    }), fail)
    const owned = yield* ownershipWhenOpen(path, STATE_APPLICATION_ID, "scan state", "--state FILE", found)
    yield* tryStore(() => {
      if (owned === "new") db.pragma(`application_id = ${STATE_APPLICATION_ID}`)
      // WAL after the id is set, so the id lands in the main file's header.
      if (db.pragma("journal_mode", { simple: true }) !== "wal") db.pragma("journal_mode = WAL")
      // Durability (issue 13: the fsyncs of a rescan's commit, 2-25 ms, were its largest wait). The state is a
      // cache of session-ingest's own: a commit lost only makes the next scan read again what it recorded (the
      // stored scans are checked, `decodeStoredZoneScan`; the saved report names the scans it came from), so a
      // commit need not reach the disk, only survive the process (it is in the OS's page cache once written);
      // the database must never be left damaged, though, or the next scan would fail instead of reading again.
      // - While the scan works: `synchronous = OFF` (no fsync: not the new WAL's header, its folder, nor any
      //   commit) and no automatic checkpoint (`wal_autocheckpoint = 0`), so nothing is written into the main
      //   file: a commit is WAL frames only, and a machine crash tears at most the WAL's tail, which SQLite's
      //   recovery drops (frames are checksummed and salted): the last commits are lost, the database is whole.
      // - At close (after the answer, see above): `synchronous = NORMAL` again, so the checkpoint that close
      //   runs syncs the WAL before it copies frames into the main file, and the main file before the WAL is
      //   dropped: the main file is only ever written from a WAL on disk, as under NORMAL throughout.
      db.pragma("synchronous = OFF")
      db.pragma("wal_autocheckpoint = 0")
      db.exec(SCHEMA)
    }, fail)
    return { db, loaded: new Map(), loadedReports: new Map() }
  })

const key = (store: string, zone: string) => `${store}\u0000${zone}`

/** Load and commit over the opening `withDb` lends. */
const operations = (
  path: string,
  withDb: <A>(f: (o: Open) => Effect.Effect<A, StoreUnavailable>) => Effect.Effect<A, StoreUnavailable>
): Pick<ScanStateShape, "load" | "commit"> => ({
  load: (store, prefix) =>
    withDb(({ db, loaded, loadedReports }) =>
      tryStore(() => {
        const rows = db.prepare(
          "SELECT zone, scan FROM agentmux_zone_scan WHERE store = ? AND substr(zone, 1, ?) = ?"
        ).all(store, prefix.length, prefix) as Array<{ zone: unknown; scan: unknown }>
        const scans = new Map<string, ZoneScan>()
        const untrusted = new Set<string>()
        const texts: Array<readonly [string, string]> = []
        for (const r of rows) {
          if (typeof r.zone !== "string") continue
          texts.push([r.zone, typeof r.scan === "string" ? r.scan : String(r.scan)])
          const scan = typeof r.scan === "string" ? decodeStoredZoneScan(r.scan) : null
          if (scan === null) {
            untrusted.add(r.zone)
            continue
          }
          scans.set(r.zone, scan)
          loaded.set(key(store, r.zone), r.scan as string)
        }
        const saved = db.prepare("SELECT scans, body, body_digest FROM agentmux_report WHERE store = ? AND prefix = ?")
          .all(store, prefix) as Array<{ scans: unknown; body: unknown; body_digest: unknown }>
        const row = saved[0]
        const report: StoredReport | null = row !== undefined && typeof row.scans === "string" && typeof row.body === "string" &&
            row.body_digest === sha256(row.body)
          ? { scans: row.scans, body: row.body }
          : null
        if (report !== null) loadedReports.set(key(store, prefix), report)
        return { scans, untrusted, digest: scansDigest(texts), report } satisfies StoredScans
      }, unavailable(path))
    ),
  commit: (store, prefix, scans, report) =>
    withDb(({ db, loaded, loadedReports }) =>
      tryStore(() => {
        const now = Date.now()
        const texts = [...scans].map(([zone, scan]) => [zone, encodeZoneScan(scan)] as const)
        // Without a report the saved one is left as it is: it names the scans it came from, so it is not
        // used once they change.
        const reportScans = report === undefined ? undefined : scansDigest(texts)
        // Compared field by field: the digest first, and no joined copy of a body of ~100 KB made to compare it.
        const was = loadedReports.get(key(store, prefix))
        const saveReport = report === undefined || (was !== undefined && was.scans === reportScans && was.body === report)
          ? undefined
          : db.prepare(
            "INSERT OR REPLACE INTO agentmux_report (store, prefix, scans, body, body_digest, updated_ms) VALUES (?, ?, ?, ?, ?, ?)"
          )
        const zones = db.prepare("SELECT zone FROM agentmux_zone_scan WHERE store = ? AND substr(zone, 1, ?) = ?")
        const del = db.prepare("DELETE FROM agentmux_zone_scan WHERE store = ? AND zone = ?")
        const put = db.prepare(
          "INSERT OR REPLACE INTO agentmux_zone_scan (store, zone, scan, updated_ms) VALUES (?, ?, ?, ?)"
        )
        // IMMEDIATE: the write lock is taken (waiting up to the busy timeout) before anything is read.
        db.exec("BEGIN IMMEDIATE")
        try {
          for (const r of zones.all(store, prefix.length, prefix) as Array<{ zone: string }>) {
            if (!scans.has(r.zone)) del.run(store, r.zone)
          }
          for (const [zone, text] of texts) {
            if (loaded.get(key(store, zone)) !== text) put.run(store, zone, text, now)
          }
          if (saveReport !== undefined) saveReport.run(store, prefix, reportScans, report, sha256(report!), now)
          db.exec("COMMIT")
        } catch (e) {
          try {
            db.exec("ROLLBACK")
          } catch {
            // no transaction left to roll back (SQLite rolled it back itself)
          }
          throw e
        }
        for (const [zone, text] of texts) loaded.set(key(store, zone), text)
        if (report !== undefined) loadedReports.set(key(store, prefix), { scans: reportScans!, body: report })
      }, unavailable(path))
    )
})

/**
 * The live scan state at the access policy's `stateFile` (or the
 * default). `load` and `commit` each open the database; inside `session`,
 * it is opened once, on first use, for both.
 */
export const make: Effect.Effect<ScanStateShape, never, AccessPolicy> = Effect.map(AccessPolicy, (policy) => {
  const path = nodePath.resolve(policy.stateFile ?? defaultStateFile())
  const shape: ScanStateShape = {
    location: path,
    ...operations(path, (f) => Effect.scoped(Effect.flatMap(open(path), f))),
    session: (f) =>
      Effect.scoped(
        Effect.gen(function*() {
          const scope = yield* Effect.scope
          const db = yield* Effect.cached(Scope.extend(open(path), scope))
          return yield* f({ ...shape, ...operations(path, (g) => Effect.flatMap(db, g)) })
        })
      )
  }
  return shape
})

/** Layer: {@link make} as the {@link ScanState}. */
export const layer: Layer.Layer<ScanState, never, AccessPolicy> = Layer.effect(ScanState, make)
