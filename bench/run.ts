/**
 * `npm run bench` (issue 7, "Benchmarks"): generate large inputs in a
 * temporary folder, measure each figure in its own child process against a
 * floor measured in the same run, print a table and write
 * `bench/results.json`. Not part of `npm test`.
 *
 * Environment (for development; the defaults are the sizes):
 * - `BENCH_SCALE=0.05`: scale every input size (a quick run; targets still printed);
 * - `BENCH_ONLY=a,b,c,d,e,f,r`: only these figures;
 * - `BENCH_KEEP=1`: keep the temporary folder (its path is printed).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import Database from "better-sqlite3"
import { chromium } from "playwright-core"
import { appendToAgentMuxStore, writeAgentMuxStore } from "./generate/agentmux.js"
import { writeAgentsTranscript } from "./generate/agents.js"
import { appendNativeTurns, writeNativeLog, writeNativeRoot } from "./generate/native.js"
import { check, lastJson, median, run, type RunResult } from "./lib/measure.js"

const REPO = nodePath.resolve(nodePath.dirname(fileURLToPath(import.meta.url)), "..")
const BIN = nodePath.join(REPO, "bin", "session-ingest.mjs")
const NODE = process.execPath
const MiB = 1024 * 1024

const scale = Number(process.env.BENCH_SCALE ?? "1")
const only = new Set((process.env.BENCH_ONLY ?? "a,b,c,d,e,f,r").split(","))
const keep = process.env.BENCH_KEEP === "1"

const SIZES = {
  nativeLogBytes: Math.round(1024 * MiB * scale),
  rootSessions: Math.max(10, Math.round(10_000 * scale)),
  transcriptLines: Math.max(100, Math.round(200_000 * scale)),
  agentmuxBytes: Math.round(800_000_000 * scale),
  replayEvents: Math.max(1000, Math.round(100_000 * scale)),
  appendBytes: MiB
}
const UID = "bench-u1"

const log = (s: string) => process.stderr.write(`[bench] ${s}\n`)
const t = () => performance.now()

// ---------------------------------------------------------------- figures

type Unit = "MiB/s" | "ms"

interface Figure {
  readonly id: string
  readonly figure: string
  /** The figure's value: throughput (MiB/s, higher is better) or time (ms, lower is better). */
  readonly measured: number
  readonly unit: Unit
  readonly floor: number | null
  readonly floorWhat: string | null
  /** measured / floor: for a throughput the share of the floor reached, for a time how many floors it took. */
  readonly ratio: number | null
  readonly target: string
  /** null: informational row, no target. */
  readonly pass: boolean | null
  readonly peakRssMiB: number | null
  readonly floorPeakRssMiB: number | null
  readonly samples: { readonly measured: ReadonlyArray<number>; readonly floor: ReadonlyArray<number> }
  readonly note?: string
}

const figures: Array<Figure> = []
const rssMiB = (xs: ReadonlyArray<RunResult>) => {
  const v = xs.map((r) => r.rssKiB).filter((x): x is number => x !== null)
  return v.length === 0 ? null : Math.max(...v) / 1024
}
const add = (f: Figure) => {
  figures.push(f)
  log(`${f.id}: ${fmt(f.measured, f.unit)} vs floor ${f.floor === null ? "-" : fmt(f.floor, f.unit)} -> ${pf(f.pass)}`)
}
const fmt = (v: number, unit: Unit) => (unit === "ms" ? `${v < 100 ? v.toFixed(1) : v.toFixed(0)} ms` : `${v.toFixed(1)} MiB/s`)
const pf = (p: boolean | null) => (p === null ? "-" : p ? "pass" : "MISS")

// ---------------------------------------------------------------- setup

const tmp = fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), "session-ingest-bench-")))
const cleanup = () => {
  if (keep) log(`kept ${tmp}`)
  else fs.rmSync(tmp, { recursive: true, force: true })
}
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    cleanup()
    process.exit(130)
  })
}

