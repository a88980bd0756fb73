/**
 * session-ingest's own memory of incremental scans: for each AgentMux zone,
 * how far it was read and what was found (a {@link ZoneScan}), so a later
 * scan, also in a new process, reads only what was appended (seed 002, "each
 * zone remembers how far it has been read").
 *
 * Live layer: an embedded SQLite file (`--state FILE`, default under the
 * user's data directory), `src/layers/agentmux/scan-state-sqlite.ts`. Test
 * layer: {@link ScanState.layerMemory}.
 *
 * @module
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createHash } from "node:crypto"
import { encodeZoneScan, type ZoneScan } from "../../domain/agentmux/record.js"
import type { StoreUnavailable } from "../../domain/errors.js"

/**
 * What was derived from a store's zones and saved with their scans (issue
 * 13: a rescan keeps the report entries of the sessions it did not touch):
 * `body`, opaque to the state, and `scans`, the {@link scansDigest} of the
 * zones' stored scans it was derived from. It holds only while the zones'
 * stored scans are still those (`scans` equal to {@link StoredScans.digest}).
 */
export interface StoredReport {
  readonly scans: string
  readonly body: string
}

/** What the state holds of a store's zones. */
export interface StoredScans {
  /** The stored scan of each zone, by zone id. */
  readonly scans: ReadonlyMap<string, ZoneScan>
  /**
   * Zones whose stored scan cannot be trusted (it does not decode, or its
   * numbers do not hold together): read again from the start, and said so.
   */
  readonly untrusted: ReadonlySet<string>
  /** The {@link scansDigest} of every stored scan loaded (trusted or not). */
  readonly digest: string
  /** The report saved with the scans, when there is one and its text is intact (its own digest checked); else null. */
  readonly report: StoredReport | null
}

/**
 * The digest (sha256, hex) of a store's zones' stored scans: each zone id and
 * its stored text, in zone id order. A saved report names the scans it was
 * derived from by it.
 */
export const scansDigest = (texts: Iterable<readonly [zone: string, text: string]>): string => {
  const h = createHash("sha256")
  for (const [zone, text] of [...texts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    h.update(zone).update("\u0000").update(text).update("\u0000")
  }
  return h.digest("hex")
}

/** The service's operations. `store` is the store's real path; zone ids are AgentMux zone ids. */
export interface ScanStateShape {
  /** Where the state is kept (a file path, or `memory`). */
  readonly location: string
  /**
   * The stored scans of every zone of `store` whose id starts with
   * `zonePrefix`. A row that cannot be trusted is listed in `untrusted`, not
   * in `scans` (read again from the start). Fails with `StoreUnavailable`
   * when the state database cannot be opened.
   */
  readonly load: (store: string, zonePrefix: string) => Effect.Effect<StoredScans, StoreUnavailable>
  /**
   * Replace, in one transaction, the scans of `store` under `zonePrefix` with
   * `scans` (zones not in `scans` are forgotten: they are gone from the store),
   * and the report saved with them by `report` (derived from exactly these
   * scans; none: the saved report is left as it is, and is not used once the
   * scans it was derived from change).
   */
  readonly commit: (
    store: string,
    zonePrefix: string,
    scans: ReadonlyMap<string, ZoneScan>,
    report?: string
  ) => Effect.Effect<void, StoreUnavailable>
  /**
   * Run `f` with a state whose `load` and `commit` share one opening of the
   * state database (a scan's load and commit). Opened on first use, closed
   * when `f` ends.
   */
  readonly session: <A, E>(f: (state: ScanStateShape) => Effect.Effect<A, E>) => Effect.Effect<A, E>
}

/** The scan state in force. */
export class ScanState extends Context.Tag("session-ingest/ScanState")<ScanState, ScanStateShape>() {
  /** Test layer: scans kept in a map (shared by every use of the layer value). */
  static layerMemory = (map: Map<string, ZoneScan> = new Map()): Layer.Layer<ScanState> => {
    const reports = new Map<string, StoredReport>()
    const digestOf = (scans: ReadonlyMap<string, ZoneScan>) =>
      scansDigest([...scans].map(([zone, scan]) => [zone, encodeZoneScan(scan)] as const))
    const shape: ScanStateShape = {
      location: "memory",
      session: (f) => f(shape),
      load: (store, prefix) =>
        Effect.sync(() => {
          const out = new Map<string, ZoneScan>()
          for (const [k, v] of map) {
            const [s, zone] = JSON.parse(k) as [string, string]
            if (s === store && zone.startsWith(prefix)) out.set(zone, v)
          }
          const report = reports.get(JSON.stringify([store, prefix])) ?? null
          return { scans: out, untrusted: new Set<string>(), digest: digestOf(out), report }
        }),
      commit: (store, prefix, scans, report) =>
        Effect.sync(() => {
          for (const k of [...map.keys()]) {
            const [s, zone] = JSON.parse(k) as [string, string]
            if (s === store && zone.startsWith(prefix)) map.delete(k)
          }
          for (const [zone, scan] of scans) map.set(JSON.stringify([store, zone]), scan)
          const key = JSON.stringify([store, prefix])
          if (report !== undefined) reports.set(key, { scans: digestOf(scans), body: report })
        })
    }
    return Layer.succeed(ScanState, shape)
  }
}
