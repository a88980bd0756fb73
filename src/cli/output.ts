/**
 * CLI output: the JSON envelope of DESIGN.md, plain text, NDJSON on stdout
 * with backpressure, one-line errors on stderr, and how a command can end
 * ({@link CommandError}; `./main.ts` turns that into the printed error and
 * the exit code).
 *
 * @module
 */
import * as fs from "node:fs"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { clippedEchoes } from "../domain/echo.js"
import { errorToJson } from "../domain/error-codes.js"
import type { IngestError, OutputWriteFailed, StoreUnavailable } from "../domain/errors.js"
import { CONTRACT_VERSION } from "../domain/model.js"
import { cannotGrow, classify, describe, isStorageError, settleWriteFailure } from "../layers/store-failure.js"
import { errors } from "./lazy.js"
import { escapeJsonControls, oneLineField, visibleControls } from "../domain/render.js"
import { jsonParts } from "./json-parts.js"
import { encodeNdjson, encodeNdjsonLines, encodeNdjsonTexts, holdsRawControl, type NdjsonLease } from "../layers/ndjson.js"

export { encodeNdjson, encodeNdjsonLines, encodeNdjsonTexts, ndjson, type NdjsonLease, ndjsonOfTexts } from "../layers/ndjson.js"

/**
 * Exit code of a run that finished with partial coverage (DESIGN.md: an
 * `import`; `discover` follows it, so a daily job sees the same answer):
 * the report is printed, with what made it partial.
 */
export const PARTIAL_EXIT = 8

/** Raised when stdout's reader went away (`| head`): stop quietly (exit 0, or 7 when stdout failed, see {@link stdoutWriteFailure}). */
export class StdoutClosed extends Data.TaggedError("StdoutClosed")<{}> {}

/**
 * Not an error: the command printed its report, and that report's coverage
 * is partial (`import`, `discover`). The run ends with {@link PARTIAL_EXIT}
 * and nothing more is printed.
 */
export class PartialCoverage extends Data.TaggedError("PartialCoverage")<{}> {}

/** How a command's effect can fail: an error of the family, stdout gone away, or partial coverage. */
export type CommandError = IngestError | StdoutClosed | PartialCoverage

let stdoutClosed = false
/** A write to stdout that failed for another reason than its reader going away (a full disk, an I/O error). */
let stdoutFailure: NodeJS.ErrnoException | undefined
const stdoutError = (e: NodeJS.ErrnoException) => {
  stdoutClosed = true
  if (e.code !== "EPIPE" && e.code !== "ERR_STREAM_DESTROYED") stdoutFailure ??= e
}
process.stdout.on("error", stdoutError)

/**
 * `JSON.stringify` of a value for stdout, with C1 controls and bidi overrides
 * written as `\uHHHH` (the same JSON value; see `escapeJsonControls`).
 */
export const jsonText = (value: object): string => escapeJsonControls(JSON.stringify(value))

/** From this many UTF-8 bytes (at most 3 per character) a `--json` envelope is checked for raw controls as bytes. */
const LARGE_JSON_CHARS = 64 * 1024

/**
 * Up to this many UTF-16 units, {@link jsonOut} encodes a text into a buffer
 * of 3 bytes a unit (the most UTF-8 takes for one: a surrogate pair's 4 bytes
 * are 2 a unit, a lone surrogate's U+FFFD 3), so no pass of its own measures
 * its UTF-8 length first. 16 Mi units: at most 48 MiB asked for, of which the
 * pages never written are never touched (an uninitialized buffer).
 */
const ENCODE_UNMEASURED_MAX_CHARS = 16 * 1024 * 1024

