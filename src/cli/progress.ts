/**
 * The import progress display: a `cli-progress` bar on stderr when stderr is
 * a terminal, nothing otherwise. The bar is weighted by bytes (issue 13,
 * item 7): it fills as the run reads through its sources' bytes (the
 * importer weighs each source by its size), so one big source moves it as it
 * is read instead of holding it at 0% until it is done; beside it, sources
 * done / total, events, and MiB read of the total.
 *
 * @module
 */
import cliProgress from "cli-progress"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ImportProgress, type ImportProgressShape, type ImportProgressUpdate } from "../services/Importer.js"

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`

/** The bar's units: bytes when the run weighed its sources (and they weigh anything), else sources. */
const position = (p: ImportProgressUpdate): { readonly value: number; readonly total: number } =>
  p.bytesTotal > 0 ? { value: Math.min(p.bytesDone, p.bytesTotal), total: p.bytesTotal } : { value: p.sourcesDone, total: p.totalSources }

const payload = (p: Pick<ImportProgressUpdate, "sourcesDone" | "totalSources" | "events" | "bytesDone" | "bytesTotal">) => ({
  sources: `${p.sourcesDone}/${p.totalSources}`,
  events: p.events,
  read: p.bytesTotal > 0 ? `${mib(p.bytesDone)} of ${mib(p.bytesTotal)}` : ""
})

/**
 * A byte-weighted progress bar on `stream`, drawn only when `stream` is a
 * terminal (`isTTY`: `cli-progress` draws nothing on anything else).
 * Exported for tests, which hand it a stand-in terminal.
 */
export const bar = (stream: NodeJS.WritableStream): ImportProgressShape => {
  const b = new cliProgress.SingleBar(
    {
      stream,
      format: "importing [{bar}] {percentage}% | {sources} sources | {events} events | {read}",
      hideCursor: true,
      clearOnComplete: true
    },
    cliProgress.Presets.shades_classic
  )
  let total = 0
  return {
    weighsBytes: true,
    start: (totalSources, bytesTotal = 0) =>
      Effect.sync(() => {
        total = bytesTotal > 0 ? bytesTotal : totalSources
        b.start(total, 0, payload({ sourcesDone: 0, totalSources, events: 0, bytesDone: 0, bytesTotal }))
      }),
    update: (p) =>
      Effect.sync(() => {
        const at = position(p)
        if (at.total !== total) b.setTotal((total = at.total))
        b.update(at.value, payload(p))
      }),
    end: Effect.sync(() => b.stop())
  }
}

/** Layer: a progress bar on stderr when it is a terminal, silence elsewhere. */
export const layer: Layer.Layer<ImportProgress> = process.stderr.isTTY
  ? Layer.sync(ImportProgress, () => bar(process.stderr))
  : ImportProgress.silent
