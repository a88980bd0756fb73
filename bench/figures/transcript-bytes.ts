/**
 * Figure (i-bytes-transcript), issue 13 item 2 ("the record shrinks"), for a
 * provider other than the native root of (i-bytes): the bench's Muse agents
 * transcript (`generate/agents.ts`: messages, thinking, tool calls with their
 * JSON arguments and outputs) imported once into a fresh index; the index
 * file's bytes per byte of the transcript. Information: the issue's <= 1.5 is
 * checked on its bench corpus, (i-bytes). The import's wall time is in the
 * note (information).
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { RunResult } from "../lib/measure.js"

/** What run.ts hands this figure. */
export interface TranscriptBytesContext {
  readonly tmp: string
  readonly agentsRoot: string
  readonly transcript: string
  readonly cli: (args: ReadonlyArray<string>) => Promise<RunResult>
  readonly check: (what: string, r: RunResult, ok?: ReadonlyArray<number>) => RunResult
  readonly add: (f: any) => void
  readonly log: (s: string) => void
  readonly rssMiB: (xs: ReadonlyArray<RunResult>) => number | null
}

export const transcriptBytesFigure = async (c: TranscriptBytesContext): Promise<void> => {
  const index = nodePath.join(c.tmp, "i-transcript.db")
  fs.rmSync(index, { force: true })
  const r = c.check("import of the transcript", await c.cli(["import", "--index", index, "--agents-root", c.agentsRoot, "--json"]), [0, 8])
  const bytes = fs.statSync(index).size
  const source = fs.statSync(c.transcript).size
  fs.rmSync(index, { force: true })
  c.log(`i-bytes-transcript: ${(bytes / 1e6).toFixed(1)} MB index for ${(source / 1e6).toFixed(1)} MB, import ${r.ms.toFixed(0)} ms`)
  c.add({
    id: "i-bytes-transcript",
    figure: "(i-bytes-transcript) index bytes per source byte, first import of the bench's Muse agents transcript",
    measured: bytes / source,
    unit: "x",
    floor: 1,
    floorWhat: "the transcript's bytes",
    ratio: bytes / source,
    target: "information (issue 13 item 2's <= 1.5 is checked on the native corpus: i-bytes)",
    pass: null,
    peakRssMiB: c.rssMiB([r]),
    floorPeakRssMiB: null,
    samples: { measured: [bytes], floor: [source] },
    note: `${(bytes / 1e6).toFixed(1)} MB index for a ${(source / 1e6).toFixed(1)} MB transcript; the import took ${r.ms.toFixed(0)} ms (one run)`
  })
}
