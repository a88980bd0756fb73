/**
 * Figure (s-latency-pg): the search latency of figure (s) on the team index
 * (issue 17): the same corpus (`generate/search-corpus.ts`, built through
 * the PostgreSQL layer's `commitBatch` into a throwaway local server) and the
 * same 100 queries through `Index.search`, median and p95; the floor is
 * each query's bare `words @@ tsquery … ORDER BY doc DESC LIMIT 20` on the
 * same server (`probes/search-pg.ts`).
 */
import pg from "pg"
import { startPgServer } from "../../test/support/pg-server.js"

/** What the figure needs of the bench's runner (`../run.ts`). */
export interface SearchPgContext {
  readonly events: number
  readonly nodeChild: (name: string, args: ReadonlyArray<string>) => Promise<any>
  readonly check: (what: string, r: any) => any
  readonly lastJson: (r: any) => any
  readonly add: (figure: any) => void
  readonly log: (line: string) => void
  readonly median: (xs: ReadonlyArray<number>) => number
  readonly quantile: (xs: ReadonlyArray<number>, q: number) => number
  readonly rssMiB: (runs: ReadonlyArray<any>) => number | null
  readonly inputs: Record<string, unknown>
}

export const searchPgFigure = async (c: SearchPgContext) => {
  c.log("s-pg: starting a throwaway PostgreSQL server…")
  const server = await startPgServer()
  try {
    const admin = new pg.Client({ connectionString: server.url })
    await admin.connect()
    await admin.query("CREATE DATABASE bench_s")
    await admin.end()
    const u = new URL(server.url)
    u.pathname = "/bench_s"
    const url = u.toString()
    c.log(`s-pg: building ${c.events} events into PostgreSQL…`)
    const built = c.check("build (PostgreSQL)", await c.nodeChild("search-pg", ["build", url, String(c.events)]))
    const b = c.lastJson(built) as { ms: number; sourceBytes: number }
    c.log(`s-pg: … ${(b.ms / 1000).toFixed(1)} s; 100 queries…`)
    const q = c.check("queries (PostgreSQL)", await c.nodeChild("search-pg", ["query", url, String(c.events)]))
    const { samples } = c.lastJson(q) as { samples: Array<{ kind: string; query: string; ms: number; hits: number; floorMs: number }> }
    const ms = samples.map((x) => x.ms)
    const floors = samples.map((x) => x.floorMs)
    const med = c.median(ms), p95 = c.quantile(ms, 0.95)
    const byKind = Object.fromEntries(
      [...new Set(samples.map((x) => x.kind))].map((k) => {
        const xs = samples.filter((x) => x.kind === k)
        return [k, { medianMs: c.median(xs.map((x) => x.ms)), p95Ms: c.quantile(xs.map((x) => x.ms), 0.95), floorMedianMs: c.median(xs.map((x) => x.floorMs)) }]
      })
    )
    c.inputs.searchPg = {
      events: c.events,
      buildMs: b.ms,
      latency: { medianMs: med, p95Ms: p95, floorMedianMs: c.median(floors), floorP95Ms: c.quantile(floors, 0.95), byKind },
      slowest: [...samples].sort((x, y) => y.ms - x.ms).slice(0, 5)
    }
    c.log(`s-pg: latency median ${med.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms; by kind ${JSON.stringify(byKind)}`)
    c.add({
      id: "s-latency-pg",
      figure: `(s-pg) search on PostgreSQL: the 100 queries of (s) over ${c.events} events, median (p95 in note)`,
      measured: med,
      unit: "ms",
      floor: c.median(floors),
      floorWhat: "the query's bare words @@ tsquery ORDER BY doc DESC LIMIT 20 (GIN; no rank, filter, join or snippet), same server",
      ratio: med / c.median(floors),
      target: "median < 50 ms, p95 < 200 ms",
      pass: med < 50 && p95 < 200,
      peakRssMiB: c.rssMiB([q]),
      floorPeakRssMiB: null,
      samples: { measured: ms, floor: floors },
      note: `p95 ${p95.toFixed(1)} ms (floor p95 ${c.quantile(floors, 0.95).toFixed(1)} ms); in process, from Index.search's call to its hits with snippets; local server, fsync off; corpus built in ${(b.ms / 1000).toFixed(0)} s`
    })
  } finally {
    server.stop()
  }
}
