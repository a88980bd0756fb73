/**
 * The import configuration file, so the daily run is one short command:
 * `--config FILE`, else `$XDG_CONFIG_HOME/session-ingest/config.json` when it
 * exists. JSON; relative paths are read from the file's folder. Command-line
 * options add to it (lists) or override it (single values).
 *
 * ```json
 * { "index": "~/.local/share/session-ingest/index.db",   (or "postgres://user@host:5432/sessions", a team's index)
 *   "workspaces": ["~/work/app"], "museRoots": ["~/.local/share/muse/sessions"],
 *   "agentsRoot": "~/agents", "store": "~/.agentmux/shared/agents/transcripts/filestore.db",
 *   "agents": ["uid-1"], "state": null, "exports": ["~/exports/trajectory.json"],
 *   "redaction": { "patterns": [{ "id": "acme-key", "pattern": "ACME-[0-9]{8}" }] },
 *   "prices": { "my-model": { "input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75, "cacheWrite1h": 6 } } }
 * ```
 *
 * `prices` (US dollars per million tokens, by model id) overrides or extends
 * the bundled price table (`data/prices.json`) for `sessions`, `show`,
 * `export` and `usage`; `cacheWrite` is a 5-minute cache write, `cacheWrite1h`
 * a 1-hour one (optional: 2x `input` when left out); `longContext` (optional,
 * the same kinds) the rates of a response whose prompt is over 200k tokens
 * (without it such a response of the model has no price: its cost is unknown);
 * `fast` (optional, the same kinds) the rates of a response that ran in fast
 * mode (usage `speed: "fast"`; without it such a response has no price).
 *
 * @module
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { InvalidArgument } from "../domain/errors.js"
import { parseJson } from "../domain/json.js"
import { type SchemaIssue, schemaIssueList } from "../domain/schema-issues.js"
import type { CustomPattern } from "../domain/redaction/custom.js"
import { bundledPrices, ModelPrices, type PriceTable, withOverrides } from "../domain/prices.js"
import { defaultConfigFile } from "../layers/data-dir.js"
import { looksLikeUrl } from "../layers/index/pg-target.js"
import type { Setting } from "../layers/provider.js"
import * as Registry from "../layers/registry.js"

const Paths = Schema.optional(Schema.Array(Schema.String))
const PathOrNull = Schema.optional(Schema.NullOr(Schema.String))

/**
 * The configuration file's fields: `index` and `workspaces`, then each
 * given provider setting's `configKey` (a list, or a value or null).
 */
export const configFieldsOf = (settings: ReadonlyArray<Setting>): Schema.Struct.Fields => ({
  index: PathOrNull,
  workspaces: Paths,
  prices: Schema.optional(ModelPrices),
  ...Object.fromEntries(settings.map((s) => [s.configKey, s.many ? Paths : PathOrNull]))
})

/** The keys a configuration file may hold, in order. */
export const configKeysOf = (settings: ReadonlyArray<Setting>): ReadonlyArray<string> => Object.keys(configFieldsOf(settings))

/**
 * The config file's `redaction` key: `patterns`, custom redaction rules
 * `{id, pattern}`, matched on the original text and merged with what the built-in rules redact (see docs/redaction.md, "Custom rules").
 */
export const RedactionSettings = Schema.Struct({
  patterns: Schema.optional(Schema.Array(Schema.Struct({ id: Schema.String, pattern: Schema.String })))
})

/**
 * The config file's `limits` key: the import limits (`ImportLimitsShape` of
 * `../services/ImportLimits.ts`) an import runs with, each optional (the
 * default when absent): `maxDocumentBytes`, `maxRecordBytes` (bytes, at
 * least 1) and `maxDepth` (levels of JSON nesting, at least 1). What a
 * `RESOURCE_LIMIT_EXCEEDED` remedy names.
 */
export const LimitSettings = Schema.Struct({
  maxDocumentBytes: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  maxRecordBytes: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  maxDepth: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)))
})

/**
 * The configuration file's shape (unknown keys are refused, to catch
 * typos): `index`, `workspaces`, the registered providers' keys,
 * `redaction` (see {@link RedactionSettings}) and `limits` (see
 * {@link LimitSettings}).
 */
export const ImportConfig: Schema.Schema<Readonly<Record<string, unknown>>> = Schema.Struct({
  ...configFieldsOf(Registry.settings),
  redaction: Schema.optional(RedactionSettings),
  limits: Schema.optional(LimitSettings)
}) as never

