// The parse worker's entry when the library runs from its TypeScript sources
// (tsx, vitest): register tsx in this thread, then load the worker
// (./parse-worker.ts). The built CLI starts dist/parse-worker.cjs instead.
import { register } from "tsx/esm/api"

register()
await import("./parse-worker.ts")
