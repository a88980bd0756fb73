/**
 * Generate an AgentMux home with channels' own stores (issue 18):
 * `npx tsx test/agentmux/make-home.ts OUT_DIR` (OUT_DIR must not exist).
 * Then: `npx tsx src/cli/main.ts discover agentmux --agent u1 --agentmux-root OUT_DIR --state /tmp/state.db`.
 */
import * as fs from "node:fs"
import { makeHome } from "./home-fixture.js"

const out = process.argv[2]
if (out === undefined || fs.existsSync(out)) {
  process.stderr.write("usage: make-home.ts OUT_DIR (a folder that does not exist yet)\n")
  process.exit(2)
}
fs.mkdirSync(out, { recursive: true })
const home = makeHome(out)
process.stdout.write(`${home.root}\n`)
