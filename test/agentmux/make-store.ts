/**
 * Generate the test fixture's AgentMux store: `npx tsx test/agentmux/make-store.ts OUT.db [--wal]`.
 * Then: `npx tsx src/cli/main.ts discover agentmux --agent u1 --store OUT.db --state /tmp/state.db`.
 */
import * as fs from "node:fs"
import { storeFiles } from "./fixture.js"
import { createStore } from "./store-helper.js"

const out = process.argv[2]
if (out === undefined) {
  process.stderr.write("usage: make-store.ts OUT.db [--wal]\n")
  process.exit(2)
}
fs.rmSync(out, { force: true })
createStore(out, storeFiles(), { wal: process.argv.includes("--wal") })
process.stdout.write(`${out}\n`)
