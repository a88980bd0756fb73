/**
 * The entry of a parse worker thread (see `./parse-pool.ts`): it builds the
 * library's providers under the run's access policy and import limits (its
 * `workerData`), on the Node filesystem, and answers each `ParseRequest`
 * with {@link parseWhole}: the events' heads and the rows the SQLite writer
 * would compute of them (`preparedRowOf`). Nothing here writes.
 *
 * @module
 */
import { workerData } from "node:worker_threads"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeWorkerRunner from "@effect/platform-node/NodeWorkerRunner"
import * as WorkerRunner from "@effect/platform/WorkerRunner"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SessionSources } from "../../services/SessionSource.js"
import { SourceAccess } from "../../services/SourceAccess.js"
import * as App from "../app.js"
import { type ParseRequest, type ParseWorkerConfig, ShapeTable, StringTable } from "./parse-pool.js"
import { parseWhole } from "./parse-worker-work.js"

const config = workerData as ParseWorkerConfig

const Handler = Layer.unwrapEffect(Effect.gen(function*() {
  const registry = yield* SessionSources
  const access = yield* SourceAccess
  return WorkerRunner.layer((request: ParseRequest) =>
    Effect.suspend(() => {
      // One shape table and one word table for the request's answers: its message holds each shape and word once.
      const shapes = new ShapeTable()
      const words = new StringTable()
      return Effect.forEach(request.sources, (source) => parseWhole(registry, access, { ...source, batchSize: request.batchSize }, shapes, words))
    })
  )
}))

Handler.pipe(
  Layer.provide(NodeWorkerRunner.layer),
  Layer.provide(App.layer(config.policy, config.limits)),
  WorkerRunner.launch,
  NodeRuntime.runMain
)
