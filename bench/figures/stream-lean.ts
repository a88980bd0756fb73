/**
 * Figures (a-native-lean, a-transcript-lean): `stream --lean` (issue 13, item
 * 3: the lean stream the issue allows, contract lean-1) over the same inputs
 * and against the same floor as (a): the whole CLI process, stdout to
 * /dev/null, throughput = input bytes / wall time. Called from `bench/run.ts`
 * (`BENCH_ONLY=a`) with (a)'s own measuring function, so both rows are made
 * alike.
 */

/** (a)'s measuring function in `bench/run.ts`: id, name, input file, CLI arguments, target. */
export type StreamFigure = (
  id: string,
  name: string,
  file: string,
  args: ReadonlyArray<string>,
  target: { ratio: number; rssMiB?: number }
) => Promise<void>

/** One (a) row's input: its id, name, file and the `stream` arguments it was measured with. */
export interface StreamInput {
  readonly id: string
  readonly name: string
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly rssMiB?: number
}

/** Measure `<id>-lean`: the same `stream` with `--lean`, target ≥ 0.55 of the floor (the for `stream`). */
export const leanStreamFigures = async (streamFigure: StreamFigure, inputs: ReadonlyArray<StreamInput>): Promise<void> => {
  for (const i of inputs) {
    await streamFigure(`${i.id}-lean`, `${i.name}, --lean`, i.file, [...i.args, "--lean"], {
      ratio: 0.55,
      ...(i.rssMiB !== undefined ? { rssMiB: i.rssMiB } : {})
    })
  }
}
