/**
 * Session 28 (tester28a F6): a `usage --json` row whose cost is unknown because a response's prompt is over 200k
 * tokens and its model has no long-context rates said `costUsd: null, unpriced: []`: nothing on the row said why.
 * Now such a row carries `longContextUnpriced: [{model, responses}]` (as the session summary does), and a row
 * without such responses has no such field. claude-opus-4-6 is priced in the bundled table without long-context
 * rates (docs/usage-and-cost.md), claude-sonnet-4-5 at 1,000 in / 10 out is $0.003 + $0.00015 = $0.00315.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const SID = "5d5d5d5d-1111-4222-8333-444444444444"
const CWD = "/home/dev/lcr"
const assistant = (n: number, model: string, usage: Record<string, unknown>) => ({
  type: "assistant", sessionId: SID, uuid: `a${n}`, parentUuid: "u0", timestamp: `2026-11-04T10:00:0${n}.000Z`, cwd: CWD, requestId: `req_${n}`,
  message: { id: `msg_${n}`, type: "message", role: "assistant", model, content: [{ type: "text", text: "x" }], usage }
})

describe("usage --json: a row's unknown long-context cost is said on the row", () => {
  it("the opus row names its response over 200k tokens; the sonnet row has no such field", () => {
    const dir = tempDir("si-lc-row-")
    const root = path.join(dir, "projects")
    const folder = path.join(root, "-home-dev-lcr")
    fs.mkdirSync(folder, { recursive: true })
    const lines = [
      { type: "user", sessionId: SID, uuid: "u0", parentUuid: null, timestamp: "2026-11-04T10:00:00.000Z", cwd: CWD, message: { role: "user", content: "go" } },
      assistant(1, "claude-opus-4-6", { input_tokens: 250_000, output_tokens: 1 }),
      assistant(2, "claude-sonnet-4-5", { input_tokens: 1_000, output_tokens: 10 })
    ]
    fs.writeFileSync(path.join(folder, `${SID}.jsonl`), lines.map((l) => JSON.stringify(l) + "\n").join(""))
    const index = path.join(dir, "index.db")
    const imp = cli(["import", "--index", index, "--claude-root", root])
    expect(imp.code, imp.stderr).toBe(0)
    const u = cli(["usage", "--by", "model", "--index", index, "--json"])
    expect(u.code, u.stderr).toBe(0)
    const rows = JSON.parse(u.stdout).data.rows as Array<Record<string, unknown>>
    const opus = rows.find((r) => r.key === "claude-opus-4-6")!
    const sonnet = rows.find((r) => r.key === "claude-sonnet-4-5")!
    expect([opus.costUsd, opus.unpriced, opus.longContextUnpriced]).toEqual([null, [], [{ model: "claude-opus-4-6", responses: 1 }]])
    expect([sonnet.costUsd, sonnet.unpriced, "longContextUnpriced" in sonnet]).toEqual([0.00315, [], false])
  })
})
