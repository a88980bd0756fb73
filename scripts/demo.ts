/**
 * `npm run demo`: the library at work on the bundled fixtures. An Effect
 * program that embeds session-ingest's layer, inspects each bundled source,
 * streams its normalized events, and prints a readable summary.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { isIngestError } from "../src/domain/errors.js"
import type { Locator, ProviderId, SessionEvent } from "../src/domain/model.js"
import * as App from "../src/layers/app.js"
import { SessionSources } from "../src/services/SessionSource.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const fixtures = path.join(root, "fixtures")

/** The bundled sources the demo reads, per provider. */
const sources: ReadonlyArray<{ provider: ProviderId; locator: Locator }> = [
  { provider: "muse-code", locator: { locatorClass: "manual-export", path: path.join(fixtures, "muse-code/export/orderly.json") } },
  { provider: "muse-code", locator: { locatorClass: "manual-export", path: path.join(fixtures, "muse-code/export/abnormal.json") } }
]

const pad = (s: string, n: number) => (s.length >= n ? s.slice(0, n - 1) + "…" : s.padEnd(n))
const row = (e: SessionEvent) =>
  `    ${String(e.sequence).padStart(3)}  ${pad(e.occurredAt ?? "-", 28)} ${pad(e.kind, 38)} ${e.toolName !== null ? `[${e.toolName}] ` : ""}${e.text ?? ""}`

const program = Effect.gen(function*() {
  const registry = yield* SessionSources
  console.log(`session-ingest demo: ${registry.descriptors.map((d) => d.provider).join(", ")}\n`)
  for (const { locator, provider } of sources) {
    const adapter = yield* registry.get(provider)
    const rel = path.relative(root, locator.path)
    const inspection = yield* adapter.inspect(locator)
    console.log(`${provider}  ${rel}`)
    console.log(
      `  status ${inspection.status}, ${inspection.eventCount} events, ${inspection.sessions.length} session(s), ${inspection.firstEventAt ?? "-"} → ${inspection.lastEventAt ?? "-"}`
    )
    for (const d of inspection.diagnostics) console.log(`  note: ${d.code}: ${d.message}`)
    const events = Chunk.toArray(yield* Stream.runCollect(adapter.stream(locator)))
    for (const e of events) console.log(row(e))
    if (events.length > 0) {
      const k = Math.floor(events.length / 2)
      const resumed = Chunk.toArray(yield* Stream.runCollect(adapter.stream(locator, { cursor: events[k].cursor })))
      console.log(`  resume from the cursor of event ${events[k].sequence}: ${resumed.length} event(s) after it`)
    }
    console.log("")
  }
  // A source the provider refuses: a typed error, never a stack trace.
  const refused = yield* Effect.flip(
    Effect.flatMap(registry.get("muse-code"), (a) => a.inspect({ locatorClass: "manual-export", path: path.join(root, "package.json") }))
  )
  console.log(`a file that is not an export: ${refused.code}: ${refused.message}`)
})

Effect.runPromise(program.pipe(Effect.provide(App.layer({ workspaceRoots: [root] })))).catch((e) => {
  console.error(isIngestError(e) ? `${e.code}: ${e.message}` : e)
  process.exit(1)
})
