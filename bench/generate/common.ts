/**
 * Shared pieces of the benchmark input generators: a seeded PRNG, a pool of
 * realistic text (prose, code, shell output, JSON-escaped characters, some
 * non-ASCII), and a buffered append-only file writer.
 */
import * as fs from "node:fs"
import { mulberry32 } from "../../test/support/prng.js"

/** A seeded PRNG (mulberry32), so every run generates the same bytes; `int(lo, hi)` is inclusive. */
export const prng = (seed: number) => {
  const next = mulberry32(seed)
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(next() * xs.length)]
  }
}

const WORDS = (
  "the a to of and in is it that for on with as this be are run test file build error fix update function " +
  "return const let value type module import export async await promise stream chunk line buffer parse json " +
  "session agent tool call result output input workspace cursor index source event record schema layer effect " +
  "naïve café déjà 日本語 über straße ✓ → …"
).split(" ")

const CODE = [
  "const x = await fetch(url, { method: \"POST\", body: JSON.stringify(payload) })",
  "if (err !== undefined) return yield* Effect.fail(new MalformedSource({ message }))",
  "for (let i = 0; i < lines.length; i++) { total += lines[i].length }",
  "export const parse = (s: string): Either<Value, Error> => JSON.parse(s)",
  "\tat Object.<anonymous> (/home/dev/app/src/index.ts:42:13)",
  "diff --git a/src/app.ts b/src/app.ts\n@@ -1,4 +1,6 @@\n-import x from \"y\"\n+import { x } from \"y\"",
  "PASS  test/app.test.ts (12 tests) 341ms",
  "drwxr-xr-x  5 dev dev  4096 Sep 25 12:00 src\n-rw-r--r--  1 dev dev 1823 Sep 25 12:00 package.json"
]

/** Random text of about `len` characters: words, code lines, newlines, quotes, tabs, backslashes. */
export const makeText = (r: ReturnType<typeof prng>, len: number): string => {
  const parts: Array<string> = []
  let n = 0
  while (n < len) {
    const roll = r.next()
    const s = roll < 0.08 ? r.pick(CODE) : roll < 0.12 ? "\n" : roll < 0.13 ? "\"quoted\" \\path\\to" : r.pick(WORDS)
    parts.push(s)
    n += s.length + 1
  }
  return parts.join(" ").slice(0, len)
}

/** A pool of `count` texts with lengths drawn from [lo, hi]; picked by index while generating (fast). */
export const textPool = (seed: number, count: number, lo: number, hi: number): ReadonlyArray<string> => {
  const r = prng(seed)
  return Array.from({ length: count }, () => makeText(r, r.int(lo, hi)))
}

/** An append-only writer that batches strings into large writes. Tracks bytes written. */
export class Writer {
  private readonly fd: number
  private parts: Array<string> = []
  private pending = 0
  bytes = 0
  constructor(path: string, flags = "w", private readonly batch = 8 * 1024 * 1024) {
    this.fd = fs.openSync(path, flags)
  }
  /** Append one line (a newline is added). Answers its byte length including the newline. */
  line(s: string): number {
    const n = Buffer.byteLength(s, "utf8") + 1
    this.parts.push(s, "\n")
    this.pending += n
    this.bytes += n
    if (this.pending >= this.batch) this.flush()
    return n
  }
  flush(): void {
    if (this.parts.length === 0) return
    fs.writeSync(this.fd, this.parts.join(""))
    this.parts = []
    this.pending = 0
  }
  close(): void {
    this.flush()
    fs.closeSync(this.fd)
  }
}

/** A deterministic UUID-shaped id from a number (version-4 and variant nibbles set). */
export const uuidOf = (n: number, tag = 0): string => {
  const h = (n >>> 0).toString(16).padStart(8, "0")
  const t = (tag >>> 0).toString(16).padStart(12, "0")
  return `${h}-${h.slice(0, 4)}-4${h.slice(4, 7)}-8${h.slice(1, 4)}-${t}`
}
