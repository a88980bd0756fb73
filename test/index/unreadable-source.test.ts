/**
 * A source that cannot be read (docs/import.md "Unreadable sources"): a log whose
 * permission was taken away (`chmod 000`), one with an I/O error mid-file,
 * one in a folder that cannot be listed. Fail closed: what was imported
 * from it stays in the index as it was (never superseded, never a new
 * generation: a failed read is not a changed prefix), the run counts it as
 * `unreadable`, reports a `SOURCE_UNREADABLE` cause naming the problem and a
 * remedy, and coverage is partial. Once it can be read again, the next
 * import finds it unchanged or resumes it (no new generation).
 *
 * Tests run as root (root ignores `chmod 000`), so the refusal is injected at
 * the read (`../support/faulty-access.ts`, the Node layer's own error for the
 * errno), while the real `chmod` still changes the file's ctime as it does
 * for a user. Checked for the three file-based providers.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Effect from "effect/Effect"
import { planFromPolicy } from "../../src/layers/index/importer.js"
import type { ImportReport } from "../../src/services/Importer.js"
import { type Fault, faultyAccess } from "../support/faulty-access.js"
import { importOnce, indexView, sessionIds } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { type BreakableSource as Setup, breakableSources as cases, claudeLine } from "../support/source-roots.js"

type Variant = "chmod-000" | "eio-mid-file" | "folder-unlistable" | "eperm"

/** The fault of `variant` on `s.file`, and the change to the file system a user would make. */
const breakIt = (s: Setup, variant: Variant): Fault => {
  const size = fs.statSync(s.file).size
  switch (variant) {
    case "chmod-000":
      fs.chmodSync(s.file, 0o000)
      return { kind: "file", file: s.file, errno: "EACCES" }
    case "eperm":
      fs.chmodSync(s.file, 0o000)
      return { kind: "file", file: s.file, errno: "EPERM" }
    case "eio-mid-file":
      // The file grew (so it must be read again), and its middle fails to read.
      s.append()
      return { kind: "mid-file", file: s.file, from: Math.floor(size / 2), errno: "EIO" }
    case "folder-unlistable":
      fs.chmodSync(path.dirname(s.file), 0o000)
      return { kind: "folder", dir: path.dirname(s.file), errno: "EACCES" }
  }
}

const restore = (s: Setup, variant: Variant) => {
  if (variant === "folder-unlistable") fs.chmodSync(path.dirname(s.file), 0o755)
  else fs.chmodSync(s.file, 0o644)
}

const run = <A>(e: Effect.Effect<A, unknown>) => Effect.runPromise(e as Effect.Effect<A>)

