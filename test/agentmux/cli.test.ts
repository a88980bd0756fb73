import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { ARCHIVE, archiveLines, assistant, CURRENT, currentBytes, currentLines, storeFiles, T0, UID } from "./fixture.js"
import { appendBytes, createStore, fingerprint, tsidxRecord, withStore } from "./store-helper.js"
import { cli as runCli } from "../support/run.js"

const iso = (ms: number) => new Date(ms).toISOString()

/** Run the CLI in a new process. */
/** The CLI (the built bundle, as the other CLI tests run it). */
const cli = (...args: Array<string>) => {
  const r = runCli(args, { env: { NO_COLOR: "1" } })
  return { status: r.code, stdout: r.stdout, stderr: r.stderr }
}

let dir: string
let storeDir: string
let store: string
let state: string

beforeEach(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "am-cli-"))
  storeDir = nodePath.join(dir, "transcripts")
  fs.mkdirSync(storeDir)
  store = nodePath.join(storeDir, "filestore.db")
  state = nodePath.join(dir, "state", "state.db")
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

type Zone = { zone: string; readFrom: number; readTo: number; bytesRead: number; reset: string | null }

const discover = () => {
  const before = fingerprint(storeDir)
  const r = cli("discover", "agentmux", "--agent", UID, "--store", store, "--state", state, "--json")
  // The store's files byte-identical, nothing new beside them.
  expect(fingerprint(storeDir)).toEqual(before)
  expect(r.status).toBe(0)
  const env = JSON.parse(r.stdout)
  expect(env.status).toBe("ok")
  return env.data as { sources: Array<{ sessionId: string; summary: any; overview: unknown }>; receipts: { zones: Array<Zone>; stateFile: string } }
}
const zone = (d: ReturnType<typeof discover>, z: string) => d.receipts.zones.find((x) => x.zone === z)!

describe("the CLI, in new processes", () => {
  it("a rescan in a new process reads only what was appended, through the state file", () => {
    createStore(store, storeFiles())
    const first = discover()
    expect(first.receipts.stateFile).toBe(state)
    expect(fs.existsSync(state)).toBe(true)
    const C = currentLines.lines
    expect(zone(first, CURRENT)).toEqual({
      zone: CURRENT,
      size: currentBytes.length,
      readFrom: 0,
      readTo: C[11].end,
      bytesRead: currentBytes.length,
      reset: null,
      missing: []
    })
    expect(zone(first, ARCHIVE)).toMatchObject({ readFrom: 0, readTo: archiveLines.bytes.length, bytesRead: archiveLines.bytes.length })

    // AgentMux completes the half-written line and appends a new session line.
    const rest = `,"role":"assistant","content":[]},"session_id":"S-B"}\n`
    const more = `${assistant("S-G", "mg1", [{ type: "text", text: "new session" }])}\n`
    withStore(store, (db) => {
      appendBytes(db, CURRENT, "output", Buffer.from(rest + more))
      appendBytes(db, CURRENT, "output.tsidx", Buffer.from(`\n${tsidxRecord(currentBytes.length + rest.length, T0 + 30_000, "")}`))
    })
    const size = currentBytes.length + rest.length + more.length
    const second = discover()
    // Only the appended bytes (and the unterminated tail left last time) are read; the archive not at all.
    expect(zone(second, CURRENT)).toMatchObject({ readFrom: C[11].end, readTo: size, bytesRead: size - C[11].end, reset: null })
    expect(zone(second, ARCHIVE)).toMatchObject({ readFrom: archiveLines.bytes.length, bytesRead: 0 })
    expect(second.sources.map((s) => s.sessionId)).toEqual(["S-G", "S-B", "S-C", "S-A"])
    expect(second.sources[0].summary).toEqual({
      sessionId: "S-G",
      cwd: null,
      firstReceivedAt: iso(T0 + 30_000),
      lastReceivedAt: iso(T0 + 30_000),
      lineCount: 1,
      runs: [{ zone: CURRENT, start: currentBytes.length + rest.length, end: size, lines: 1, firstReceivedAt: iso(T0 + 30_000), lastReceivedAt: iso(T0 + 30_000) }]
    })
    expect(second.sources[0].overview).toEqual({
      sessionId: "S-G",
      title: null,
      workspace: null,
      firstActivityAt: iso(T0 + 30_000),
      lastActivityAt: iso(T0 + 30_000),
      model: null,
      counts: { prompts: null, toolCalls: null, runs: 1, lines: 1 },
      parseWarnings: [],
      diagnostics: []
    })
    // The waiting echo (C11) and the completed line joined S-B's second run, dated by the record at C10.
    expect(second.sources[1].summary.runs[1]).toEqual({
      zone: CURRENT,
      start: C[10].start,
      end: currentBytes.length + rest.length,
      lines: 3,
      firstReceivedAt: iso(T0 + 10_000),
      lastReceivedAt: iso(T0 + 10_000)
    })
    // A third process with nothing appended reads nothing.
    const third = discover()
    expect(third.receipts.zones.map((z) => z.bytesRead)).toEqual([0, 0])
    expect(third.sources).toEqual(second.sources)
  })

  it("transcript agentmux prints the session; a store that is not a database exits 6", () => {
    createStore(store, storeFiles())
    const t = cli("transcript", "agentmux", "--agent", UID, "--session", "S-A", "--store", store, "--state", state, "--json")
    expect(t.status).toBe(0)
    const data = JSON.parse(t.stdout).data
    expect(data.turns.map((x: { role: string }) => x.role)).toEqual(["user", "assistant"])
    fs.writeFileSync(store, "not a database at all, just text that is long enough to have a header............................\n")
    const bad = cli("discover", "agentmux", "--agent", UID, "--store", store, "--state", state, "--json")
    expect(bad.status).toBe(6)
    expect(JSON.parse(bad.stdout).error.code).toBe("STORE_UNAVAILABLE")
  })
})
