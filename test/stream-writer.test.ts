/**
 * `stream`'s writer (issue 13, item 3, session 12): each chunk's NDJSON is
 * encoded into a pooled buffer and written from it, a Muse Code record's
 * payload text copied in as a part, never joined into one string. The
 * stream contract is public, so its bytes must not move: differential tests
 * of the pooled encoder against the line-at-a-time reference (each event's
 * `JSON.stringify`, C1 controls and bidi overrides escaped, UTF-8, a `\n`),
 * and of the CLI's stdout (to a pipe and to a file, over several read steps
 * so that pooled buffers are taken again) against the reference of the
 * events the adapters give in process, over the fixtures and hostile lines:
 * `\u` escapes, escaped lone surrogates, big numbers, -0, 1e400, duplicate
 * keys, `__proto__` keys, deep nesting, CRLF, a BOM, invalid UTF-8, raw C1
 * and bidi characters.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Stream from "effect/Stream"
import { encodeNdjson, encodeNdjsonTexts, ndjson } from "../src/cli/output.js"
import type { Locator, SessionEvent } from "../src/domain/model.js"
import { escapeJsonControls } from "../src/domain/render.js"
import * as App from "../src/layers/app.js"
import { SessionSources } from "../src/services/SessionSource.js"
import { end, metadata, opened, record } from "./muse-code/native-lines.js"
import { fixturesDir, repoRoot, tempDir } from "./support/paths.js"

/** What `stream` wrote a line at a time: each value's JSON text escaped and encoded on its own. */
const reference = (values: ReadonlyArray<unknown>): Buffer =>
  Buffer.concat(values.flatMap((v) => {
    const s = JSON.stringify(v) as string | undefined
    return s === undefined ? [] : [Buffer.from(escapeJsonControls(s) + "\n", "utf8")]
  }))

const hostileChar = fc.constantFrom(
  "\u0080", "\u0085", "\u009f", "\u00a0", "\u202a", "\u202e", "\u2066", "\u2069", "\u2028", "\u201c", "\ud800", "\udfff", "🎉", "é",
  "\u0000", "\n", "\"", "\\", "a"
)
const hostileString = fc.array(fc.oneof(hostileChar, fc.string({ maxLength: 4, unit: "binary" })), { maxLength: 30 }).map((a) => a.join(""))
const hostileValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    hostileString,
    fc.double(),
    fc.constantFrom(null, true, false, -0, 1e21, 5e-324, undefined),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(hostileString, tie("value"), { maxKeys: 4 })
  )
})).value