/**
 * {@link jsonText} of a value plus a line break, as the bytes stdout gets.
 * A large text is encoded once and looked at as bytes ({@link holdsRawControl}:
 * `indexOf`, memchr): without a raw control, as nearly every envelope is,
 * those bytes are the answer (no regular-expression pass over megabytes of
 * text, no second encoding by the write); with one, the escaped text. A
 * small one is {@link jsonText}'s text. The UTF-8 length of a large text is
 * not measured first (up to {@link ENCODE_UNMEASURED_MAX_CHARS}): that pass
 * cost ~45 ms of the ~100 ms that printing `discover`'s 10 MB report of
 * 10,000 sources took (bench figure c), whose text is two bytes a character
 * (each receipt's redacted locator holds a `…`).
 */
const jsonOut = (value: object): string | Uint8Array => {
  // In parts (`jsonParts`: the same text), so that one character above U+00FF does not make the whole text two
  // bytes a character, copied whole before it is encoded (~100 ms of CPU for figure c's 10 MB report).
  const parts = jsonParts(value) ?? [JSON.stringify(value)]
  let chars = 0
  for (const p of parts) chars += p.length
  if (chars < LARGE_JSON_CHARS) return escapeJsonControls(parts.join("")) + "\n"
  let room = chars * 3
  if (chars > ENCODE_UNMEASURED_MAX_CHARS) {
    room = 0
    for (const p of parts) room += Buffer.byteLength(p, "utf8")
  }
  const buffer = Buffer.allocUnsafe(room + 1)
  let n = 0
  for (const p of parts) n += buffer.write(p, n, "utf8")
  buffer[n] = 0x0a
  return holdsRawControl(buffer.subarray(0, n)) ? escapeJsonControls(parts.join("")) + "\n" : buffer.subarray(0, n + 1)
}

/**
 * Write the NDJSON of some values (the bytes of {@link ndjson}) to stdout, as
 * {@link writeStdout} does, from the buffer they were encoded into: no copy,
 * and the buffer is taken again for a later chunk once this write is done.
 * The values are encoded when this is called (give it as the callback of
 * `Stream.runForEachChunk`); the effect writes them. Encoding inside an
 * `Effect.suspend` instead made every scavenge of the young generation
 * several times slower (measured with `--trace-gc`: 1.0 s against 5.6 s
 * over a 100 MB native log).
 */
export const writeNdjson = (values: Iterable<unknown>): Effect.Effect<void, StdoutClosed> => writeLease(encodeNdjson(values))

/** Write a lease's bytes to stdout (as {@link writeStdout}), then release it: after the last `fs.writeSync`, or when `process.stdout` called back. */
export const writeLease = (lease: NdjsonLease): Effect.Effect<void, StdoutClosed> => {
  if (lease.bytes.length === 0 || stdoutClosed) {
    lease.release()
    return lease.bytes.length === 0 ? Effect.void : Effect.fail(new StdoutClosed())
  }
  return stdoutTarget() === "file"
    ? Effect.ensuring(writeFileStdout(lease.bytes), Effect.sync(lease.release))
    : writeStreamStdout(lease.bytes, lease.release)
}

/** {@link writeNdjson} of lines whole or in parts: the bytes of {@link encodeNdjsonLines}, written from their pooled buffer. */
export const writeNdjsonLines = (lines: ReadonlyArray<string | ReadonlyArray<string | Uint8Array>>): Effect.Effect<void, StdoutClosed> =>
  writeLease(encodeNdjsonLines(lines))

/** {@link writeNdjson} of JSON texts: the bytes of {@link ndjsonOfTexts}, written from their pooled buffer. */
export const writeNdjsonTexts = (texts: ReadonlyArray<string>): Effect.Effect<void, StdoutClosed> => writeLease(encodeNdjsonTexts(texts))