describe("a source that cannot be read is kept as it is, reported, never superseded", () => {
  for (const c of cases) {
    for (const variant of ["chmod-000", "eperm", "eio-mid-file", "folder-unlistable"] as const) {
      it(`${c.provider}: ${variant}`, async () => {
        const s = c.setup()
        const index = path.join(path.dirname(path.dirname(s.file)), `..-${variant}.db`)
        const plan = planFromPolicy(s.policy, { batchSize: 3 })
        const first = await run(importOnce(s.policy, index, plan))
        expect(first.coverage).toBe("complete")
        const ids = await run(sessionIds(index))
        expect(ids.length).toBeGreaterThanOrEqual(3)
        const view = await run(indexView(index))

        const fault = breakIt(s, variant)
        const broken: ImportReport = await run(importOnce(s.policy, index, plan, undefined, undefined, faultyAccess(fault)))
        // Nothing superseded, no new generation: a read that failed is not a change.
        expect(broken.superseded).toEqual([])
        expect(broken.sources.superseded).toBe(0)
        expect(broken.sources.newGenerations).toBe(0)
        expect(broken.sources.unreadable).toBe(1)
        expect(broken.coverage).toBe("partial")
        const cause = broken.causes.find((x) => x.code === "SOURCE_UNREADABLE")
        expect(cause, JSON.stringify(broken.causes)).toBeDefined()
        expect(cause!.provider).toBe(c.provider)
        expect(cause!.path).toBe(s.file)
        expect(cause!.problem).toContain(fault.errno)
        if (fault.errno === "EIO") expect(cause!.remedy).toMatch(/disk|file system/)
        else {
          expect(cause!.problem).toMatch(/permission denied/)
          expect(cause!.remedy).toMatch(/read permission/)
        }
        expect(broken.remediations.some((r) => r.includes("SOURCE_UNREADABLE"))).toBe(true)
        const diagnostics = broken.providers.find((p) => p.provider === c.provider)!.diagnostics
        expect(diagnostics.map((d) => d.code)).toContain("SOURCE_UNREADABLE")
        if (c.provider === "muse-code" && variant !== "folder-unlistable") {
          // Discovery's own word on the log says why it was not checked, and what to do.
          const d = diagnostics.find((x) => x.code === "MUSE_SOURCE_INCONCLUSIVE")
          expect(d?.message).toContain(fault.errno)
          expect(d?.remediation).toBeDefined()
        }
        // The index is as it was: same sessions, same events.
        expect(await run(sessionIds(index))).toEqual(ids)
        expect(await run(indexView(index))).toEqual(view)

        // Readable again: unchanged or resumed, never a new generation, nothing lost.
        restore(s, variant)
        const again = await run(importOnce(s.policy, index, plan))
        expect(again.coverage, JSON.stringify(again.causes)).toBe("complete")
        expect(again.sources.newGenerations).toBe(0)
        expect(again.sources.superseded).toBe(0)
        expect(again.sources.unreadable).toBe(0)
        expect(await run(sessionIds(index))).toEqual(ids)
        if (variant !== "eio-mid-file") expect(await run(indexView(index))).toEqual(view)
      }, 60_000)
    }
  }
})

describe("a nested logs' folder that cannot be listed: its logs are not taken as gone", () => {
  it("claude-code: the subagents folder of a session cannot be listed after an append", async () => {
    const dir = tempDir()
    const root = path.join(dir, "cr")
    const sid = "3f2b8c1e-7a4d-4e9b-9c61-2d8e5f0a1b40"
    const project = path.join(root, "-p")
    const subagents = path.join(project, sid, "subagents")
    fs.mkdirSync(subagents, { recursive: true })
    const file = path.join(project, `${sid}.jsonl`)
    fs.writeFileSync(file, [1, 2, 3].map((i) => claudeLine(sid, i)).join("\n") + "\n")
    fs.writeFileSync(
      path.join(subagents, "agent-a1.jsonl"),
      [1, 2].map((i) => JSON.stringify({ ...JSON.parse(claudeLine(sid, i)), uuid: `sub-${i}`, isSidechain: true, agentId: "a1" })).join("\n") + "\n"
    )
    const policy = { workspaceRoots: [dir], claudeRoot: root }
    const plan = planFromPolicy(policy, { batchSize: 3 })
    const index = path.join(dir, "i.db")
    const first = await run(importOnce(policy, index, plan))
    expect(first.coverage, JSON.stringify(first.causes)).toBe("complete")
    const view = await run(indexView(index))
    fs.appendFileSync(file, claudeLine(sid, 4) + "\n")
    const broken = await run(importOnce(policy, index, plan, undefined, undefined, faultyAccess({ kind: "folder", dir: subagents, errno: "EACCES" })))
    expect(broken.superseded).toEqual([])
    expect(broken.sources.newGenerations).toBe(0)
    expect(broken.sources.unreadable).toBe(1)
    expect(broken.coverage).toBe("partial")
    expect(broken.causes.find((x) => x.code === "SOURCE_UNREADABLE")?.problem).toContain(subagents)
    expect(await run(indexView(index))).toEqual(view)
    const again = await run(importOnce(policy, index, plan))
    expect(again.sources.newGenerations).toBe(0)
    expect(again.coverage).toBe("complete")
  }, 60_000)
})