describe("the pooled NDJSON encoder", () => {
  it("gives each chunk the reference's bytes, and a chunk's bytes stay while it is not released, however many chunks follow", () => {
    fc.assert(
      fc.property(fc.array(fc.array(hostileValue, { maxLength: 10 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 300_000 }), (chunks, pad) => {
        // one big chunk among them, so a pooled buffer is outgrown
        const all = [...chunks, [{ big: "x".repeat(pad) }]]
        const leases = all.map((c) => encodeNdjson(c))
        all.forEach((c, i) => expect(Buffer.from(leases[i].bytes).equals(reference(c))).toBe(true))
        for (const l of leases) l.release()
        // taken again after release: still right
        for (const c of all) {
          const l = encodeNdjson(c)
          expect(Buffer.from(l.bytes).equals(reference(c))).toBe(true)
          l.release()
          l.release() // a second release changes nothing
        }
      }),
      { numRuns: 300 }
    )
  })

  it("encodes JSON texts (the lean stream's) as the reference, escaping raw C1 and bidi characters", () => {
    const texts = [JSON.stringify({ a: "\u0085\u202e" }), JSON.stringify("plain"), JSON.stringify(["\u2066", 1])]
    const l = encodeNdjsonTexts(texts)
    expect(Buffer.from(l.bytes).equals(reference([{ a: "\u0085\u202e" }, "plain", ["\u2066", 1]]))).toBe(true)
    l.release()
    expect(encodeNdjsonTexts([]).bytes.length).toBe(0)
    expect(ndjson([undefined]).length).toBe(0)
  })
})

// ---------------------------------------------------------------- the CLI against the adapters

const NATIVE_ID = "66666666-6666-4666-8666-666666666666"

/** Payload texts a JSON writer other than `JSON.stringify` may write (each parsed, the event restates it). */
const HOSTILE_PAYLOADS: ReadonlyArray<string> = [
  `{"t":"\\u00e9\\u0041\\u001f"}`,
  `{"t":"\\ud800 lone, \\udfff lone, \\ud83d\\ude00 pair"}`,
  `{"n":12345678901234567890,"m":-0,"h":1e400,"s":1e-400,"e":1E+5,"f":1.50}`,
  `{"a":1,"a":2,"b":{"c":1,"c":"two"}}`,
  `{"__proto__":{"polluted":true},"x":{"__proto__":1}}`,
  `{"deep":${"[".repeat(40)}1${"]".repeat(40)}}`,
  `{ "spaced" : [ 1 , 2 ] }`,
  `{"10":1,"2":2,"b":3,"0":0}`,
  `{"c1":"\u0085\u009f","bidi":"\u202a\u202e\u2066\u2069","ls":"\u2028\u2029"}`,
  `{"slash":"a\\/b","nul":"\\u0000","tab":"\\t"}`,
  `{"mark":"\\u0000session-ingest:payload\\u0000"}`,
  `{"emoji":"🎉","cjk":"日本語","mixed":"naïve → café"}`
]

/** A native log of hostile record lines, `repeat` times over (a BOM first, CRLF line ends when `crlf`), and session.end. */
const hostileNativeLog = (repeat: number, crlf: boolean): string => {
  const lines = [JSON.stringify(metadata(0, "/workspace/demo", NATIVE_ID)), JSON.stringify(opened(1, NATIVE_ID))]
  let seq = 2
  for (let r = 0; r < repeat; r++) {
    for (const p of HOSTILE_PAYLOADS) {
      lines.push(JSON.stringify(record(seq++, "runtime.session", { x: "@P" }, NATIVE_ID)).replace(`{"x":"@P"}`, p))
    }
    // a payload JSON.stringify wrote, long enough to fill read steps
    lines.push(JSON.stringify(record(seq++, "runtime.session", { event: { kind: "output", text: `line ${r} `.repeat(60) + "\u00e9\u202e" } }, NATIVE_ID)))
  }
  lines.push(JSON.stringify(end(seq, NATIVE_ID)))
  return "\ufeff" + lines.join(crlf ? "\r\n" : "\n") + (crlf ? "\r\n" : "\n")
}

/** A Muse agents transcript of hostile items (`repeat` times over), with a line of invalid UTF-8 and CRLF ends when `crlf`. */
const hostileAgentsTranscript = (repeat: number, crlf: boolean): Buffer => {
  const lines: Array<string | Buffer> = [JSON.stringify({ type: "session_header", session_id: "s-hostile", agent_id: "hostile", created_at: "2025-04-01T11:00:00Z" })]
  let seq = 0
  const item = (it: string) => `{"type":"item","seq":${++seq},"source":"runtime","item":${it},"created_at":"2025-04-01T11:00:${String(seq % 60).padStart(2, "0")}Z"}`
  for (let r = 0; r < repeat; r++) {
    for (const p of HOSTILE_PAYLOADS) {
      lines.push(item(`{"type":"message","role":"user","text":${JSON.stringify(p)}}`))
      lines.push(item(`{"type":"function_call","name":"exec","call_id":"c-${seq}","arguments":${JSON.stringify(p)}}`))
      lines.push(item(`{"type":"function_call_output","call_id":"c-${seq - 1}","output":${p}}`))
    }
    lines.push(item(`{"type":"message","role":"assistant","text":${JSON.stringify(`turn ${r} `.repeat(80) + "\u0085")}}`))
    if (r === 1) lines.push(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])) // invalid UTF-8
  }
  const eol = crlf ? "\r\n" : "\n"
  return Buffer.concat(lines.map((l) => Buffer.concat([typeof l === "string" ? Buffer.from(l, "utf8") : l, Buffer.from(eol)])))
}

/** The CLI's stdout bytes and exit code, stdout a pipe or a file. */
const runStream = (args: ReadonlyArray<string>, to: "pipe" | "file"): { stdout: Buffer; code: number | null } => {
  const bin = path.join(repoRoot, "bin", "session-ingest.mjs")
  if (to === "pipe") {
    const r = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, maxBuffer: 1024 * 1024 * 1024, timeout: 60_000 })
    return { stdout: r.stdout, code: r.status }
  }
  const out = path.join(tempDir(), "out.jsonl")
  const fd = fs.openSync(out, "w")
  try {
    const r = spawnSync(process.execPath, [bin, ...args], { cwd: repoRoot, stdio: ["ignore", fd, "pipe"], timeout: 60_000 })
    return { stdout: fs.readFileSync(out), code: r.status }
  } finally {
    fs.closeSync(fd)
  }
}

/** The events the adapter streams in process (those before a failure, as `stream` writes them before it fails). */
const inProcess = (policy: Parameters<typeof App.layer>[0], provider: string, locator: Locator, includeSubagents: boolean) =>
  Effect.gen(function*() {
    const adapter = yield* Effect.flatMap(SessionSources, (r) => r.get(provider))
    const events: Array<SessionEvent> = []
    const failed = yield* Stream.runForEach(adapter.stream(locator, { includeSubagents }), (e) => Effect.sync(() => events.push(e))).pipe(
      Effect.as(false),
      Effect.catchAll(() => Effect.succeed(true))
    )
    return { events, failed }
  }).pipe(Effect.provide(App.layer(policy)))