/**
 * What stdout is, decided at its first write: `"file"` a regular file or a
 * device (`> out.json`, `> /dev/full`), which Node's `process.stdout`
 * (a `SyncWriteStream`) writes with one `fs.writeSync` whose count it does
 * not look at, so a short write (a disk that fills, the file-size limit of
 * `ulimit -f`) would be lost unseen: such a stdout is written here, a write
 * at a time, each one's count and errno checked; `"stream"` a pipe, socket
 * or terminal, written through `process.stdout` (its 'error' event and
 * write callbacks watched).
 *
 * A closed stdout (`>&-`) is not told apart: Node puts `/dev/null`, opened
 * read-write, on a closed fd 1 before any of this runs, which is exactly
 * what a parent's `stdio: "ignore"` or Python's `subprocess.DEVNULL` give,
 * and those runs must keep their exit code.
 */
type StdoutTarget = "file" | "stream"
let target: StdoutTarget | undefined
const stdoutTarget = (): StdoutTarget => {
  if (target !== undefined) return target
  target = "stream"
  try {
    if (process.stdout.isTTY === true) return target
    const st = fs.fstatSync(1)
    if (st.isFile() || st.isCharacterDevice() || st.isBlockDevice()) target = "file"
  } catch {
    // not known: left to process.stdout
  }
  return target
}

/** The most a `"file"` stdout takes in one `fs.writeSync`: between two, the fiber yields (an interruption lands). */
const FILE_WRITE_SLICE = 1024 * 1024

/**
 * Write `bytes` to a `"file"` stdout (see {@link stdoutTarget}): every byte
 * or a failure (its errno kept for {@link stdoutWriteFailure}); a short
 * write is continued, so the error behind it (`ENOSPC`, `EFBIG`) is seen.
 */
const writeFileStdout = (bytes: Uint8Array): Effect.Effect<void, StdoutClosed> =>
  Effect.gen(function*() {
    let at = 0
    while (at < bytes.length) {
      try {
        at += fs.writeSync(1, bytes, at, Math.min(bytes.length - at, FILE_WRITE_SLICE))
      } catch (e) {
        const err = e as NodeJS.ErrnoException
        // A device opened non-blocking that is busy: again, a little later.
        if (err.code === "EAGAIN") {
          yield* Effect.sleep(5)
          continue
        }
        stdoutError(err)
        return yield* Effect.fail(new StdoutClosed())
      }
      if (at < bytes.length) yield* Effect.yieldNow()
    }
  })

/**
 * Write text or bytes to stdout: the one path every output of every command
 * takes to stdout. A file is written here, each write's count and errno
 * checked (see {@link stdoutTarget}); a pipe or terminal through
 * `process.stdout`, waiting for it to drain when its buffer is full. A
 * failed write fails with {@link StdoutClosed}: stdout's reader gone (`EPIPE`,
 * exit 0) or, any other errno, the `OUTPUT_WRITE_FAILED` of
 * {@link stdoutWriteFailure} (exit 7).
 */
export const writeStdout = (text: string | Uint8Array): Effect.Effect<void, StdoutClosed> =>
  Effect.suspend(() => {
    if (stdoutClosed) return Effect.fail(new StdoutClosed())
    return stdoutTarget() === "file"
      ? writeFileStdout(typeof text === "string" ? Buffer.from(text, "utf8") : text)
      : writeStreamStdout(text)
  })

/**
 * {@link writeStdout} to a pipe or terminal: through `process.stdout`, waiting for it to drain when its buffer is full;
 * `written` is called once `process.stdout` is done with the bytes (its write's callback).
 */