const home = nodePath.join(tmp, "home")
const env: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: home,
  XDG_DATA_HOME: nodePath.join(home, "data"),
  XDG_CONFIG_HOME: nodePath.join(home, "config"),
  MUSE_AGENTS_DIR: nodePath.join(tmp, "no-agents"),
  LANG: "C.UTF-8"
}
const bin = nodePath.join(REPO, "bench", "tmp", "bin")
const child = (name: string) => nodePath.join(bin, `${name}.mjs`)

/** Build the CLI bundle (the user's path) and bundle the floors and probes to plain .mjs run by `node`. */
const prepare = async () => {
  const b = spawnSync("npm", ["run", "build"], { cwd: REPO, stdio: ["ignore", "inherit", "inherit"] })
  if (b.status !== 0) throw new Error("npm run build failed")
  fs.rmSync(bin, { recursive: true, force: true })
  await build({
    entryPoints: {
      "json-lines": nodePath.join(REPO, "bench", "floors", "json-lines.ts"),
      "newline-scan": nodePath.join(REPO, "bench", "floors", "newline-scan.ts"),
      "native-walk": nodePath.join(REPO, "bench", "floors", "native-walk.ts"),
      "hash-file": nodePath.join(REPO, "bench", "floors", "hash-file.ts"),
      "agentmux-discover": nodePath.join(REPO, "bench", "probes", "agentmux-discover.ts"),
      "replay-render": nodePath.join(REPO, "bench", "probes", "replay-render.ts")
    },
    outdir: bin,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    external: ["better-sqlite3"],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: "warning"
  })
  for (const d of [home, env.MUSE_AGENTS_DIR!]) fs.mkdirSync(d, { recursive: true })
}

const cli = (args: ReadonlyArray<string>, discardStdout = false) =>
  run(NODE, [BIN, ...args], { env, cwd: tmp, discardStdout })
const nodeChild = (name: string, args: ReadonlyArray<string>) => run(NODE, [child(name), ...args], { env, cwd: tmp })
const envelope = (r: RunResult) => JSON.parse(r.stdout.trim().split("\n").pop()!) as { status: string; data: any }

const hasProvider = async (p: string) => {
  const r = check("providers", await cli(["providers", "--json"]))
  return (envelope(r).data as Array<{ provider: string }>).some((x) => x.provider === p)
}

// ---------------------------------------------------------------- (a) stream throughput

const streamFigure = async (
  id: string,
  name: string,
  file: string,
  args: ReadonlyArray<string>,
  target: { ratio: number; rssMiB?: number }
) => {
  const bytes = fs.statSync(file).size
  const floors: Array<RunResult> = []
  for (let i = 0; i < 3; i++) floors.push(check("floor json-lines", await nodeChild("json-lines", [file])))
  log(`${id}: floor ${floors.map((r) => r.ms.toFixed(0)).join(", ")} ms; streaming through the CLI…`)
  const runs: Array<RunResult> = []
  const reps = bytes > 512 * MiB ? 1 : 2
  for (let i = 0; i < reps; i++) runs.push(check(`stream ${id}`, await cli(args, true)))
  const mibs = (r: RunResult) => bytes / MiB / (r.ms / 1000)
  const measured = median(runs.map(mibs))
  const floor = median(floors.map(mibs))
  const ratio = measured / floor
  const peak = rssMiB(runs)
  add({
    id,
    figure: name,
    measured,
    unit: "MiB/s",
    floor,
    floorWhat: "read + split lines + JSON.parse + JSON.stringify, plain Node",
    ratio,
    target: `>= ${target.ratio} of floor` + (target.rssMiB !== undefined ? `, RSS < ${target.rssMiB} MiB` : ""),
    pass: ratio >= target.ratio && (target.rssMiB === undefined || (peak !== null && peak < target.rssMiB)),
    peakRssMiB: peak,
    floorPeakRssMiB: rssMiB(floors),
    samples: { measured: runs.map((r) => r.ms), floor: floors.map((r) => r.ms) },
    note: `${(bytes / MiB).toFixed(0)} MiB input; wall time of the whole process, stdout to /dev/null`
  })
}

// ---------------------------------------------------------------- main