describe("stream's stdout is the reference of the adapters' events (CLI, pipe and file)", () => {
  it.effect("Muse Code native: the fixture with its subagent, and hostile logs (BOM, LF and CRLF) over several read steps", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const root = path.join(dir, "muse")
      const cases: Array<{ file: string; root: string; subagents: boolean }> = [{
        file: path.join(fixturesDir, "muse-code/native/2026/09/25/22222222-2222-4222-8222-222222222222/session.jsonl"),
        root: path.join(fixturesDir, "muse-code/native"),
        subagents: true
      }]
      for (const [i, crlf] of [false, true].entries()) {
        const file = path.join(root, `2026/09/2${i + 5}/${NATIVE_ID}/session.jsonl`)
        fs.mkdirSync(path.dirname(file), { recursive: true })
        fs.writeFileSync(file, hostileNativeLog(400, crlf))
        expect(fs.statSync(file).size).toBeGreaterThan(3 * 256 * 1024)
        cases.push({ file, root, subagents: false })
      }
      let lines = 0
      for (const c of cases) {
        const policy = { workspaceRoots: ["/workspace/demo"], museRoots: [c.root] }
        const want = yield* inProcess(policy, "muse-code", { locatorClass: "muse-native-session-log", path: c.file }, c.subagents)
        expect(want.failed).toBe(false)
        const args = ["stream", "muse-code", c.file, "--locator-class", "muse-native-session-log", "--muse-root", c.root, "--workspace", "/workspace/demo", ...(c.subagents ? ["--include-subagents"] : [])]
        for (const to of ["pipe", "file"] as const) {
          const got = runStream(args, to)
          expect(got.code, `${c.file} to a ${to}`).toBe(0)
          expect(got.stdout.equals(reference(want.events)), `${c.file} to a ${to}`).toBe(true)
        }
        lines += want.events.length
      }
      expect(lines).toBeGreaterThan(2 * 400 * HOSTILE_PAYLOADS.length)
    }), 180_000)

  it.effect("Muse Code native: a log with a line of invalid UTF-8 writes the events before the failing step, as in process", () =>
    Effect.gen(function*() {
      const root = path.join(tempDir(), "muse")
      const file = path.join(root, `2026/09/25/${NATIVE_ID}/session.jsonl`)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      const text = hostileNativeLog(300, false)
      const at = text.indexOf("\n", Math.floor(text.length * 0.7))
      fs.writeFileSync(file, Buffer.concat([Buffer.from(text.slice(0, at + 1)), Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), Buffer.from(text.slice(at + 1))]))
      const policy = { workspaceRoots: ["/workspace/demo"], museRoots: [root] }
      const want = yield* inProcess(policy, "muse-code", { locatorClass: "muse-native-session-log", path: file }, false)
      expect(want.failed).toBe(true)
      expect(want.events.length).toBeGreaterThan(0)
      for (const to of ["pipe", "file"] as const) {
        const got = runStream(["stream", "muse-code", file, "--locator-class", "muse-native-session-log", "--muse-root", root, "--workspace", "/workspace/demo"], to)
        expect(got.code).not.toBe(0)
        expect(got.stdout.equals(reference(want.events)), to).toBe(true)
      }
    }), 120_000)

  it.effect("Muse agents: the fixtures and hostile transcripts (LF and CRLF, invalid UTF-8) over several read steps", () =>
    Effect.gen(function*() {
      const agentsFixtures = path.join(fixturesDir, "muse-agents/agents")
      const cases: Array<{ file: string; root: string }> = ["messy", "delegate", "headless"].map((a) => ({ file: path.join(agentsFixtures, a, "sessions", `${a}.jsonl`), root: agentsFixtures }))
      for (const c of cases) expect(fs.existsSync(c.file), c.file).toBe(true)
      const root = path.join(tempDir(), "agents")
      for (const [i, crlf] of [false, true].entries()) {
        const file = path.join(root, `hostile-${i}`, "sessions", `hostile-${i}.jsonl`)
        fs.mkdirSync(path.dirname(file), { recursive: true })
        fs.writeFileSync(file, hostileAgentsTranscript(150, crlf))
        expect(fs.statSync(file).size).toBeGreaterThan(3 * 256 * 1024)
        cases.push({ file, root })
      }
      let lines = 0
      for (const c of cases) {
        const want = yield* inProcess({ agentsRoot: c.root }, "muse-agents", { locatorClass: "muse-agent-transcript", path: c.file }, false)
        for (const to of ["pipe", "file"] as const) {
          const got = runStream(["stream", "muse-agents", c.file, "--agents-root", c.root], to)
          expect(got.code === 0, `${c.file} to a ${to}`).toBe(!want.failed)
          expect(got.stdout.equals(reference(want.events)), `${c.file} to a ${to}`).toBe(true)
        }
        lines += want.events.length
      }
      expect(lines).toBeGreaterThan(2 * 150 * HOSTILE_PAYLOADS.length)
    }), 180_000)
})
