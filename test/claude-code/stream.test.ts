/**
 * claude-code: discovery roots (--claude-root, CLAUDE_CONFIG_DIR, default),
 * stream cursors (every event's cursor resumes with the rest; forged and
 * foreign cursors are INVALID_CURSOR), symlinks never followed, nothing
 * written to the source.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { snapshotTree } from "../support/paths.js"
import { collect, copyFixtures, FIXTURE_ROOT, locatorOf, S, sessionPath, tempDir, withAdapter, withProcessAdapter } from "./helpers.js"

const ids = (events: ReadonlyArray<{ sessionId: string; eventId: string; sourceId: string }>) => events.map((e) => `${e.sourceId}/${e.sessionId}/${e.eventId}`)

describe("claude-code discovery roots", () => {
  it.effect("CLAUDE_CONFIG_DIR/projects is the root when no --claude-root; else ~/.claude/projects", () =>
    Effect.gen(function*() {
      const config = tempDir("si-claude-cfg-")
      fs.cpSync(FIXTURE_ROOT, nodePath.join(config, "projects"), { recursive: true })
      const r = yield* withProcessAdapter({ env: { CLAUDE_CONFIG_DIR: config }, home: "/nonexistent-home" }, (a) => a.discover({}))
      expect(r.sourceCount).toBe(6)
      expect(r.receipts).toMatchObject({ rootOrigin: "env", claudeRoot: nodePath.join(config, "projects") })
      const home = tempDir("si-claude-home-")
      fs.cpSync(FIXTURE_ROOT, nodePath.join(home, ".claude", "projects"), { recursive: true })
      const d = yield* withProcessAdapter({ env: {}, home }, (a) => a.discover({}))
      expect(d.sourceCount).toBe(6)
      expect(d.receipts).toMatchObject({ rootOrigin: "default" })
      // A missing root lists nothing, said, not an error.
      const none = yield* withProcessAdapter({ env: { CLAUDE_CONFIG_DIR: nodePath.join(home, "nope") }, home }, (a) => a.discover({}))
      expect([none.status, none.sourceCount, none.reasonCode]).toEqual(["unavailable", 0, "CLAUDE_ROOT_NOT_FOUND"])
      // Named (CLAUDE_CONFIG_DIR, --claude-root) and missing: partial; the default root missing: complete (no session yet).
      expect(none.coverage).toBe("partial")
      const named = yield* withProcessAdapter({ env: {}, home }, (a) => a.discover({}), nodePath.join(home, "nope"))
      expect([named.status, named.coverage]).toEqual(["unavailable", "partial"])
      const byDefault = yield* withProcessAdapter({ env: {}, home: nodePath.join(home, "no-home") }, (a) => a.discover({}))
      expect([byDefault.status, byDefault.coverage]).toEqual(["unavailable", "complete"])
    }))

  it.effect("a --claude-root that holds no project folder is partial (CLAUDE_ROOT_EMPTY); an empty default or CLAUDE_CONFIG_DIR root is not", () =>
    Effect.gen(function*() {
      const named = tempDir("si-claude-empty-")
      fs.writeFileSync(nodePath.join(named, "stray.txt"), "not a project") // a file is no project folder either
      const r = yield* withProcessAdapter({ env: {}, home: "/nonexistent-home" }, (a) => a.discover({}), named)
      expect([r.status, r.coverage, r.sourceCount, r.reasonCode]).toEqual(["checked", "partial", 0, "CLAUDE_ROOT_EMPTY"])
      expect(r.remediation).toContain("--claude-root")
      expect(r.diagnostics.map((d) => d.code)).toEqual(["CLAUDE_ROOT_EMPTY"])
      const home = tempDir("si-claude-home-")
      fs.mkdirSync(nodePath.join(home, ".claude", "projects"), { recursive: true })
      const byDefault = yield* withProcessAdapter({ env: {}, home }, (a) => a.discover({}))
      expect([byDefault.coverage, byDefault.reasonCode]).toEqual(["complete", null])
      const config = tempDir("si-claude-cfg-")
      fs.mkdirSync(nodePath.join(config, "projects"))
      const byEnv = yield* withProcessAdapter({ env: { CLAUDE_CONFIG_DIR: config }, home }, (a) => a.discover({}))
      expect([byEnv.coverage, byEnv.reasonCode]).toEqual(["complete", null])
      // A named root with one project folder, even without sessions, is Claude Code's folder: complete.
      fs.mkdirSync(nodePath.join(named, "-home-alice-x"))
      const one = yield* withProcessAdapter({ env: {}, home }, (a) => a.discover({}), named)
      expect([one.coverage, one.reasonCode]).toEqual(["complete", null])
    }))

  it.effect("--claude-root wins over CLAUDE_CONFIG_DIR; a file outside the root is refused", () =>
    Effect.gen(function*() {
      const empty = tempDir("si-claude-cfg-")
      const r = yield* withProcessAdapter({ env: { CLAUDE_CONFIG_DIR: empty }, home: empty }, (a) => a.discover({}), FIXTURE_ROOT)
      expect(r.sourceCount).toBe(6)
      expect(r.receipts).toMatchObject({ rootOrigin: "option" })
      const other = copyFixtures()
      const refused = yield* Effect.flip(withAdapter(tempDir(), (a) => a.inspect(locatorOf(S.S1, other))))
      expect(refused.code).toBe("SOURCE_OUTSIDE_ALLOWED_ROOT")
    }))

  it.effect("symlinks (a project folder, a session file, a subagent file) are reported and never followed", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      const elsewhere = copyFixtures()
      fs.symlinkSync(nodePath.join(elsewhere, "-home-alice-src-web-app-v2"), nodePath.join(root, "-linked-project"))
      fs.symlinkSync(sessionPath(S.S5, elsewhere), nodePath.join(root, "-home-alice-code-billing-api", "11111111-1111-4111-8111-111111111111.jsonl"))
      const subDir = nodePath.join(root, "-home-alice-code-billing-api", S.S2, "subagents")
      fs.symlinkSync(nodePath.join(subDir, "agent-a7c3e9f1b2d4068e5.jsonl"), nodePath.join(subDir, "agent-bbbbbbbbbbbbbbbb0.jsonl"))
      const r = yield* withAdapter(root, (a) => a.discover({}))
      expect(r.sourceCount).toBe(6)
      expect(r.coverage).toBe("partial")
      expect(r.diagnostics.filter((d) => d.code === "SYMLINK_SKIPPED")).toHaveLength(3)
      const s2 = r.sources.find((s) => s.sessionId === S.S2)!.summary as Record<string, any>
      expect(s2.subagentCount).toBe(1)
      const events = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S2, root), { includeSubagents: true })))
      expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set([S.S2, "agent-a7c3e9f1b2d4068e5"]))
      const linked = yield* Effect.flip(withAdapter(root, (a) => a.inspect({ locatorClass: "claude-code-session-log", path: nodePath.join(root, "-home-alice-code-billing-api", "11111111-1111-4111-8111-111111111111.jsonl") })))
      expect(linked.code).toBe("SOURCE_SYMLINK")
    }))
})

describe("claude-code stream cursors", () => {
  it.effect("resuming from every event's cursor gives exactly the rest (subagents included), for every fixture", () =>
    Effect.gen(function*() {
      for (const id of Object.values(S)) {
        const all = yield* withAdapter(FIXTURE_ROOT, (a) => collect(a.stream(locatorOf(id), { includeSubagents: true })))
        expect(new Set(all.map((e) => e.cursor)).size).toBe(all.length)
        // Sequences rise within each source.
        for (let i = 1; i < all.length; i++) {
          if (all[i].sourceId === all[i - 1].sourceId) expect(all[i].sequence).toBeGreaterThan(all[i - 1].sequence)
        }
        for (let i = 0; i < all.length; i++) {
          const rest = yield* withAdapter(FIXTURE_ROOT, (a) => collect(a.stream(locatorOf(id), { includeSubagents: true, cursor: all[i].cursor })))
          expect(ids(rest), `${id} after ${all[i].eventId}`).toEqual(ids(all.slice(i + 1)))
          expect(rest).toEqual(all.slice(i + 1))
        }
      }
    }), 60_000)

  it.effect("without subagents a cursor of the session file resumes there; a subagent's cursor is refused", () =>
    Effect.gen(function*() {
      const all = yield* withAdapter(FIXTURE_ROOT, (a) => collect(a.stream(locatorOf(S.S2), { includeSubagents: true })))
      const own = yield* withAdapter(FIXTURE_ROOT, (a) => collect(a.stream(locatorOf(S.S2))))
      expect(own.every((e) => e.sessionId === S.S2)).toBe(true)
      const rest = yield* withAdapter(FIXTURE_ROOT, (a) => collect(a.stream(locatorOf(S.S2), { cursor: own[1].cursor })))
      expect(rest).toEqual(own.slice(2))
      const sub = all.find((e) => e.sessionId !== S.S2)!
      const e = yield* Effect.flip(withAdapter(FIXTURE_ROOT, (a) => collect(a.stream(locatorOf(S.S2), { cursor: sub.cursor }))))
      expect(e.code).toBe("INVALID_CURSOR")
    }))

  it.effect("a forged, foreign or stale cursor is INVALID_CURSOR", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      const s1 = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S1, root))))
      const s5 = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S5, root))))
      const token = s1[3].cursor
      const parts = token.split(".")
      const forgeries = [
        "c2.garbage",
        "not-a-cursor",
        // seq moved to another line, sub moved, offset moved
        [...parts.slice(0, 2), (parseInt(parts[2], 36) + 1).toString(36), ...parts.slice(3)].join("."),
        [...parts.slice(0, 5), "5", ...parts.slice(6)].join("."),
        [...parts.slice(0, 3), (parseInt(parts[3], 36) + 7).toString(36), ...parts.slice(4)].join("."),
        s5[0].cursor
      ]
      for (const c of forgeries) {
        const e = yield* Effect.flip(withAdapter(root, (a) => collect(a.stream(locatorOf(S.S1, root), { cursor: c }))))
        expect(e.code, c).toBe("INVALID_CURSOR")
      }
      // Rewriting the cursor's line makes it stale.
      const p = sessionPath(S.S1, root)
      const text = fs.readFileSync(p, "utf8")
      fs.writeFileSync(p, text.replace("off by one cent", "off by two cents"))
      const stale = yield* Effect.flip(withAdapter(root, (a) => collect(a.stream(locatorOf(S.S1, root), { cursor: s1[0].cursor }))))
      expect(stale.code).toBe("INVALID_CURSOR")
    }))

  it.effect("an append after the last cursor is streamed from there", () =>
    Effect.gen(function*() {
      const root = copyFixtures()
      const p = sessionPath(S.S5, root)
      const before = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S5, root))))
      fs.appendFileSync(p, JSON.stringify({ type: "user", uuid: "u-new", parentUuid: null, sessionId: S.S5, isSidechain: false, timestamp: "2026-01-15T08:31:00.000Z", message: { role: "user", content: "One more thing." } }) + "\n")
      const rest = yield* withAdapter(root, (a) => collect(a.stream(locatorOf(S.S5, root), { cursor: before[before.length - 1].cursor })))
      expect(rest.map((e) => [e.kind, e.text, e.rawReference.sequence])).toEqual([["message", "One more thing.", 11]])
    }))
})

describe("claude-code never writes to its source", () => {
  it.effect("discover, inspect, stream and transcript of every fixture leave the tree as it was", () =>
    Effect.gen(function*() {
      const before = snapshotTree(FIXTURE_ROOT)
      yield* withAdapter(FIXTURE_ROOT, (a) =>
        Effect.gen(function*() {
          yield* a.discover({})
          for (const id of Object.values(S)) {
            yield* a.inspect(locatorOf(id))
            yield* collect(a.stream(locatorOf(id), { includeSubagents: true }))
            yield* a.transcript(locatorOf(id))
          }
        }))
      expect(snapshotTree(FIXTURE_ROOT)).toEqual(before)
    }))
})
