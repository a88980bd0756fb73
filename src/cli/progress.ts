/**
 * The import progress display: a `cli-progress` bar on stderr when stderr is
 * a terminal (sources done / total, events, bytes); nothing otherwise.
 *
 * @module
 */
import cliProgress from "cli-progress"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ImportProgress } from "../services/Importer.js"

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`

/** Layer: a progress bar on a terminal, silence elsewhere. */
export const layer: Layer.Layer<ImportProgress> = process.stderr.isTTY
  ? Layer.sync(ImportProgress, () => {
    const bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: "importing [{bar}] {value}/{total} sources | {events} events | {bytes}",
        hideCursor: true,
        clearOnComplete: true
      },
      cliProgress.Presets.shades_classic
    )
    return {
      start: (total) => Effect.sync(() => bar.start(total, 0, { events: 0, bytes: mib(0) })),
      update: (p) => Effect.sync(() => bar.update(p.sourcesDone, { events: p.events, bytes: mib(p.bytes) })),
      end: Effect.sync(() => bar.stop())
    }
  })
  : ImportProgress.silent
