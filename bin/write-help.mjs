// Writes the cached help (help-cache.mjs) to stdout as the bundle's one stdout
// path does (src/cli/output.ts, writeStdout): to a file or a device, a write at
// a time with each write's count and errno checked, so that a full disk or the
// file-size limit (`ulimit -f`) ends in OUTPUT_WRITE_FAILED (exit 7), never in a
// help cut short with exit 0 nor in a stack trace. A pipe or terminal is
// process.stdout's (a reader gone away, EPIPE, is a quiet end).
import { fstatSync, writeSync } from "node:fs"

const problemOf = (code) =>
  code === "EFBIG"
    ? ["the file-size limit was reached", "Raise the file-size limit (`ulimit -f`) or redirect stdout to a file it allows, then run the same command again."]
    : code === "ENOSPC" || code === "EDQUOT"
    ? ["the disk is full", "Free space on the disk stdout is redirected to (or redirect it elsewhere), then run the same command again."]
    : ["the write failed", "Redirect stdout to a file or pipe that can be written, then run the same command again."]

/** Write `text` to stdout; on a failed write, the OUTPUT_WRITE_FAILED lines on stderr and exit code 7. */
export const writeHelp = (text) => {
  let file = false
  try {
    const st = fstatSync(1)
    file = process.stdout.isTTY !== true && (st.isFile() || st.isCharacterDevice() || st.isBlockDevice())
  } catch {
    // left to process.stdout
  }
  if (!file) {
    process.stdout.on("error", () => {})
    process.stdout.write(text)
    return
  }
  const bytes = Buffer.from(text, "utf8")
  try {
    for (let at = 0; at < bytes.length;) at += writeSync(1, bytes, at)
  } catch (e) {
    const [problem, remedy] = problemOf(e.code)
    const detail = typeof e.message === "string" && e.message.includes(e.code) ? e.message : `${e.code}: ${e.message}`
    process.stderr.write(`session-ingest: OUTPUT_WRITE_FAILED: Cannot write to standard output: ${problem} (${detail}); the output is incomplete.\n  remedy: ${remedy}\n`)
    process.exitCode = 7
  }
}