const writeStreamStdout = (text: string | Uint8Array, written?: () => void): Effect.Effect<void, StdoutClosed> =>
  Effect.async<void, StdoutClosed>((resume) => {
    if (stdoutClosed) {
      written?.()
      return resume(Effect.fail(new StdoutClosed()))
    }
    const ok = process.stdout.write(text, (err) => {
      if (err) stdoutError(err)
      written?.()
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

/** Wait until what was written to stdout is handed over (or failed). */
export const flushStdout: Effect.Effect<void> = Effect.async<void>((resume) => {
  if (stdoutClosed || process.stdout.writableLength === 0) return resume(Effect.void)
  process.stdout.write("", (err) => {
    if (err) stdoutError(err)
    resume(Effect.void)
  })
})

/**
 * When stdout could not be written (`> /dev/full`, a redirect to a full
 * disk, the file-size limit, a stdout opened read-only): the `OUTPUT_WRITE_FAILED` to
 * report (on stderr: stdout is what failed; exit 7), naming the errno;
 * `undefined` when stdout took everything.
 */
export const stdoutWriteFailure: Effect.Effect<OutputWriteFailed | undefined> = Effect.suspend(() => {
  const e = stdoutFailure
  if (e === undefined) return Effect.succeed(undefined)
  return Effect.map(errors, ({ OutputWriteFailed }) => {
    const f = classify(e)
    const [problem, remediation] = f.code === "EFBIG"
      ? ["the file-size limit was reached", "Raise the file-size limit (`ulimit -f`) or redirect stdout to a file it allows, then run the same command again."]
      : f.code === "EBADF"
      ? ["standard output is not open for writing", "Run the command with stdout open for writing (redirect it with `>` to a file or a pipe, or pass --out FILE where the command takes it)."]
      : f.kind === "disk-full"
      ? ["the disk is full", "Free space on the disk stdout is redirected to (or redirect it elsewhere), then run the same command again."]
      : ["the write failed", "Redirect stdout to a file or pipe that can be written, then run the same command again."]
    return new OutputWriteFailed({
      message: `Cannot write to standard output: ${problem} (${describe(f)}); the output is incomplete.`,
      remediation,
      details: { path: "-", reason: f.kind, ...(f.code !== undefined ? { code: f.code } : {}) }
    })
  })
})

/** The `--json` envelope. */
export const envelope = (command: string, data: unknown, error: IngestError | null) => ({
  contractVersion: CONTRACT_VERSION,
  command,
  status: error === null ? "ok" : "error",
  data,
  error: error === null ? null : withEchoesClipped(errorToJson(error))
})

/**
 * What a CLI error echoes of its input (an id, a path, a query) is held to a size that does not grow with it: a run of
 * more than 4,096 non-space characters (longer than any path: PATH_MAX) keeps its first 200 (tester36b F12: a 100 kB
 * id was echoed whole by `show`'s not-found), the text 65,536 characters ({@link clippedEchoes}).
 */
const CLI_ECHOES = { maxRun: 4096, keep: 200, maxText: 65_536 } as const

/** An error's message and remedy with their echoes clipped (`CLI_ECHOES`); its `details` (facts) as they are. */
const withEchoesClipped = <E extends { readonly message: string; readonly remediation?: string }>(e: E): E => ({
  ...e,
  message: clippedEchoes(e.message, CLI_ECHOES),
  ...(e.remediation !== undefined ? { remediation: clippedEchoes(e.remediation, CLI_ECHOES) } : {})
})

/**
 * Write text for people (a listing, a transcript, Markdown) to stdout: every
 * control character it holds shown visibly (`visibleControls`), so that
 * session content cannot act on the terminal. The one way human text reaches
 * stdout.
 */
export const writeHuman = (text: string): Effect.Effect<void, StdoutClosed> => writeStdout(visibleControls(text))

/**
 * Write human text made of parts (`transcriptMarkdownParts`) to stdout, as
 * {@link writeHuman} writes their concatenation, yielding between parts (an
 * interruption lands between two); `last`: what becomes of the text's end
 * (a line added after it), applied to the last part.
 */
export const writeHumanParts = (
  parts: Iterable<string>,
  last: (text: string) => string = (text) => text
): Effect.Effect<void, StdoutClosed> =>
  Effect.gen(function*() {
    let held: string | undefined
    for (const part of parts) {
      if (held !== undefined) {
        yield* writeHuman(held)
        yield* Effect.yieldNow()
      }
      held = part
    }
    yield* writeHuman(last(held ?? ""))
  })

/** True when stdout may be coloured: a terminal, and `NO_COLOR` unset or empty (as the help decides). */
export const stdoutColor = (): boolean => process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === ""

/** A piece of human text; `mark`: a search match, highlighted on a terminal. */
export interface TextPiece {
  readonly text: string
  readonly mark?: boolean | undefined
}

/**
 * Human text made of pieces, some of them marked: each piece's control
 * characters shown visibly (`visibleControls`, as {@link writeHuman}), and,
 * when `color`, the marked ones highlighted (bold yellow, SGR `1;33`) by
 * escapes of ours added after that, so that content can never bring its own.
 * Without `color` the text is plain.
 */
export const markedText = (pieces: ReadonlyArray<TextPiece>, color: boolean): string =>
  pieces.map((p) => {
    const t = visibleControls(p.text)
    return color && p.mark === true && t.length > 0 ? `\u001b[1;33m${t}\u001b[0m` : t
  }).join("")

/** Write {@link markedText} to stdout (its pieces already shown safe; nothing is escaped again). */
export const writeMarked = (pieces: ReadonlyArray<TextPiece>, color: boolean): Effect.Effect<void, StdoutClosed> =>
  writeStdout(markedText(pieces, color))

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
  json ? writeStdout(jsonOut(envelope(command, data, null))) : writeHuman(render())

/**
 * One line for people: `session-ingest: CODE: message` plus a line with the
 * remedy; a line break or a tab inside either (a path that holds one) is
 * written as an escape ({@link oneLineField}, as every one-line value: tester37
 * F5, a tab was written raw), so the error stays on its two lines; its other
 * controls are shown by `writeStderr`; a very long echo is clipped
 * (`CLI_ECHOES`).
 */
export const renderError = (error: IngestError): string => {
  const e = withEchoesClipped({ message: error.message, remediation: error.remediation })
  return `session-ingest: ${error.code}: ${oneLineField(e.message)}${e.remediation !== undefined ? `\n  remedy: ${oneLineField(e.remediation)}` : ""}\n`
}

/** A SQLite or file-system error no layer named the file of, as a `StoreUnavailable`. */
const storageDefect = (StoreUnavailable: typeof import("../domain/errors.js").StoreUnavailable, d: unknown) => {
  const f = classify(d)
  const grow = f.kind === "disk-full" ? cannotGrow(undefined) : undefined
  if (grow?.why === "file-size-limit") {
    return new StoreUnavailable({
      message: `A file session-ingest uses cannot be written: the file-size limit (\`ulimit -f\`, ${grow.limit} bytes) was reached (${describe(f)}).`,
      remediation: `Raise the file-size limit (\`ulimit -f\`, now ${grow.limit} bytes; \`ulimit -f unlimited\` lifts it), then run the same command again.`,
      details: { reason: f.kind, ...(f.code !== undefined ? { code: f.code } : {}), fileSizeLimit: grow.limit }
    })
  }
  return new StoreUnavailable({
    message: `A file session-ingest uses cannot be ${f.kind === "disk-full" ? "written: the disk is full" : f.kind === "read-only" ? "written: it is read-only" : "used"} (${describe(f)}).`,
    remediation: f.kind === "disk-full"
      ? "Free space on the disk (or pass --index / --state / --out on another disk), then run the same command again."
      : "Check that --index, --state and --out name files in folders you can write to, then run the same command again.",
    details: { reason: f.kind, ...(f.code !== undefined ? { code: f.code } : {}) }
  })
}

/**
 * The last guard of "never a stack trace": a SQLite or file-system error
 * that escaped `effect` as a defect fails it as a `StoreUnavailable`
 * instead. Other defects (real bugs) stay defects.
 */
export const storageDefectsAsErrors = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
  Effect.catchSomeDefect(effect, (d) =>
    isStorageError(d)
      ? Option.some(Effect.zipRight(settleWriteFailure(d), Effect.flatMap(errors, ({ StoreUnavailable }) => Effect.fail(storageDefect(StoreUnavailable, d)))))
      : Option.none())