/** A loaded configuration: `index` and `workspaces`, and the providers' values by config key (paths absolute). */
export interface ImportConfig {
  readonly index?: string | undefined
  readonly workspaces?: ReadonlyArray<string> | undefined
  readonly [configKey: string]: ReadonlyArray<string> | string | undefined
}

const decode = Schema.decodeUnknownEither(Schema.parseJson(ImportConfig), { onExcessProperty: "error" })

const expand = (p: string, base: string) =>
  nodePath.resolve(base, p === "~" ? os.homedir() : p.startsWith("~/") ? nodePath.join(os.homedir(), p.slice(2)) : p)

const unreadable = (path: string, why: string) =>
  new InvalidArgument({
    message: `The config file ${path} cannot be read (${why}).`,
    remediation: "Pass --config FILE with a readable JSON file (a regular file, not a folder, fifo or device)."
  })

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** What a JSON value is, in words: `an array`, `null`, `a number`, … */
const kindOf = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "string" ? "a string" : typeof v === "number" ? "a number" : typeof v === "boolean" ? `${v}` : "an object"

/**
 * A config file's schema issues as a person reads them (tester40 F6): a
 * structure expected is named (`an object`, `a list`), not written out as
 * the schema's whole type (hundreds of characters); and the issues of one
 * key's branches (`Expected string, actual 5` and `Expected null, actual
 * 5`) are one issue (`Expected string or null, actual 5`).
 */
const configIssues = (issues: ReadonlyArray<SchemaIssue>): ReadonlyArray<SchemaIssue> => {
  const named = (expected: string) =>
    expected.startsWith("{") ? "an object" : /^(ReadonlyArray|Array)<|^readonly \[/.test(expected) ? "a list" : expected
  const byPath = new Map<string, { expected: Array<string>; rest: string }>()
  const order: Array<string> = []
  for (const i of issues) {
    const m = /^Expected (.*?), actual (.*)$/.exec(i.message)
    const expected = m === null ? i.message : named(m[1])
    const rest = m === null ? "" : `, actual ${m[2]}`
    const known = byPath.get(i.path)
    if (known === undefined) {
      byPath.set(i.path, { expected: [expected], rest })
      order.push(i.path)
    } else if (known.rest === rest && !known.expected.includes(expected)) known.expected.push(expected)
  }
  return order.map((path) => {
    const { expected, rest } = byPath.get(path)!
    return { path, message: rest === "" ? expected.join("; ") : `Expected ${expected.join(" or ")}${rest}` }
  })
}

/**
 * The first key given twice in one object of the JSON `text` (valid JSON:
 * `JSON.parse` took it), with the dot path of that object (`""` at the top),
 * or undefined. Keys are compared as decoded (`"a"` and `"\u0061"` are one).
 */
export const keyGivenTwice = (text: string): { readonly key: string; readonly in: string } | undefined => {
  type Frame = { readonly object: boolean; readonly keys: Set<string>; readonly path: string; expectKey: boolean; last: string; index: number }
  const stack: Array<Frame> = []
  const childPath = (f: Frame | undefined) => (f === undefined ? "" : `${f.path === "" ? "" : `${f.path}.`}${f.object ? f.last : String(f.index)}`)
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    const top = stack[stack.length - 1]
    if (c === "{" || c === "[") {
      stack.push({ object: c === "{", keys: new Set(), path: childPath(top), expectKey: c === "{", last: "", index: 0 })
    } else if (c === "}" || c === "]") {
      stack.pop()
    } else if (c === ",") {
      if (top !== undefined) top.object ? (top.expectKey = true) : top.index++
    } else if (c === "\"") {
      let j = i + 1
      while (text[j] !== "\"") j += text[j] === "\\" ? 2 : 1
      if (top !== undefined && top.object && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string
        if (top.keys.has(key)) return { key, in: top.path }
        top.keys.add(key)
        top.last = key
        top.expectKey = false
      }
      i = j
    }
  }
  return undefined
}

/** The deepest nesting of objects and arrays a config file may have (seed 001's depth rule for JSON, 64 levels). */
const MAX_CONFIG_DEPTH = 64

/** The most a config file may hold: it is a short list of paths. */
const MAX_CONFIG_BYTES = 1024 * 1024

