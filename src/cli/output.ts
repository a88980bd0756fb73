/**
 * CLI output: the JSON envelope of DESIGN.md, plain text, NDJSON on stdout
 * with backpressure, one-line errors on stderr, and exit codes.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { errorToJson, exitCodeOf, isIngestError } from "../domain/error-codes.js"
import type { IngestError } from "../domain/errors.js"
import { CONTRACT_VERSION } from "../domain/model.js"
import { escapeJsonControls, visibleControls } from "../domain/render.js"

let exitCode = 0

/** The exit code the process ends with (set by the commands). */
export const getExitCode = (): number => exitCode

/** Set the exit code the process ends with. */
export const setExitCode = (code: number): void => {
  exitCode = code
}

/** Raised when stdout's reader went away (`| head`): stop quietly. */
export class StdoutClosed {
  readonly _tag = "StdoutClosed"
}

let stdoutClosed = false
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") stdoutClosed = true
})

/**
 * `JSON.stringify` of a value for stdout, with C1 controls and bidi overrides
 * written as `\uHHHH` (the same JSON value; see `escapeJsonControls`).
 */
export const jsonText = (value: object): string => escapeJsonControls(JSON.stringify(value))

/**
 * True when UTF-8 `bytes` hold a C1 control (U+0080–U+009F: `C2 80`–`C2 9F`)
 * or a bidi override or isolate (U+202A–U+202E: `E2 80 AA`–`AE`;
 * U+2066–U+2069: `E2 81 A6`–`A9`). Found with `indexOf` (memchr), so the
 * common line without one costs almost nothing.
 */
const holdsRawControl = (bytes: Uint8Array): boolean => {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let i = b.indexOf(0xc2); i >= 0; i = b.indexOf(0xc2, i + 1)) if (b[i + 1] >= 0x80 && b[i + 1] <= 0x9f) return true
  for (let i = b.indexOf(0xe2); i >= 0; i = b.indexOf(0xe2, i + 1)) {
    const c = b[i + 1], d = b[i + 2]
    if ((c === 0x80 && d >= 0xaa && d <= 0xae) || (c === 0x81 && d >= 0xa6 && d <= 0xa9)) return true
  }
  return false
}

/**
 * NDJSON bytes of some values: `JSON.stringify` of each, one a line, UTF-8,
 * written straight into one buffer. Joining the strings first and encoding
 * the joined text costs several times more (bench figure (a)). Values that
 * stringify to `undefined` are left out. A line holding a C1 control or a
 * bidi override is written again with them as `\uHHHH` escapes (the same
 * JSON value; see {@link jsonText}).
 */
export const ndjson = (values: Iterable<unknown>): Uint8Array => {
  let buf = Buffer.allocUnsafe(64 * 1024)
  let n = 0
  const room = (s: string) => {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const need = n + s.length * 3 + 1
    if (need > buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(need, buf.length * 2))
      buf.copy(bigger, 0, 0, n)
      buf = bigger
    }
  }
  for (const v of values) {
    const s: string | undefined = JSON.stringify(v)
    if (s === undefined) continue
    room(s)
    const start = n
    n += buf.write(s, n, "utf8")
    if (holdsRawControl(buf.subarray(start, n))) {
      const escaped = escapeJsonControls(s)
      n = start
      room(escaped)
      n += buf.write(escaped, n, "utf8")
    }
    buf[n++] = 10
  }
  return buf.subarray(0, n)
}

/** Write text or bytes to stdout, waiting for the stream to drain when its buffer is full. */
export const writeStdout = (text: string | Uint8Array): Effect.Effect<void, StdoutClosed> =>
  Effect.async<void, StdoutClosed>((resume) => {
    if (stdoutClosed) return resume(Effect.fail(new StdoutClosed()))
    const ok = process.stdout.write(text, (err) => {
      if (err) stdoutClosed = true
    })
    if (ok) return resume(Effect.void)
    const onDrain = () => {
      process.stdout.off("error", onError)
      resume(Effect.void)
    }
    const onError = () => {
      process.stdout.off("drain", onDrain)
      resume(Effect.fail(new StdoutClosed()))
    }
    process.stdout.once("drain", onDrain)
    process.stdout.once("error", onError)
  })

/** The `--json` envelope. */
export const envelope = (command: string, data: unknown, error: IngestError | null) => ({
  contractVersion: CONTRACT_VERSION,
  command,
  status: error === null ? "ok" : "error",
  data,
  error: error === null ? null : errorToJson(error)
})

/**
 * Write text for people (a listing, a transcript, Markdown) to stdout: every
 * control character it holds shown visibly (`visibleControls`), so that
 * session content cannot act on the terminal. The one way human text reaches
 * stdout.
 */
export const writeHuman = (text: string): Effect.Effect<void, StdoutClosed> => writeStdout(visibleControls(text))

/**
 * Write text for people to stderr (errors, notes), its control characters
 * shown visibly as {@link writeHuman} does. The one way text reaches stderr.
 */
export const writeStderr = (text: string): void => {
  process.stderr.write(visibleControls(text))
}

/** Print a success: the envelope with `--json`, else the rendered text (through {@link writeHuman}). */
export const printResult = (
  command: string,
  json: boolean,
  data: unknown,
  render: () => string
): Effect.Effect<void, StdoutClosed> =>
  json ? writeStdout(jsonText(envelope(command, data, null)) + "\n") : writeHuman(render())

/** One line for people: `session-ingest: CODE: message` plus a line with the remedy. */
export const renderError = (e: IngestError): string =>
  `session-ingest: ${e.code}: ${e.message}${e.remediation !== undefined ? `\n  remedy: ${e.remediation}` : ""}\n`

/**
 * Run a command's effect: on a typed error, print it (envelope on stdout with
 * `--json`, a line on stderr otherwise) and set the exit code of DESIGN.md.
 * A closed stdout ends quietly.
 */
export const reporting = <R>(
  command: string,
  json: boolean,
  effect: Effect.Effect<void, IngestError | StdoutClosed, R>
): Effect.Effect<void, never, R> =>
  effect.pipe(
    Effect.catchAll((e) => {
      if (e instanceof StdoutClosed) return Effect.void
      if (!isIngestError(e)) return Effect.die(e)
      setExitCode(exitCodeOf[e.code])
      return json
        ? writeStdout(jsonText(envelope(command, null, e)) + "\n").pipe(Effect.ignore)
        : Effect.sync(() => writeStderr(renderError(e)))
    })
  )
