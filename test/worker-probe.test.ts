/**
 * A pool's first workers are started side by side (`probeWorker` with a
 * count, `src/layers/worker-probe.ts`; issue 13: two AgentMux scan workers
 * started one after the other cost a first scan the first one's load in wall
 * time), handed to the pool in order, and a worker of an entry that cannot
 * load fails the probe of all.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import type * as WorkerThreads from "node:worker_threads"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { probeWorker } from "../src/layers/worker-probe.js"

/**
 * A worker that counts itself in (`workerData.counter`, shared), then says
 * it is ready once `workerData.together` workers are counted in (it waits
 * up to 5 s for them), else that it loaded alone.
 */
const TOGETHER = `"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const counter = new Int32Array(workerData.counter);
Atomics.add(counter, 0, 1);
Atomics.notify(counter, 0);
const until = Date.now() + 5000;
for (let seen = Atomics.load(counter, 0); seen < workerData.together && Date.now() < until; seen = Atomics.load(counter, 0)) {
  Atomics.wait(counter, 0, seen, 50);
}
parentPort.postMessage(Atomics.load(counter, 0) >= workerData.together ? "together" : "alone");
parentPort.on("message", () => {});
`

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "worker-probe-"))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const entryOf = (name: string, text: string): string => {
  const entry = nodePath.join(dir, name)
  fs.writeFileSync(entry, text)
  return entry
}

/** The first message the pool's listener would get from a spawned worker (the ready message given again). */
const firstMessage = (w: WorkerThreads.Worker) => new Promise<unknown>((resolve) => w.once("message", resolve))

describe("probeWorker with a count", () => {
  it("starts the workers side by side: each is ready only once all have loaded; they are handed over in order, then new ones", async () => {
    const counter = new SharedArrayBuffer(4)
    const entry = entryOf("together.cjs", TOGETHER)
    const answer = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const probe = yield* probeWorker(entry, { workerData: { counter, together: 2 } }, 20_000, 2)
      if (probe._tag === "failed") return { probe: probe._tag, problem: probe.problem }
      const loaded = Atomics.load(new Int32Array(counter), 0)
      const [a, b] = [probe.spawn(0), probe.spawn(1)]
      const ready = yield* Effect.promise(() => Promise.all([firstMessage(a), firstMessage(b)]))
      const handedOver = Atomics.load(new Int32Array(counter), 0)
      const c = probe.spawn(2) // none left: a new worker
      yield* Effect.promise(() => firstMessage(c))
      const afterThird = Atomics.load(new Int32Array(counter), 0)
      yield* Effect.promise(() => Promise.all([a.terminate(), b.terminate(), c.terminate()]))
      return { probe: probe._tag, loaded, ready, handedOver, afterThird }
    })))
    expect(answer).toEqual({ probe: "ready", loaded: 2, ready: ["together", "together"], handedOver: 2, afterThird: 3 })
  }, 30_000)

  it("fails all when one cannot load, and the entry is not tried again", async () => {
    const entry = entryOf("broken.cjs", `"use strict";\nthrow new Error("broken build");\n`)
    const first = await Effect.runPromise(Effect.scoped(probeWorker(entry, {}, 20_000, 2)))
    expect(first._tag).toBe("failed")
    expect(first._tag === "failed" && first.problem).toContain("broken build")
    fs.writeFileSync(entry, TOGETHER) // a good entry now: the same path is still given up
    const again = await Effect.runPromise(Effect.scoped(probeWorker(entry, {}, 20_000, 2)))
    expect(again).toEqual(first)
  }, 30_000)
})
