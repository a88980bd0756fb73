/**
 * `npm run demo`: the main job on the bundled examples, as an Effect program
 * that embeds the library's layers.
 *
 * 1. Lays out a temporary workspace: the bundled Muse Code exports, a Muse
 *    Code sessions root whose log names that workspace as its evidence, the
 *    bundled Muse agents root and AgentMux store (read in place, read-only).
 * 2. Imports every provider into a temporary index and prints the coverage report.
 * 3. Imports again: everything unchanged, nothing added.
 * 4. Lists the sessions, shows one conversation and one ATIF export.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { toAtif } from "../src/domain/atif.js"
import { isIngestError } from "../src/domain/errors.js"
import { counted, humanTime, renderTranscriptText, visibleControls } from "../src/domain/render.js"
import * as App from "../src/layers/app.js"
import * as ImporterLayer from "../src/layers/index/importer.js"
import { loadSession, loadTrajectory, sessionTranscript } from "../src/layers/index/queries.js"
import * as IndexSqlite from "../src/layers/index/sqlite.js"
import type { AccessPolicyShape } from "../src/services/AccessPolicy.js"
import { Index } from "../src/services/Index.js"
import { ImportFaults, Importer, ImportProgress, type ImportReport } from "../src/services/Importer.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const fixtures = path.join(root, "fixtures")
const rel = (p: string) => (p.startsWith(root) ? path.relative(root, p) : p)

/** A scratch workspace with a Muse Code sessions root whose log's evidence names it. */
const layOut = () => {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "session-ingest-demo-")))
  const workspace = path.join(tmp, "workspace")
  fs.mkdirSync(workspace)
  for (const f of ["orderly.json", "abnormal.json"]) {
    fs.copyFileSync(path.join(fixtures, "muse-code/export", f), path.join(workspace, f))
  }
  const day = "2026/09/25/22222222-2222-4222-8222-222222222222"
  const from = path.join(fixtures, "muse-code/native", day)
  const to = path.join(tmp, "muse-sessions", day)
  fs.cpSync(from, to, { recursive: true })
  const log = path.join(to, "session.jsonl")
  fs.writeFileSync(log, fs.readFileSync(log, "utf8").replaceAll("/workspace/demo", workspace))
  return { tmp, workspace, museRoot: path.join(tmp, "muse-sessions") }
}

const summary = (r: ImportReport) =>
  [
    `  coverage ${r.coverage}: ${counted(r.sources.discovered, "source")}, ${r.sources.accepted} imported, ${r.sources.unchanged} unchanged, ${r.sources.rejected} rejected; +${counted(r.sessionsAdded, "session")}, +${counted(r.eventsAdded, "event")}`,
    ...r.providers.map((p) => `    ${p.provider.padEnd(12)} ${p.status.padEnd(12)} ${counted(p.sourceCount, "source")}${p.reasonCode !== null ? ` (${p.reasonCode})` : ""}`),
    ...r.remediations.map((l) => `    note: ${l.slice(0, 160)}`)
  ].join("\n")

const program = (index: string, plan: ReturnType<typeof ImporterLayer.planFromPolicy>) =>
  Effect.gen(function*() {
    const importer = yield* Importer
    console.log(`1. import into ${index}`)
    console.log(summary(yield* importer.run(plan)))
    console.log("\n2. import again (an unchanged source costs a stat)")
    console.log(summary(yield* importer.run(plan)))

    const sessions = yield* Effect.flatMap(Index, (i) => i.sessions({}))
    console.log(`\n3. sessions (${sessions.length}), latest activity first`)
    for (const s of sessions) {
      console.log(
        visibleControls(`  ${s.lastAt === null ? "-".padEnd(20) : humanTime(s.lastAt, { seconds: true })}  ${s.provider.padEnd(11)} ${String(s.eventCount).padStart(3)} ${(s.eventCount === 1 ? "event" : "events").padEnd(6)}  ${s.sessionId.padEnd(36)}  ${(s.title ?? s.workspace ?? "").slice(0, 50)}`)
      )
    }

    const conversation = sessions
      .filter((s) => s.provider === "muse-agents")
      .reduce((a, b) => (b.eventCount > a.eventCount ? b : a), sessions[0])
    const { events, session } = yield* loadSession(conversation.sessionUid)
    const transcript = renderTranscriptText(sessionTranscript({ session, events }))
    console.log(`\n4. show ${session.sessionId} --format transcript (first lines)`)
    console.log(transcript.split("\n").slice(0, 14).map((l) => `  ${l.slice(0, 120)}`).join("\n"))

    const parent = sessions.find((s) => s.sessionId === "22222222-2222-4222-8222-222222222222")
    if (parent !== undefined) {
      const atif = toAtif(yield* loadTrajectory(parent.sessionUid))
      console.log(`\n5. export ${parent.sessionId} --format atif`)
      console.log(
        `  ${atif.schema_version}: agent ${atif.agent.name}, ${counted(atif.steps.length, "step")}, ${counted(atif.subagent_trajectories?.length ?? 0, "subagent trajectory", "subagent trajectories")}`
      )
    }
  })

const { museRoot, tmp, workspace } = layOut()
const policy: AccessPolicyShape = {
  workspaceRoots: [workspace],
  museRoots: [museRoot],
  agentsRoot: path.join(fixtures, "muse-agents/agents"),
  agentmuxStore: path.join(fixtures, "agentmux/filestore.db"),
  stateFile: path.join(tmp, "state.db"),
  claudeRoot: path.join(fixtures, "claude-code/projects")
}
const plan = ImporterLayer.planFromPolicy(policy, {
  agents: ["u1"],
  exports: [path.join(workspace, "orderly.json"), path.join(workspace, "abnormal.json")]
})
const index = path.join(tmp, "index.db")
console.log("session-ingest demo")
console.log(`  workspace ${workspace}`)
console.log(`  sources: ${rel(policy.agentsRoot!)} (muse-agents), ${rel(policy.agentmuxStore!)} agent u1 (agentmux),`)
console.log(`           ${rel(policy.claudeRoot!)} (claude-code), ${museRoot} and 2 exports (muse-code)\n`)

const layer = ImporterLayer.layer.pipe(
  Layer.provideMerge(Layer.mergeAll(App.layer(policy), IndexSqlite.layer(index), ImportFaults.none, ImportProgress.silent))
)
Effect.runPromise(program(index, plan).pipe(Effect.provide(layer)))
  .then(() => {
    console.log(`\nTry the CLI on the same index: ./bin/session-ingest.mjs sessions --index ${index}`)
  })
  .catch((e) => {
    console.error(isIngestError(e) ? `${e.code}: ${e.message}` : e)
    process.exit(1)
  })