/**
 * Read a config file that must be a regular file: stat first, then open
 * without blocking (`O_NONBLOCK`: a fifo swapped in after the stat cannot
 * hold the open) and check the opened file is regular before reading it.
 * A symlink to a regular file is read (a dotfile manager links configs).
 * `undefined` when absent and `optional`.
 */
const readConfigFile = (path: string, optional: boolean): Effect.Effect<string | undefined, InvalidArgument> =>
  Effect.try({
    try: () => {
      let st: fs.Stats
      try {
        st = fs.statSync(path)
      } catch (e) {
        if (optional && (e as NodeJS.ErrnoException).code === "ENOENT") return undefined
        throw e
      }
      if (!st.isFile()) throw new Error(`not a regular file: a ${st.isDirectory() ? "folder" : st.isFIFO() ? "fifo" : "special file"}`)
      const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
      try {
        const opened = fs.fstatSync(fd)
        if (!opened.isFile()) throw new Error("not a regular file")
        if (opened.size > MAX_CONFIG_BYTES) throw new Error(`${opened.size} bytes, more than a config file holds`)
        const text = fs.readFileSync(fd, "utf8")
        // A UTF-8 byte order mark (Windows tools write one) is not part of the JSON text (RFC 8259 §8.1 lets it go).
        return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
      } finally {
        fs.closeSync(fd)
      }
    },
    catch: (e) => unreadable(path, e instanceof Error ? e.message : String(e))
  })

/** The config file's path and decoded values (shape checked), or undefined when there is none. */
const loadRaw = (file: string | undefined): Effect.Effect<{ readonly path: string; readonly values: Readonly<Record<string, unknown>> } | undefined, InvalidArgument> =>
  Effect.gen(function*() {
    const path = file ?? defaultConfigFile()
    const text = yield* readConfigFile(path, file === undefined)
    if (text === undefined) return undefined
    // Nesting first: a text nested thousands deep would overflow the stack of the schema's error formatting.
    const parsed = parseJson(text, MAX_CONFIG_DEPTH)
    if (parsed._tag === "error" && parsed.problem._tag === "depth") {
      return yield* new InvalidArgument({
        message: `The config file ${path} is not valid: it nests objects or arrays deeper than ${MAX_CONFIG_DEPTH} levels.`,
        remediation: "A config file is a short list of settings (see the README): pass --config FILE with one."
      })
    }
    const remediation = `Keys: ${
      configKeysOf(Registry.settings).join(", ")
    } (see the README), redaction.patterns, a list of {"id", "pattern"}, and limits (maxDocumentBytes, maxRecordBytes, maxDepth); relative paths in it are read from the config file's folder.`
    // A key given twice: JSON.parse keeps the last one silently; the command line refuses an option given twice, and
    // so does the file (tester40 F6: `{"index": A, "index": B}` used B without a word).
    const twice = parsed._tag === "ok" ? keyGivenTwice(text) : undefined
    if (twice !== undefined) {
      return yield* new InvalidArgument({
        message: `The config file ${path} is not valid: the key "${twice.key}" is given twice${twice.in === "" ? "" : ` in ${twice.in}`}.`,
        remediation: "Give each key once (which of the two was meant is not guessed), then run the same command again."
      })
    }
    // The file as a whole must be one object: said so, not as the schema's whole type (tester40 F6).
    if (parsed._tag === "ok" && !isPlainObject(parsed.value)) {
      return yield* new InvalidArgument({
        message: `The config file ${path} is not valid: it must hold one JSON object ({"key": value, ...}), not ${kindOf(parsed.value)}.`,
        remediation
      })
    }
    const decoded = decode(text)
    if (Either.isLeft(decoded)) {
      return yield* new InvalidArgument({
        message: `The config file ${path} is not valid: ${
          // An optional key's other branch ("Expected undefined, actual 0") says nothing the first issue does not.
          configIssues(schemaIssueList(decoded.left, 6, (i) => !/^Expected undefined, actual /.test(i.message)))
            .slice(0, 3)
            .map((i) => (i.path !== "" ? `${i.path}: ${i.message}` : i.message))
            .join("; ")
        }`,
        remediation
      })
    }
    // Custom redaction patterns are checked here, for every command that reads the file (not only those that
    // redact): a daily `import` with a broken pattern says so at once, as the next `show` would.
    const patterns = (decoded.right.redaction as typeof RedactionSettings.Type | undefined)?.patterns ?? []
    if (patterns.length > 0) {
      // Loaded only for a file that has patterns: the checker brings re2js and the built-in rules.
      const { compileCustomPatterns } = yield* Effect.promise(() => import("../domain/redaction/custom.js"))
      const compiled = compileCustomPatterns(patterns)
      if (Either.isLeft(compiled)) return yield* compiled.left
    }
    return { path, values: decoded.right }
  })

