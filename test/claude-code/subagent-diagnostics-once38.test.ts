/**
 * A Claude Code session whose nested subagent files cannot be read (one a fifo, one a symlink): the import report
 * listed each diagnostic twice (discovery's, with the project and file, then the read's, with the agent only), and
 * its text named only `agent-<id>.jsonl`, not the session it belongs to (tester37 F4). Each is said once, naming the
 * file under the projects root (`<project>/<session-uuid>/subagents/agent-<id>.jsonl`), in text and `--json`.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { claudeEchoLog, claudeProject } from "../support/claude-import.js"
import { cli } from "../support/run.js"
import { tempDir } from "./helpers.js"

const SID = "31313131-0000-4000-8000-000000000038"

describe("subagent files that cannot be read: said once, naming their session (tester37 F4)", () => {
  it("import --json and text: one NOT_A_FILE and one SYMLINK_SKIPPED, each naming <project>/<session>/subagents/<file>", () => {
    const dir = tempDir("si-subagent-once38-")
    const project = claudeProject(dir)
    project.write(SID, claudeEchoLog(SID, ["hello"]))
    const subagents = nodePath.join(nodePath.dirname(project.file(SID)), SID, "subagents")
    fs.mkdirSync(subagents, { recursive: true })
    execFileSync("mkfifo", [nodePath.join(subagents, "agent-fifo.jsonl")])
    fs.writeFileSync(nodePath.join(dir, "elsewhere.jsonl"), "{}\n")
    fs.symlinkSync(nodePath.join(dir, "elsewhere.jsonl"), nodePath.join(subagents, "agent-link.jsonl"))
    const env = { XDG_CONFIG_HOME: nodePath.join(dir, "xdg"), XDG_DATA_HOME: nodePath.join(dir, "data") }
    const args = ["--claude-root", project.root, "--agents-root", nodePath.join(dir, "none")]
    const r = cli(["import", "--index", nodePath.join(dir, "i.db"), ...args, "--json"], { env })
    expect(r.code, r.stderr + r.stdout).toBe(8)
    const data = JSON.parse(r.stdout).data
    const diagnostics = data.providers.find((p: { provider: string }) => p.provider === "claude-code").diagnostics as Array<{ code: string; message: string; details: Record<string, unknown> }>
    const folder = nodePath.basename(nodePath.dirname(project.file(SID)))
    expect(diagnostics.map((d) => [d.code, d.message, d.details])).toEqual([
      ["NOT_A_FILE", `The subagent file ${folder}/${SID}/subagents/agent-fifo.jsonl is not a regular file.`, { project: folder, file: `${SID}.jsonl`, agentId: "fifo" }],
      ["SYMLINK_SKIPPED", `The subagent file ${folder}/${SID}/subagents/agent-link.jsonl is a symlink; it was not followed.`, { project: folder, file: `${SID}.jsonl`, agentId: "link" }]
    ])
    const text = cli(["import", "--index", nodePath.join(dir, "i2.db"), ...args], { env })
    expect(text.code).toBe(8)
    const listed = text.stdout.slice(text.stdout.indexOf("  diagnostics:"))
    expect(listed.split("\n").filter((l) => l.includes("agent-fifo.jsonl"))).toHaveLength(1)
    expect(listed.split("\n").filter((l) => l.includes("agent-link.jsonl"))).toHaveLength(1)
  })
})
