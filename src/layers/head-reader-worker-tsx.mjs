// The head reader worker run from src/ (tests, bench through tsx): Node 20 does
// not pass tsx's loader on to worker threads, so this shim loads the TypeScript
// entry through tsx's API. The built CLI runs dist/head-reader-worker.cjs.
import { tsImport } from "tsx/esm/api"

await tsImport("./head-reader-worker.ts", import.meta.url)