const main = async () => {
  log(`temp folder ${tmp}; scale ${scale}; figures ${[...only].join(",")}`)
  await prepare()
  const inputs: Record<string, unknown> = {}
  const workspace = nodePath.join(tmp, "workspace")
  fs.mkdirSync(workspace, { recursive: true })

  // -------- generate
  let t0 = t()
  const museLogRoot = nodePath.join(tmp, "muse-log")
  const nativeLog = nodePath.join(museLogRoot, "2026", "09", "25", "00000001-0000-4000-8000-000000000b16", "session.jsonl")
  if (only.has("a") || only.has("f")) {
    inputs.nativeLog = writeNativeLog(nativeLog, SIZES.nativeLogBytes, workspace)
    log(`generated native log ${JSON.stringify(inputs.nativeLog)} in ${((t() - t0) / 1000).toFixed(1)} s`)
  }
  const agentsRoot = nodePath.join(tmp, "agents")
  let transcript: string | undefined
  if (only.has("a")) {
    t0 = t()
    const tr = writeAgentsTranscript(agentsRoot, "bench-agent", SIZES.transcriptLines)
    transcript = tr.path
    inputs.transcript = tr
    log(`generated agents transcript ${JSON.stringify(tr)} in ${((t() - t0) / 1000).toFixed(1)} s`)
  }
  const store = nodePath.join(tmp, "agentmux", "filestore.db")
  if (only.has("b")) {
    t0 = t()
    fs.mkdirSync(nodePath.dirname(store), { recursive: true })
    inputs.agentmux = { ...writeAgentMuxStore(store, UID, SIZES.agentmuxBytes), wal: true, storeBytes: fs.statSync(store).size }
    log(`generated AgentMux store ${JSON.stringify(inputs.agentmux)} in ${((t() - t0) / 1000).toFixed(1)} s`)
  }
  const nativeRoot = nodePath.join(tmp, "muse-root")
  if (only.has("c") || only.has("e")) {
    t0 = t()
    inputs.nativeRoot = writeNativeRoot(nativeRoot, SIZES.rootSessions, workspace)
    log(`generated native root ${JSON.stringify(inputs.nativeRoot)} in ${((t() - t0) / 1000).toFixed(1)} s`)
  }

  // -------- (d) cold start
  if (only.has("d")) {
    const cliRuns: Array<RunResult> = []
    const nodeRuns: Array<RunResult> = []
    for (let i = 0; i < 11; i++) {
      nodeRuns.push(check("node -e 0", await run(NODE, ["-e", "0"], { env, cwd: tmp })))
      cliRuns.push(check("--help", await cli(["--help"])))
    }
    const measured = median(cliRuns.map((r) => r.ms))
    const floor = median(nodeRuns.map((r) => r.ms))
    add({
      id: "d",
      figure: "(d) CLI cold start: bin/session-ingest.mjs --help",
      measured,
      unit: "ms",
      floor,
      floorWhat: "node -e 0",
      ratio: measured / floor,
      target: "<= 4x node -e 0",
      pass: measured / floor <= 4,
      peakRssMiB: rssMiB(cliRuns),
      floorPeakRssMiB: rssMiB(nodeRuns),
      samples: { measured: cliRuns.map((r) => r.ms), floor: nodeRuns.map((r) => r.ms) },
      note: "median of 11, interleaved"
    })
  }

  // -------- (a) stream throughput
  if (only.has("a")) {
    await streamFigure(
      "a-native",
      `(a) stream muse-code, ${(SIZES.nativeLogBytes / MiB / 1024).toFixed(2)} GiB native session.jsonl`,
      nativeLog,
      ["stream", "muse-code", nativeLog, "--locator-class", "muse-native-session-log", "--muse-root", museLogRoot, "--workspace", workspace],
      { ratio: 0.5, rssMiB: 200 }
    )
    if (await hasProvider("muse-agents")) {
      await streamFigure(
        "a-transcript",
        `(a) stream muse-agents, transcript of ${SIZES.transcriptLines} lines`,
        transcript!,
        ["stream", "muse-agents", transcript!, "--agents-root", agentsRoot, "--workspace", workspace],
        { ratio: 0.5 }
      )
    } else {
      log("a-transcript: the muse-agents provider is not in this build yet; skipped")
      figures.push({
        id: "a-transcript",
        figure: "(a) stream muse-agents transcript",
        measured: NaN,
        unit: "MiB/s",
        floor: null,
        floorWhat: null,
        ratio: null,
        target: ">= 0.5 of floor",
        pass: null,
        peakRssMiB: null,
        floorPeakRssMiB: null,
        samples: { measured: [], floor: [] },
        note: "not measured: provider muse-agents is not in this build"
      })
    }
  }

  // -------- (b) AgentMux first scan and rescans
  if (only.has("b")) {
    const zone = `agent:${UID}:current`
    const discoverArgs = (state: string) => ["discover", "agentmux", "--agent", UID, "--store", store, "--state", state, "--json"]
    const floors: Array<RunResult> = []
    for (let i = 0; i < 3; i++) floors.push(check("floor newline-scan", await nodeChild("newline-scan", [store, zone])))
    log(`b-first: floor ${floors.map((r) => r.ms.toFixed(0)).join(", ")} ms; first scans through the CLI…`)
    const firsts: Array<RunResult> = []
    let state = ""
    for (let i = 0; i < 2; i++) {
      state = nodePath.join(tmp, `state-first-${i}.db`)
      const r = check("discover agentmux", await cli(discoverArgs(state)))
      const e = envelope(r)
      if (e.status !== "ok" || e.data.sourceCount < 1) throw new Error(`first scan found nothing: ${r.stdout.slice(0, 400)}`)
      inputs.agentmuxSessions = e.data.sourceCount
      firsts.push(r)
    }
    const measured = median(firsts.map((r) => r.ms))
    const floor = median(floors.map((r) => r.ms))
    const outputMiB = ((inputs.agentmux as { outputBytes: number }).outputBytes) / MiB
    add({
      id: "b-first",
      figure: `(b) AgentMux first scan (discover), ${outputMiB.toFixed(0)} MiB zone, WAL store`,
      measured,
      unit: "ms",
      floor,
      floorWhat: "newline scan of the zone's output blobs (better-sqlite3, 4 MiB queries), plain Node",
      ratio: measured / floor,
      target: "<= 2x floor",
      pass: measured / floor <= 2,
      peakRssMiB: rssMiB(firsts),
      floorPeakRssMiB: rssMiB(floors),
      samples: { measured: firsts.map((r) => r.ms), floor: floors.map((r) => r.ms) },
      note: "wall time of the whole process, fresh --state each run"
    })

    /** Rescans after 1 MiB appends, each scan reading only what its append added. */
    const rescans = async (mode: string, n: number, viaCli: boolean, writer?: Database.Database) => {
      const runs: Array<RunResult> = []
      const fl: Array<RunResult> = []
      const inProc: Array<number> = []
      const flIn: Array<number> = []
      for (let i = 0; i < n; i++) {
        const before = (() => {
          const db = writer ?? new Database(store, { readonly: false })
          const row = db.prepare("SELECT size FROM db_wave_file WHERE zoneid = ? AND name = 'output'").get(zone) as { size: number }
          if (writer === undefined) db.close()
          return row.size
        })()
        appendToAgentMuxStore(store, UID, SIZES.appendBytes, 1000 + figures.length * 100 + i, writer)
        const f = check("floor newline-scan (append)", await nodeChild("newline-scan", [store, zone, String(before)]))
        fl.push(f)
        flIn.push(lastJson(f).ms as number)
        if (viaCli) {
          const r = check("rescan", await cli(discoverArgs(state)))
          if (envelope(r).status !== "ok") throw new Error("rescan failed")
          runs.push(r)
        } else {
          const r = check("probe agentmux-discover", await nodeChild("agentmux-discover", [store, state, UID]))
          runs.push(r)
          inProc.push(lastJson(r).ms as number)
        }
      }
      log(`rescans (${mode}, ${viaCli ? "CLI" : "in process"}): ${(viaCli ? runs.map((r) => r.ms) : inProc).map((x) => x.toFixed(0)).join(", ")} ms`)
      return { runs, fl, inProc, flIn }
    }
    const addRescan = (mode: string, r: Awaited<ReturnType<typeof rescans>>, viaCli: boolean) => {
      const measured = median(viaCli ? r.runs.map((x) => x.ms) : r.inProc)
      const floor = median(viaCli ? r.fl.map((x) => x.ms) : r.flIn)
      add({
        id: `b-rescan-${mode}${viaCli ? "-cli" : ""}`,
        figure: viaCli
          ? `(b) AgentMux rescan after a 1 MiB append, ${mode} store, CLI process wall time`
          : `(b) AgentMux rescan after a 1 MiB append, ${mode} store, library discover() in process`,
        measured,
        unit: "ms",
        floor,
        floorWhat: viaCli
          ? "newline scan of the appended blobs, whole node process"
          : "newline scan of the appended blobs, in process (open + query + scan)",
        ratio: measured / floor,
        target: viaCli ? "info (start-up is figure d)" : "< 100 ms",
        pass: viaCli ? null : measured < 100,
        peakRssMiB: rssMiB(r.runs),
        floorPeakRssMiB: rssMiB(r.fl),
        samples: { measured: viaCli ? r.runs.map((x) => x.ms) : r.inProc, floor: viaCli ? r.fl.map((x) => x.ms) : r.flIn },
        note: viaCli ? "median of 5; includes Node + CLI start-up" : "median of 5; from the discover call to its report (store open, state load, scan, state commit)"
      })
    }
    // The WAL rescans append through one connection kept open, as a running
    // AgentMux keeps its store: the -wal stays, SQLite checkpoints it every
    // ~1000 pages (about every third or fourth 1 MiB append).
    {
      const writer = new Database(store)
      try {
        addRescan("WAL", await rescans("WAL", 5, false, writer), false)
        addRescan("WAL", await rescans("WAL", 5, true, writer), true)
      } finally {
        writer.close()
      }
    }
    // The same store in rollback-journal mode (read through SQLite in place; a WAL store from a private copy).
    {
      const db = new Database(store)
      db.pragma("journal_mode = DELETE")
      db.close()
    }
    addRescan("rollback-journal", await rescans("rollback-journal", 5, false), false)
  }

  // -------- (c) discovery of the native root
  if (only.has("c")) {
    const floors: Array<RunResult> = []
    const runs: Array<RunResult> = []
    for (let i = 0; i < 3; i++) {
      floors.push(check("floor native-walk", await nodeChild("native-walk", ["evidence", nativeRoot, workspace])))
      const r = check("discover muse-code", await cli(["discover", "muse-code", "--muse-root", nativeRoot, "--workspace", workspace, "--json"]))
      const e = envelope(r)
      if (e.data.sourceCount !== SIZES.rootSessions) throw new Error(`discovery found ${e.data.sourceCount} of ${SIZES.rootSessions}`)
      runs.push(r)
      log(`c: floor ${floors[i].ms.toFixed(0)} ms, discover ${r.ms.toFixed(0)} ms`)
    }
    const measured = median(runs.map((r) => r.ms))
    const floor = median(floors.map((r) => r.ms))
    add({
      id: "c",
      figure: `(c) discover muse-code, ${SIZES.rootSessions} native sessions, evidence on line 2`,
      measured,
      unit: "ms",
      floor,
      floorWhat: "walk the root, read 64 KiB of each log, JSON.parse lines up to the evidence, plain Node",
      ratio: measured / floor,
      target: "< 5000 ms",
      pass: measured < 5000,
      peakRssMiB: rssMiB(runs),
      floorPeakRssMiB: rssMiB(floors),
      samples: { measured: runs.map((r) => r.ms), floor: floors.map((r) => r.ms) },
      note: "median of 3; wall time of the whole process"
    })
  }

  // -------- (e) re-import of unchanged sources
  if (only.has("e")) {
    const index = nodePath.join(tmp, "index.db")
    const args = ["import", "--index", index, "--workspace", workspace, "--muse-root", nativeRoot, "--agents-root", env.MUSE_AGENTS_DIR!, "--json"]
    log(`e: first import of ${SIZES.rootSessions} sources (not timed)…`)
    const first = check("first import", await cli(args), [0, 8])
    const fe = envelope(first)
    if (fe.data.sources.accepted !== SIZES.rootSessions) {
      throw new Error(`first import accepted ${fe.data.sources.accepted} of ${SIZES.rootSessions}: ${first.stdout.slice(0, 600)}`)
    }
    inputs.firstImport = { ms: first.ms, peakRssMiB: rssMiB([first]), events: fe.data.eventsAdded, coverage: fe.data.coverage }
    log(`e: first import ${(first.ms / 1000).toFixed(1)} s, ${fe.data.eventsAdded} events`)
    const floors: Array<RunResult> = []
    const runs: Array<RunResult> = []
    for (let i = 0; i < 3; i++) {
      floors.push(check("floor native-walk stat", await nodeChild("native-walk", ["stat", nativeRoot])))
      const r = check("re-import", await cli(args), [0, 8])
      const e = envelope(r)
      if (e.data.sources.unchanged !== SIZES.rootSessions) throw new Error(`re-import: ${e.data.sources.unchanged} unchanged of ${SIZES.rootSessions}`)
      runs.push(r)
      log(`e: floor ${floors[i].ms.toFixed(0)} ms, re-import ${r.ms.toFixed(0)} ms`)
    }
    const measured = median(runs.map((r) => r.ms))
    const floor = median(floors.map((r) => r.ms))
    add({
      id: "e",
      figure: `(e) re-import of ${SIZES.rootSessions} unchanged native sources`,
      measured,
      unit: "ms",
      floor,
      floorWhat: "walk the root and stat each log, plain Node",
      ratio: measured / floor,
      target: "< 1000 ms",
      pass: measured < 1000,
      peakRssMiB: rssMiB(runs),
      floorPeakRssMiB: rssMiB(floors),
      samples: { measured: runs.map((r) => r.ms), floor: floors.map((r) => r.ms) },
      note: "median of 3; wall time of the whole process (discovery + checkpoints)"
    })
  }

  // -------- (f) re-import after an append to the big native log
  if (only.has("f")) {
    const index = nodePath.join(tmp, "index-f.db")
    const args = ["import", "--index", index, "--workspace", workspace, "--muse-root", museLogRoot, "--agents-root", env.MUSE_AGENTS_DIR!, "--json"]
    log(`f: first import of the ${(SIZES.nativeLogBytes / MiB).toFixed(0)} MiB native log (not timed)…`)
    const first = check("first import", await cli(args), [0, 8])
    const fe = envelope(first)
    if (fe.data.sources.accepted !== 1) throw new Error(`first import: ${first.stdout.slice(0, 600)}`)
    inputs.firstImportNativeLog = { ms: first.ms, peakRssMiB: rssMiB([first]), events: fe.data.eventsAdded }
    log(`f: first import ${(first.ms / 1000).toFixed(1)} s, ${fe.data.eventsAdded} events`)
    let lastSequence = (inputs.nativeLog as { lastSequence: number }).lastSequence
    const floors: Array<RunResult> = []
    const runs: Array<RunResult> = []
    for (let i = 0; i < 3; i++) {
      lastSequence = appendNativeTurns(nativeLog, SIZES.appendBytes, lastSequence, 1 + i)
      floors.push(check("floor hash-file", await nodeChild("hash-file", [nativeLog])))
      const r = check("re-import", await cli(args), [0, 8])
      const e = envelope(r)
      if (e.data.sources.accepted !== 1 || e.data.sources.newGenerations !== 0 || e.data.eventsAdded === 0) {
        throw new Error(`re-import after an append: ${r.stdout.slice(0, 600)}`)
      }
      runs.push(r)
      log(`f: floor ${floors[i].ms.toFixed(0)} ms, re-import ${r.ms.toFixed(0)} ms (${e.data.eventsAdded} events added)`)
    }
    const measured = median(runs.map((r) => r.ms))
    const floor = median(floors.map((r) => r.ms))
    add({
      id: "f",
      figure: `(f) re-import after a 1 MiB append to the ${(SIZES.nativeLogBytes / MiB / 1024).toFixed(2)} GiB native log`,
      measured,
      unit: "ms",
      floor,
      floorWhat: "read the whole log once and sha256 it, plain Node (what checking its imported prefix costs at least)",
      ratio: measured / floor,
      target: "info",
      pass: null,
      peakRssMiB: rssMiB(runs),
      floorPeakRssMiB: rssMiB(floors),
      samples: { measured: runs.map((r) => r.ms), floor: floors.map((r) => r.ms) },
      note: "median of 3 appends; wall time of the whole process (prefix check, the appended events, the nested-log joins)"
    })
  }

  // -------- (r) HTML replay of a large session
  if (only.has("r")) {
    const page = nodePath.join(tmp, "replay.html")
    const floorPage = nodePath.join(tmp, "replay-floor.html")
    const probes: Array<RunResult> = []
    for (let i = 0; i < 3; i++) {
      fs.rmSync(page, { force: true })
      fs.rmSync(floorPage, { force: true })
      probes.push(check("probe replay-render", await nodeChild("replay-render", [String(SIZES.replayEvents), page, floorPage])))
    }
    const reports = probes.map(lastJson) as Array<{ renderMs: number; floorMs: number; bytes: number; floorJsonBytes: number }>
    const bytes = reports[0].bytes
    inputs.replay = { events: SIZES.replayEvents, htmlBytes: bytes, eventsJsonBytes: reports[0].floorJsonBytes }
    log(`r: replay of ${SIZES.replayEvents} events: ${(bytes / MiB).toFixed(1)} MiB of HTML; render ${reports.map((x) => x.renderMs.toFixed(0)).join(", ")} ms`)
    const renderMs = median(reports.map((x) => x.renderMs))
    const floorMs = median(reports.map((x) => x.floorMs))
    add({
      id: "r-render",
      figure: `(r) replay: build + render ${SIZES.replayEvents} events to one HTML page (${(bytes / MiB).toFixed(1)} MiB)`,
      measured: renderMs,
      unit: "ms",
      floor: floorMs,
      floorWhat: "JSON.stringify of the same events, in process",
      ratio: renderMs / floorMs,
      target: "<= 10x floor",
      pass: renderMs / floorMs <= 10,
      peakRssMiB: rssMiB(probes),
      floorPeakRssMiB: null,
      samples: { measured: reports.map((x) => x.renderMs), floor: reports.map((x) => x.floorMs) },
      note: `median of 3, in process (events in memory → page text); the probe's peak RSS includes generating the events; page ${bytes} bytes`
    })
    if (!fs.existsSync("/usr/bin/chromium")) {
      log("r-browser: /usr/bin/chromium is missing (.ci/run installs it); skipped")
    } else {
      const browser = await chromium.launch({
        executablePath: "/usr/bin/chromium",
        headless: true,
        args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
      })
      /** Open a page in a fresh context; its own timings (ms since navigation start) once everything is rendered. */
      const openPage = async (file: string) => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
        const p = await context.newPage()
        const requests: Array<string> = []
        p.on("request", (r) => requests.push(r.url()))
        const t0 = t()
        await p.goto(`file://${file}`, { waitUntil: "commit" })
        await p.waitForFunction(() => (globalThis as { __replay?: { done: boolean } }).__replay?.done === true, undefined, { timeout: 120_000, polling: 20 })
        const wall = t() - t0
        const m = (await p.evaluate(() => {
          const g = globalThis as unknown as { __replay: { doneMs: number; firstPaintMs: number | null }; performance: { memory?: { usedJSHeapSize: number } } }
          return { doneMs: g.__replay.doneMs, firstPaintMs: g.__replay.firstPaintMs, heap: g.performance.memory?.usedJSHeapSize ?? null }
        })) as { doneMs: number; firstPaintMs: number | null; heap: number | null }
        await context.close()
        if (requests.length !== 1) throw new Error(`the replay page made requests: ${requests.join(", ")}`)
        return { ...m, wall }
      }
      const opened: Array<Awaited<ReturnType<typeof openPage>>> = []
      const floors: Array<Awaited<ReturnType<typeof openPage>>> = []
      try {
        for (let i = 0; i < 3; i++) {
          floors.push(await openPage(floorPage))
          opened.push(await openPage(page))
          log(`r-browser: floor ${floors[i].doneMs.toFixed(0)} ms; replay first paint ${opened[i].firstPaintMs?.toFixed(0)} ms, complete ${opened[i].doneMs.toFixed(0)} ms`)
        }
      } finally {
        await browser.close()
      }
      const done = median(opened.map((x) => x.doneMs))
      const floorDone = median(floors.map((x) => x.doneMs))
      const firstPaint = median(opened.map((x) => x.firstPaintMs ?? NaN))
      const heap = opened[0].heap
      inputs.replayBrowser = { firstPaintMs: opened.map((x) => x.firstPaintMs), doneMs: opened.map((x) => x.doneMs), heapMiB: heap === null ? null : heap / MiB }
      const common = {
        unit: "ms" as const,
        floor: floorDone,
        floorWhat: "chromium opens a page of the same events as one JSON block and only parses it (all of it)",
        peakRssMiB: null,
        floorPeakRssMiB: null
      }
      add({
        ...common,
        id: "r-open",
        figure: `(r) replay opens in chromium (first paint): ${SIZES.replayEvents} events, ${(bytes / MiB).toFixed(1)} MiB page`,
        measured: firstPaint,
        ratio: firstPaint / floorDone,
        target: "< 3000 ms",
        pass: firstPaint < 3000,
        samples: { measured: opened.map((x) => x.firstPaintMs ?? NaN), floor: floors.map((x) => x.doneMs) },
        note: `median of 3, fresh context each, ms from navigation start (performance.now in the page): the header and first turns painted, the rest loading progressively; JS heap when complete ${heap === null ? "?" : (heap / MiB).toFixed(0)} MiB`
      })
      add({
        ...common,
        id: "r-complete",
        figure: `(r) replay complete in chromium (every entry in the page): ${SIZES.replayEvents} events`,
        measured: done,
        ratio: done / floorDone,
        target: "<= 3x floor",
        pass: done / floorDone <= 3,
        samples: { measured: opened.map((x) => x.doneMs), floor: floors.map((x) => x.doneMs) },
        note: "median of 3: every JSON block parsed and every entry's shell in the page (a turn's blocks are filled in as it nears the viewport)"
      })
    }
  }

  // -------- report
  const order = ["a-native", "a-transcript", "b-first", "b-rescan-WAL", "b-rescan-WAL-cli", "b-rescan-rollback-journal", "c", "d", "e", "f", "r-render", "r-open", "r-complete"]
  figures.sort((x, y) => order.indexOf(x.id) - order.indexOf(y.id))
  printTable()
  const out = nodePath.join(REPO, "bench", "results.json")
  fs.writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        scale,
        machine: { node: process.version, platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length, memGiB: Math.round(os.totalmem() / 2 ** 30), load: os.loadavg() },
        inputs,
        figures: figures.map((f) => ({ ...f, measured: Number.isNaN(f.measured) ? null : f.measured }))
      },
      null,
      2
    ) + "\n"
  )
  log(`wrote ${nodePath.relative(REPO, out)}`)
}

