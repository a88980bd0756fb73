/**
 * tester36a F5: `show`/`export`/`replay <id>` of an id that several sources hold, on a tie of last activity, pick a
 * copy deterministically: `sessions`' order (latest activity first, then uid), and on a tie a copy whose source is
 * still on disk before one whose source is gone (a folder renamed: the index keeps the old copy). Both engines.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { emptySourceSummary, type SessionEvent } from "../../src/domain/model.js"
import { findSession } from "../../src/layers/index/queries.js"
import { Index, type SourceInfo } from "../../src/services/Index.js"
import { mk } from "../support/events.js"
import { indexLayer, writeSource } from "../support/index.js"
import { tempDir } from "../support/paths.js"
import { engines } from "../support/pg.js"

const source = (key: string, path: string): SourceInfo => ({
  sourceKey: key,
  provider: "muse-agents",
  locator: { locatorClass: "muse-agent-transcript", path },
  summary: {},
  overview: { ...emptySourceSummary(), title: key, workspace: "/w" }
})

const AT = "2026-01-20T17:06:23.018Z"
/** A copy's events: its own source id (a copy at another path is another source), so its own session uid. */
const events = (sessionId: string, at: string, sourceId: string): Array<SessionEvent> => {
  const e = mk("muse-agents", sessionId)
  return [{ ...e("message", { role: "user", occurredAt: at, text: "hello" }), sourceId }]
}

const put = writeSource

describe.each(engines)("an id several sources hold, tied on last activity ($engine)", ({ engine, newIndex }) => {
  it.effect("the pick follows sessions' order (uid on a tie), a present copy before a gone one", () =>
    Effect.gen(function*() {
      const dir = tempDir("si-tie36-")
      const target = yield* newIndex(dir)
      yield* Effect.gen(function*() {
        const index = yield* Index
        const files = ["a", "b", "c", "d"].map((k) => nodePath.join(dir, `${k}.jsonl`))
        for (const f of files) fs.writeFileSync(f, "{}\n")
        // Four copies of one session, all with the same last activity.
        for (const [i, f] of files.entries()) yield* put(source(`src-${i}`, f), events("sess-tie", AT, `sha256:copy-${i}`))
        const listed = (yield* index.sessions({})).filter((s) => s.sessionId === "sess-tie").map((s) => s.sessionUid)
        expect(listed.length).toBe(4)
        expect(listed).toEqual([...listed].sort())
        // Every copy present: the first in sessions' order, whatever order the rows were written in.
        const all = yield* findSession("sess-tie")
        expect([all.session.sessionUid, ...all.others.map((o) => o.sessionUid)]).toEqual(listed)
        if (engine !== "sqlite") return // a team index's rows name a machine: the presence of their files is not judged
        // The copies that sort first are gone (their folder renamed): the first present copy in uid order is shown,
        // the gone ones after the present ones.
        const byUid = new Map((yield* index.sessions({})).map((s) => [s.sessionUid, s.locator.path]))
        fs.rmSync(byUid.get(listed[0])!)
        fs.rmSync(byUid.get(listed[2])!)
        const some = yield* findSession("sess-tie")
        expect([some.session.sessionUid, ...some.others.map((o) => o.sessionUid)]).toEqual([listed[1], listed[3], listed[0], listed[2]])
        // A later copy still wins over an earlier present one, even when gone: the latest activity first.
        yield* put(source("src-late", nodePath.join(dir, "gone-late.jsonl")), events("sess-tie", "2026-01-21T00:00:00.000Z", "sha256:copy-late"))
        const late = yield* findSession("sess-tie")
        expect(late.session.locator.path).toBe(nodePath.join(dir, "gone-late.jsonl"))
      }).pipe(Effect.provide(indexLayer(target)))
    }), 120_000)
})
