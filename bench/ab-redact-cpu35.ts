/**
 * Processor time of the default redaction over the redact figure's input (session 35, dev35c: the continuation view
 * before/after), without the figure's parse and wall-clock noise. Usage:
 *   npx tsx bench/ab-redact-cpu35.ts SRC_ROOT FILE
 * SRC_ROOT: a checkout whose `src/` is measured (two checkouts: before and after); FILE: the figure's transcript
 * (`writeAgentsTranscript` of bench/generate/agents.ts, 200,000 lines, as bench/run.ts writes it). Prints the summed
 * processor time (user + system) of `defaultRedaction.value` over every record, in ms, and the records it changed.
 */
import * as fs from "node:fs"

const main = async () => {
  const [root, file] = process.argv.slice(2)
  if (root === undefined || file === undefined) {
    process.stderr.write("usage: ab-redact-cpu35.ts SRC_ROOT FILE\n")
    process.exit(2)
  }
  const { defaultRedaction } = await import(`${root}/src/services/Redaction.js`)
  let cpu = 0
  let changed = 0
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.length === 0) continue
    const v: unknown = JSON.parse(line)
    const t = process.cpuUsage()
    if (defaultRedaction.value(v) !== v) changed++
    const d = process.cpuUsage(t)
    cpu += d.user + d.system
  }
  console.log(JSON.stringify({ cpuMs: Math.round(cpu / 1000), changed }))
}
void main()
