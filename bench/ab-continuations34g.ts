/**
 * Processor time of the default redaction over a shell-heavy text (session 34, fix34g: values that run on over line
 * continuations, empty continuation lines, quoted NAME= values over a line break). Usage:
 *   npx tsx bench/ab-continuations34g.ts [MB]     prints the median of 5 runs' processor time (user + system) in ms
 * Run it on two checkouts' src (the same text each time) to compare.
 */
import { defaultRedaction } from "../src/services/Redaction.js"

const mb = Number(process.argv[2] ?? "2")
const block = [
  "docker run --rm \\\n  -e MODE=fast \\\n\\\n  -v data:/data \\\n  image:latest",
  "curl -H 'Authorization: Bearer abcdefghij\\\nklmnop0123456789' https://x \\\n  --retry 3",
  "mysql -pS3cr\\\netPass db && sshpass -p Pw9\\\nrest ssh host",
  "export API_KEY='Zx81kLmN0pQrS\ntUvW92yZaBcD3' && DB_PASSWORD=\"one two\" ./run",
  "export GITHUB_TOKEN=ghp_A1b2C3d4E5f6G7\\\n\\\nh8I9j0K1l2M3n4O5p6Q7r8 && gh auth status",
  "some prose with a quote ' and API_KEY='unbalanced\nmore prose\nand \"quotes\" here",
  "\\\n\\\n\\\nabc\\\ndef ghi"
].join("\n")
let text = ""
while (text.length < mb * 1e6) text += block + "\n"
const runs: Array<number> = []
let out = ""
for (let i = 0; i < 5; i++) {
  const t = process.cpuUsage()
  out = defaultRedaction.text(text)
  const d = process.cpuUsage(t)
  runs.push((d.user + d.system) / 1000)
}
runs.sort((a, b) => a - b)
console.log(JSON.stringify({ mb, medianCpuMs: Math.round(runs[2]), runs: runs.map(Math.round), outLength: out.length }))
