/**
 * What `import` runs with (see `./runtime.ts`, which every other command
 * loads): the importer, the index layers and the import's plumbing, and no
 * more, so an import (often a re-import of unchanged sources) does not
 * evaluate the query, export, search, replay and redaction modules at
 * start-up. Loaded when `import` runs (`./lazy.ts`).
 *
 * @module
 */
export { Importer } from "../services/Importer.js"
export { importLayer, importSetup, machineOf, watchLayer, withConfigRemedies, withMissingWorkspaces } from "./index-context.js"
export { watch } from "../layers/index/watch.js"
export { isPostgresUrl, shownIndex } from "../layers/index/pg-target.js"
