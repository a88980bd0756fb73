/**
 * Test helpers for native Muse Code logs: line builders of the three shapes
 * (seed 001, "Native log root"), a generator of sessions roots in a temp dir,
 * and the adapter under test layers.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SourceNotAuthorized } from "../../src/domain/errors.js"
import { sha256Hex } from "../../src/domain/source-id.js"
import * as MuseCode from "../../src/layers/muse-code/adapter.js"
import { sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import { AccessPolicy, type AccessPolicyShape } from "../../src/services/AccessPolicy.js"
import { DiscoveryBudget, type DiscoveryBudgetShape } from "../../src/services/DiscoveryBudget.js"
import { ImportLimits, type ImportLimitsShape } from "../../src/services/ImportLimits.js"
import type { SessionSourceAdapter } from "../../src/services/SessionSource.js"
import { SourceAccess, type SourceAccessShape } from "../../src/services/SourceAccess.js"

export * from "./native-lines.js"

/** A fresh temp folder (real path), removed at exit: the shared helper. */
export { tempDir } from "../support/paths.js"

/** Write `<root>/<rel>` (folders created). Answers the path. */
export const writeFile = (root: string, rel: string, text: string | Buffer): string => {
  const p = nodePath.join(root, rel)
  fs.mkdirSync(nodePath.dirname(p), { recursive: true })
  fs.writeFileSync(p, text)
  return p
}

/** Write a session log at `<root>/<date>/<id>/session.jsonl`. */
export const writeLog = (root: string, date: string, id: string, text: string | Buffer): string =>
  writeFile(root, `${date}/${id}/session.jsonl`, text)

/** sha256 of a file's bytes. */
export const fileHash = (p: string): string => sha256Hex(fs.readFileSync(p))

/** Reads done through a recording access layer: [path, offset, length]. */
export type ReadLog = Array<readonly [string, number, number]>

/**
 * A SourceAccess test layer over the Node one: records every read (of an open
 * file and of a head), and fails `open` and `readHead` (as unreadable) for
 * paths that contain `unreadableMarker`.
 */
export const recordingAccess = (reads: ReadLog, unreadableMarker?: string): SourceAccessShape => ({
  ...sourceAccessNode,
  readHead: (file, length) =>
    unreadableMarker !== undefined && file.path.includes(unreadableMarker)
      ? Effect.fail(new SourceNotAuthorized({ message: `${file.path} is not readable (test layer).` }))
      : Effect.suspend(() => {
        reads.push([file.path, 0, length])
        return sourceAccessNode.readHead(file, length)
      }),
  open: (file) =>
    unreadableMarker !== undefined && file.path.includes(unreadableMarker)
      ? Effect.fail(new SourceNotAuthorized({ message: `${file.path} is not readable (test layer).` }))
      : Effect.map(sourceAccessNode.open(file), (o) => ({
        ...o,
        read: (offset: number, length: number) => {
          reads.push([file.path, offset, length])
          return o.read(offset, length)
        }
      }))
})

/** The services of the adapter under test. */
export const testLayer = (opts: {
  readonly policy: Partial<AccessPolicyShape>
  readonly budget?: Partial<DiscoveryBudgetShape> | undefined
  readonly limits?: Partial<ImportLimitsShape> | undefined
  readonly access?: SourceAccessShape | undefined
}) =>
  Layer.mergeAll(
    AccessPolicy.layer(opts.policy),
    ImportLimits.layer(opts.limits ?? {}),
    Layer.succeed(SourceAccess, opts.access ?? sourceAccessNode),
    ...(opts.budget !== undefined ? [DiscoveryBudget.layer(opts.budget)] : [])
  )

/** The muse-code adapter built under {@link testLayer}. */
export const adapterWith = (opts: Parameters<typeof testLayer>[0]): Effect.Effect<SessionSourceAdapter> =>
  MuseCode.make.pipe(Effect.provide(testLayer(opts)))
