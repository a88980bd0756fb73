/**
 * The row an information figure in milliseconds (no target: `pass` null)
 * hands to the bench's runner (`add` in `../run.ts`): what figures (m),
 * (a-small) and (d) share.
 */

/** One information row: measured and floor in ms, their ratio, peak RSS (MiB) of each side where measured, the samples. */
export interface InfoMsRow {
  readonly id: string
  readonly figure: string
  readonly measured: number
  readonly unit: "ms"
  readonly floor: number
  readonly floorWhat: string
  readonly ratio: number
  readonly target: string
  readonly pass: null
  readonly peakRssMiB: number | null
  readonly floorPeakRssMiB: number | null
  readonly samples: { readonly measured: ReadonlyArray<number>; readonly floor: ReadonlyArray<number> }
  readonly note: string
}

/** The runner's `add`, for such a row. */
export type AddInfoMsRow = (row: InfoMsRow) => void
