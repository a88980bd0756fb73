// The stream worker's entry when the library runs from its TypeScript sources
// (tsx, vitest): register tsx in this thread, then load the worker
// (./stream-worker.ts). The built CLI starts dist/stream-worker.cjs instead.
import { register } from "tsx/esm/api"

register()
await import("./stream-worker.ts")