const printTable = () => {
  const rows = [["figure", "measured", "floor", "ratio", "target", "result", "peak RSS"]]
  for (const f of figures) {
    rows.push([
      f.figure,
      Number.isNaN(f.measured) ? "-" : fmt(f.measured, f.unit),
      f.floor === null ? "-" : fmt(f.floor, f.unit),
      f.ratio === null ? "-" : `${f.ratio.toFixed(2)}x`,
      f.target,
      pf(f.pass),
      f.peakRssMiB === null ? "-" : `${f.peakRssMiB.toFixed(0)} MiB`
    ])
  }
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)))
  const line = (r: ReadonlyArray<string>) => r.map((c, i) => (i === 0 || i === 4 ? c.padEnd(w[i]) : c.padStart(w[i]))).join("  ")
  process.stdout.write("\n" + line(rows[0]) + "\n" + w.map((n) => "-".repeat(n)).join("  ") + "\n")
  for (const r of rows.slice(1)) process.stdout.write(line(r) + "\n")
  process.stdout.write("\n")
}

const started = t()
main()
  .then(() => log(`done in ${((t() - started) / 1000).toFixed(0)} s`))
  .catch((e) => {
    process.stderr.write(`[bench] failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
    process.exitCode = 1
  })
  .finally(cleanup)