/**
 * The price table in use: the bundled `data/prices.json`, with the
 * configuration file's `prices` laid over it (a model given there replaces
 * or adds its entry; the table names the file). `InvalidArgument` as
 * {@link loadConfig} for a config file that cannot be read or has a wrong
 * shape (a price that is not a non-negative number, a missing kind).
 */
export const loadPriceTable = (file: string | undefined): Effect.Effect<PriceTable, InvalidArgument> =>
  Effect.map(loadRaw(file), (raw) =>
    raw === undefined ? bundledPrices : withOverrides(bundledPrices, raw.values.prices as ModelPrices | undefined, nodePath.resolve(raw.path)))

/**
 * Load a configuration: the given file (which must exist), else the default
 * file when present, else an empty configuration. Paths come back absolute.
 * `InvalidArgument` for a file that is not a regular file (a fifo, a folder:
 * refused, never waited on), an unreadable file or a wrong shape.
 */
export const loadConfig = (file: string | undefined): Effect.Effect<ImportConfig, InvalidArgument> =>
  Effect.gen(function*() {
    const raw = yield* loadRaw(file)
    if (raw === undefined) return {}
    const { path } = raw
    const base = nodePath.dirname(nodePath.resolve(path))
    const { redaction: _redaction, prices: _prices, limits: _limits, ...settings } = raw.values
    const c = settings as Readonly<Record<string, ReadonlyArray<string> | string | null | undefined>>
    // Every value names a path or an id: an empty one is refused, never read as "nothing there" (or as the config's folder).
    const empty = Object.entries(c).flatMap(([key, v]) =>
      v === "" ? [key] : Array.isArray(v) ? v.flatMap((x, i) => (x === "" ? [`${key}[${i}]`] : [])) : []
    )
    if (empty.length > 0) {
      return yield* new InvalidArgument({
        message: `The config file ${path} is not valid: ${empty[0]}: the value is empty.`,
        remediation: `Give ${empty[0]} a value, or leave the key out (null for a single value) to use the default.`
      })
    }
    const one = (p: string | null | undefined) => (p === undefined || p === null ? undefined : expand(p, base))
    const value = (v: ReadonlyArray<string> | string | null | undefined, path: boolean, many: boolean) =>
      many ? (path ? (v as ReadonlyArray<string> | undefined)?.map((p) => expand(p, base)) : v ?? undefined) : path ? one(v as string | null | undefined) : v ?? undefined
    const index = c.index as string | null | undefined
    const out: Record<string, ReadonlyArray<string> | string | undefined> = {
      // A `postgres://` URL names a server, not a path: kept as it is (so is any URL, checked by the command).
      index: typeof index === "string" && looksLikeUrl(index) ? index : one(index),
      workspaces: value(c.workspaces, true, true)
    }
    for (const s of Registry.settings) out[s.configKey] = value(c[s.configKey], s.path, s.many)
    return out as ImportConfig
  })

/**
 * The import limits a configuration sets (`limits`; none when absent: the
 * defaults), from the file {@link loadConfig} reads, with its errors.
 */
export const loadImportLimits = (file: string | undefined): Effect.Effect<typeof LimitSettings.Type, InvalidArgument> =>
  Effect.map(loadRaw(file), (raw) => (raw?.values.limits as typeof LimitSettings.Type | undefined) ?? {})

/**
 * The custom redaction patterns of a configuration (`redaction.patterns`;
 * none when absent), from the file {@link loadConfig} reads, with its errors.
 * The patterns are compiled (and refused) by the `Redaction` service.
 */
export const loadRedactionPatterns = (file: string | undefined): Effect.Effect<ReadonlyArray<CustomPattern>, InvalidArgument> =>
  Effect.map(loadRaw(file), (raw) => (raw?.values.redaction as typeof RedactionSettings.Type | undefined)?.patterns ?? [])
