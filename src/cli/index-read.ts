/**
 * CLI plumbing for the commands that read the index (`sessions`, `search`,
 * `show`, `usage`, `export`, `replay`, `mcp`): which index a command names
 * (a SQLite file or a `postgres://` URL) and the layer that reads it. Kept
 * apart from `./index-context.ts` (the import's plumbing) so that a query
 * command does not load the importer, the watch or the progress bar.
 *
 * @module
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { InvalidArgument, SourceNotFound } from "../domain/errors.js"
import type { StoreUnavailable } from "../domain/errors.js"
import { defaultIndexFile } from "../layers/data-dir.js"
import { indexUrlProblem, isPostgresUrl, looksLikeUrl, PERCENT_ENCODE_HINT } from "../layers/index/pg-target.js"
import * as IndexSqlite from "../layers/index/sqlite.js"
import { checkOwnedSqlite, INDEX_APPLICATION_ID } from "../layers/owned-sqlite.js"
import type { Index } from "../services/Index.js"
import { defaultImportLimits, ImportLimits } from "../services/ImportLimits.js"
import { loadConfig, loadImportLimits } from "./config.js"

/** An `--index` value as given: a URL (`postgres://…`, or a malformed one) stays as it is, a file is made absolute. */
export const indexTarget = (value: string): string => (looksLikeUrl(value) ? value : nodePath.resolve(value))

/**
 * An index value (`--index`, `--to`, the config file's `index`) as it is, or
 * `InvalidArgument` (exit 2) when it is a malformed URL: its problem named
 * (scheme, an unescaped `#`/`?`/`/` in the password, percent-escape, host,
 * port, sslmode), the URL shown without any part of its password, and how to
 * percent-encode one.
 * `option` names where it came from (`--index`).
 */
export const checkedIndex = (value: string, option = "--index"): Effect.Effect<string, InvalidArgument> => {
  const problem = indexUrlProblem(value)
  return problem === undefined ? Effect.succeed(value) : Effect.fail(
    new InvalidArgument({
      message: `${option} ${problem}`,
      remediation: `Write the team index as postgres://user:password@host:port/database (${PERCENT_ENCODE_HINT}), or give a file path.`
    })
  )
}

/**
 * `load()` with a `navigator` whose `userAgent` names Node while it runs,
 * when Node has none (Node 20; Node 21 and later have their own): the `pg`
 * client asks, as it loads, whether it runs on Cloudflare Workers, and
 * without a `navigator` it finds out by making a `Response`, which loads
 * Node's `fetch` implementation (undici): about 60-100 ms of start-up
 * (figure g-reimport). The `navigator` is removed once the load is done.
 */
export const withNodeNavigator = async <A>(load: () => Promise<A>): Promise<A> => {
  const g = globalThis as { navigator?: unknown }
  if (g.navigator !== undefined) return load()
  g.navigator = { userAgent: `Node.js/${process.versions.node.split(".")[0]}` }
  try {
    return await load()
  } finally {
    delete g.navigator
  }
}

/** The PostgreSQL layer, loaded only when an index is a URL (a SQLite user's start-up never loads the PostgreSQL client). */
export const postgres = Effect.promise(() => withNodeNavigator(() => import("../layers/index/postgres.js")))

/**
 * The limits a read command holds a whole session to (`show`, `export`,
 * `replay`, `mcp`: `loadSession`'s `maxDocumentBytes`): the config file's
 * `limits` (docs/configuration.md, "Limits") over the defaults. `InvalidArgument` for a
 * config file that cannot be read or has a wrong shape.
 */
export const readLimitsLayer = (config: string | undefined): Layer.Layer<ImportLimits, InvalidArgument> =>
  Layer.effect(ImportLimits, Effect.map(loadImportLimits(config), (l) => ({ ...defaultImportLimits, ...l })))

/**
 * The index a query command reads (`sessions`, `show`, `export`): the
 * PostgreSQL index at a URL, else the SQLite file read-only (see
 * `IndexSqlite.layerReadonly`). Neither is created or migrated.
 */
export const readIndexLayer = (index: string): Layer.Layer<Index, StoreUnavailable> =>
  isPostgresUrl(index)
    ? Layer.unwrapEffect(Effect.map(postgres, (pg) => pg.layer({ url: index })))
    : IndexSqlite.layerReadonly(index, { onNewerSchema: newerSchemaNote })

/**
 * What a read command says on stderr when it reads a SQLite index migrated
 * by a newer session-ingest (it reads it, docs/index.md "Migrations are explicit";
 * tester15 F11: it said nothing), one line.
 */
const newerSchemaNote = (schema: { readonly index: string; readonly have: number; readonly want: number }) =>
  Effect.sync(() => {
    process.stderr.write(
      `session-ingest: note: the index ${schema.index} has schema version ${schema.have}, newer than this session-ingest knows (${schema.want}); ` +
        `it is read as this version understands it (what a newer version added is left out). Upgrade session-ingest to read all of it.\n`
    )
  })

/**
 * The index a command uses, checked ({@link checkedIndex}): `--index`, else
 * the config file's `index`, else the default file; a malformed URL's error
 * names where it came from (`--index`, or the config file's `"index"`).
 */
export const indexOf = (given: Option.Option<string>, c: { readonly index?: string | undefined }): Effect.Effect<string, InvalidArgument> =>
  Option.isSome(given)
    ? checkedIndex(indexTarget(given.value), "--index")
    : c.index !== undefined
    ? checkedIndex(c.index, `The config file's "index"`)
    : Effect.succeed(defaultIndexFile())

/** The index a command names: `--index`, else the config file's `index`, else the default file. */
export const chosenIndex = (index: Option.Option<string>, config: Option.Option<string>) =>
  Effect.flatMap(
    loadConfig(Option.getOrUndefined(config)),
    (c) => indexOf(index, c)
  )

/**
 * The index of a query command (`--index`, else the config file's `index`,
 * else the default): a `postgres://` URL as it is (the server answers for
 * it), or a file; `SourceNotFound` (exit 4) when there is no file yet
 * (queries never create one); `StoreUnavailable` (exit 6) when it is an
 * existing empty file, refused as `import` refuses it (docs/index.md "Never
 * into someone else's file": session-ingest makes its own files whole, so an
 * empty one is another program's; tester30a F1).
 */
export const existingIndex = (index: Option.Option<string>, config: Option.Option<string>, option = "--index") =>
  Effect.gen(function*() {
    const c = yield* loadConfig(Option.getOrUndefined(config))
    const file = yield* indexOf(index, c)
    if (isPostgresUrl(file)) return file
    const st = fs.statSync(file, { throwIfNoEntry: false })
    if (st === undefined) {
      // A symbolic link to nothing is no missing file: refused as every command refuses a link (docs/index.md;
      // tester38b F2: it read "no index yet", and the import it advised then refused the link).
      if (fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined) {
        yield* checkOwnedSqlite(file, INDEX_APPLICATION_ID, "index", `${option} FILE`, true)
      }
      return yield* new SourceNotFound({
        message: `There is no index at ${file} yet.`,
        remediation: `Run \`session-ingest import\` first (or pass ${option} FILE).`
      })
    }
    // Refused here, before the command starts (an MCP server before it serves), as the reader would refuse it.
    if (st.isFile() && st.size === 0) yield* checkOwnedSqlite(file, INDEX_APPLICATION_ID, "index", `${option} FILE`, true)
    return file
  })
