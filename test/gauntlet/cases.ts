/**
 * The gauntlet's cases (issue 7, "The gauntlet"): the ways real agent logs
 * break, one id each, and the raw material every provider's table builds its
 * inputs from. Each provider table (`*.table.ts`) must cover every id; where
 * a case does not apply to a format, its entry tests the closest meaningful
 * variant and says so in its name.
 *
 * @module
 */
import * as fs from "node:fs"

/** Every case of the list, in its order. */
export const CASES = [
  ["empty", "empty file"],
  ["bom-only", "a file of only a BOM"],
  ["crlf", "CRLF line ends"],
  ["cut-at-eof", "a line cut mid-write at EOF"],
  ["torn-continued", "a line torn, then continued by the next append on the same physical line"],
  ["multibyte-split", "a multibyte character split at a read boundary"],
  ["control-nul", "raw control characters and NUL bytes inside a line"],
  ["u2028", "U+2028/U+2029 inside strings"],
  ["lone-surrogate", "a lone-surrogate escape"],
  ["non-object-lines", "null, an array and a number as lines"],
  ["duplicate-keys", "duplicate keys"],
  ["big-ids", "numbers beyond 2^53 as ids"],
  ["nested-100", "a 100-level nested record"],
  ["line-64mib", "a single 64 MiB line"],
  ["ts-no-zone", "a timestamp without timezone"],
  ["ts-seconds", "a timestamp in epoch seconds"],
  ["ts-millis", "a timestamp in epoch milliseconds"],
  ["ts-micros", "a timestamp in epoch microseconds"],
  ["ts-year-10000", "a timestamp in the year 10000"],
  ["symlink-loop", "a symlink loop under a root"],
  ["root-is-file", "a root that is a file"],
  ["grows-while-streamed", "a file that grows while it is streamed"],
  ["replaced-while-streamed", "a file that is replaced while it is streamed"],
  ["sqlite-locked", "a SQLite store locked by a writer"],
  ["sqlite-wal-writer", "a SQLite store in WAL mode with a writer appending"]
] as const

/** A case id. */
export type CaseId = (typeof CASES)[number][0]

/** The title of a case. */
export const titleOf = (id: CaseId): string => CASES.find(([c]) => c === id)![1]

// ---------------------------------------------------------------------------
// Raw material

/** The UTF-8 byte order mark. */
export const BOM = Buffer.from([0xef, 0xbb, 0xbf])

/** 1 MiB (the default read step of `readLines`, src/layers/jsonl/lines.ts, is 256 KiB). */
export const MIB = 1024 * 1024

/** 64 KiB: an AgentMux store part (`partidx = offset / 65536`). */
export const PART = 65_536

/** A 4-byte UTF-8 character (U+1F600), the one split at read boundaries. */
export const EMOJI = "\u{1F600}"

/** Raw control characters and a NUL, to be put inside a JSON string (invalid JSON: RFC 8259 §7). */
export const CONTROL = "a\u0000b\u0001c\u001bd\u007f"

/** A string with raw U+2028 and U+2029 (valid JSON, and a JS line terminator pair). */
export const SEPARATORS = "one\u2028two\u2029three"

/** JSON text of a string holding a lone high surrogate, as an escape (`"x\ud800y"`): valid JSON. */
export const LONE_SURROGATE_JSON = "\"x\\ud800y\""
/** The string that escape denotes. */
export const LONE_SURROGATE = "x\ud800y"

/** 2^53 + 1: not representable as a double (JSON.parse reads it as 2^53). */
export const BIG_ID = "9007199254740993"

/** A JSON value nested `levels` deep (objects), e.g. 100 → `{"n":{"n":…{"n":0}…}}`. */
export const nested = (levels: number): string => "{\"n\":".repeat(levels) + "0" + "}".repeat(levels)

/** One instant in the four epoch units (2026-09-25T13:13:33.894901Z). */
export const EPOCH = {
  seconds: 1_790_349_213,
  millis: 1_790_349_213_894,
  micros: 1_790_349_213_894_901
} as const

/** The RFC 3339 UTC forms the product must emit for {@link EPOCH} (DESIGN.md: sub-ms digits kept). */
export const EPOCH_ISO = {
  seconds: new Date(EPOCH.seconds * 1000).toISOString(),
  millis: new Date(EPOCH.millis).toISOString(),
  micros: new Date(EPOCH.millis).toISOString().replace(/\.\d{3}Z$/, ".894901Z")
} as const

/** A local time without a zone (not a usable timestamp: the zone would be a guess). */
export const NO_ZONE = "2026-09-25T13:13:33"

/** The year 10000 in RFC 3339 form, and as epoch microseconds (past 9999-12-31, out of range). */
export const YEAR_10000 = "10000-01-01T00:00:00Z"
export const YEAR_10000_MICROS = 253_402_300_800_000_000

/** Bytes of the 64 MiB line case. */
export const BIG_LINE_BYTES = 64 * MIB

/**
 * Write `head`, then one line of `prefix` + filler + `suffix` that is
 * {@link BIG_LINE_BYTES} long without its `\n`, then `tail`, to `path`, a
 * MiB at a time (the test process never holds the line).
 */
export const writeBigLineFile = (
  path: string,
  parts: { readonly head: string | Buffer; readonly prefix: string; readonly suffix: string; readonly tail: string | Buffer }
): void => {
  const fd = fs.openSync(path, "w")
  try {
    fs.writeSync(fd, typeof parts.head === "string" ? Buffer.from(parts.head) : parts.head)
    const prefix = Buffer.from(parts.prefix)
    const suffix = Buffer.from(parts.suffix)
    fs.writeSync(fd, prefix)
    let left = BIG_LINE_BYTES - prefix.length - suffix.length
    const chunk = Buffer.alloc(MIB, "x")
    while (left > 0) {
      const n = Math.min(left, chunk.length)
      fs.writeSync(fd, chunk, 0, n)
      left -= n
    }
    fs.writeSync(fd, suffix)
    fs.writeSync(fd, Buffer.from("\n"))
    fs.writeSync(fd, typeof parts.tail === "string" ? Buffer.from(parts.tail) : parts.tail)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Padding so that a line starting at byte `lineStart`, whose text begins with
 * `before` (bytes), puts the first byte of {@link EMOJI} at `boundary - split`:
 * the character is cut `split` bytes before the boundary (1..3).
 */
export const padToSplit = (lineStart: number, before: number, boundary: number, split: 1 | 2 | 3): string => {
  const n = boundary - split - lineStart - before
  if (n < 0) throw new Error("line starts past the boundary")
  return "p".repeat(n)
}

/** JSONL text: each value JSON-encoded (strings taken as raw lines) and `\n`-terminated. */
export const jsonl = (values: ReadonlyArray<unknown>): string =>
  values.map((v) => (typeof v === "string" ? v : JSON.stringify(v)) + "\n").join("")

/** Cut `bytes` into pieces at the given offsets (ascending), e.g. to append a line in torn writes. */
export const cutAt = (bytes: Buffer, offsets: ReadonlyArray<number>): Array<Buffer> => {
  const out: Array<Buffer> = []
  let from = 0
  for (const o of offsets) {
    out.push(bytes.subarray(from, o))
    from = o
  }
  out.push(bytes.subarray(from))
  return out
}
