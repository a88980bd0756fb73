/**
 * The price table that turns tokens into US dollars where a source states no
 * cost of its own (issue 18): `data/prices.json`, a versioned data file
 * (version date, source, prices per million tokens by model: input, output,
 * cache read, cache write at the 5-minute and at the 1-hour rate), which the
 * configuration file's `prices` key
 * overrides or extends model by model. Pure: the bundled table is imported
 * as data; the config is read by the CLI.
 *
 * A model is looked up by its exact id (`claude-sonnet-4-20250514`, or an
 * alias the table lists such as `claude-sonnet-4-5`), never by a guess from
 * a similar name: a model the table lacks gives tokens without a cost.
 *
 * @module
 */
import * as Schema from "effect/Schema"
import bundled from "../../data/prices.json" with { type: "json" }
import type { TokenUsage } from "./model.js"

/**
 * A rate: a non-negative, finite number (`Schema.NonNegative` alone admits
 * `Infinity`, which a config file's `1e400` parses to: refused at load).
 */
const Rate = Schema.NonNegative.pipe(Schema.finite())

const Rates = {
  input: Rate,
  output: Rate,
  cacheRead: Rate,
  cacheWrite: Rate,
  cacheWrite1h: Schema.optional(Rate)
}

/**
 * The rates of one model for a response whose prompt is over
 * {@link LONG_CONTEXT_THRESHOLD} tokens (Anthropic's "long context pricing"
 * of a model with the 1M-token context window), US dollars per million
 * tokens of each kind, as {@link ModelPrice}'s.
 */
export const LongContextPrice = Schema.Struct(Rates)
export type LongContextPrice = typeof LongContextPrice.Type

/**
 * Prices of one model, US dollars per million tokens of each kind:
 * `cacheWrite` is a 5-minute cache write, `cacheWrite1h` a 1-hour one
 * (optional: a price without it, such as a configured one written before it
 * existed, prices 1-hour writes at 2x its `input`, Anthropic's rule; see
 * {@link cacheWrite1hPrice}); `longContext` (optional) the rates of a
 * response whose prompt is over {@link LONG_CONTEXT_THRESHOLD} tokens: a
 * model without it has no known price for such a response (its cost is
 * unknown, never the standard rates: see {@link longContextOf}); `fast`
 * (optional) the rates of a response that ran in fast mode (Claude's
 * `usage.speed: "fast"`, billed "at a multiplier on standard rates",
 * https://platform.claude.com/docs/en/build-with-claude/fast-mode): a model
 * without it has no known price for such a response (its cost is unknown,
 * never the standard rates: see {@link fastOf}).
 */
export const ModelPrice = Schema.Struct({ ...Rates, longContext: Schema.optional(LongContextPrice), fast: Schema.optional(LongContextPrice) })
export type ModelPrice = typeof ModelPrice.Type

/**
 * The prompt size above which Anthropic bills a whole response at a model's
 * long-context rates: 200,000 tokens, the prompt being the response's input,
 * cache-read and cache-write tokens together. Source: Anthropic's pricing
 * page, "Long context pricing" (https://platform.claude.com/docs/en/about-claude/pricing#long-context-pricing:
 * "> 200K input tokens", counting `input_tokens`, `cache_creation_input_tokens`
 * and `cache_read_input_tokens`). A prompt that large exists only with the
 * 1M-token context window, so the counts alone say which rates apply.
 */
export const LONG_CONTEXT_THRESHOLD = 200_000

/** Whether a response's prompt (input + cache read + cache write tokens; a count not reported adds nothing) is over {@link LONG_CONTEXT_THRESHOLD}. */
export const isLongContext = (u: TokenUsage): boolean =>
  (u.inputTokens ?? 0) + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0) > LONG_CONTEXT_THRESHOLD

/**
 * The fast-mode rates of a price (US dollars per million tokens, as
 * {@link ModelPrice}'s); undefined when the table gives none for its model
 * (a fast response's cost is then unknown). They apply across the full
 * context window, a prompt over {@link LONG_CONTEXT_THRESHOLD} tokens
 * included (https://platform.claude.com/docs/en/build-with-claude/fast-mode:
 * "priced at a multiplier on standard rates across the full context window,
 * including requests over 200k input tokens").
 */
export const fastOf = (price: ModelPrice): LongContextPrice | undefined => price.fast

/** Whether a response ran in fast mode (its usage's `speed` is `"fast"`, as Claude writes it). */
export const isFast = (u: { readonly speed?: string | undefined }): boolean => u.speed === "fast"

/** The long-context rates of a price; undefined when the table gives none for its model (a long prompt's cost is then unknown). */
export const longContextOf = (price: ModelPrice): LongContextPrice | undefined => price.longContext

/**
 * The price of a 1-hour cache write (US dollars per million tokens): the
 * price's `cacheWrite1h`, else 2x its `input`. Source: Anthropic's published
 * prices (https://platform.claude.com/docs/en/about-claude/pricing, "1h
 * cache writes"): a 1-hour write costs 2x the base input price, a 5-minute
 * one 1.25x.
 */
export const cacheWrite1hPrice = (price: LongContextPrice): number => price.cacheWrite1h ?? 2 * price.input

/** Prices by model id (what the config file's `prices` key holds). */
export const ModelPrices = Schema.Record({ key: Schema.String.pipe(Schema.minLength(1)), value: ModelPrice })
export type ModelPrices = typeof ModelPrices.Type

/** The shape of `data/prices.json`. */
export const PriceFile = Schema.Struct({
  version: Schema.String,
  source: Schema.String,
  unit: Schema.Literal("USD per million tokens"),
  models: ModelPrices
})
export type PriceFile = typeof PriceFile.Type

/**
 * A price table in use: the bundled file's version and source, the models
 * priced, and which of them the configuration set (`overridden`, with the
 * file it came from, null when none).
 */
export interface PriceTable {
  readonly version: string
  readonly source: string
  readonly models: ModelPrices
  readonly overridden: ReadonlyArray<string>
  readonly overrideFile: string | null
}

/** The price table bundled with this build (`data/prices.json`), decoded. */
export const bundledPrices: PriceTable = (() => {
  const f = Schema.decodeUnknownSync(PriceFile)(bundled)
  return { version: f.version, source: f.source, models: f.models, overridden: [], overrideFile: null }
})()

/** A table with the configuration's prices laid over it: a model given there replaces (or adds) its entry. */
export const withOverrides = (table: PriceTable, prices: ModelPrices | undefined, file: string | null): PriceTable =>
  prices === undefined || Object.keys(prices).length === 0
    ? table
    : {
      ...table,
      models: { ...table.models, ...prices },
      overridden: [...new Set([...table.overridden, ...Object.keys(prices)])].sort(),
      overrideFile: file
    }

/** How a table names itself in output: `data/prices.json <version>` and its overrides, if any. */
export const describePrices = (t: PriceTable): string =>
  `data/prices.json ${t.version}${
    t.overridden.length > 0 ? ` + ${t.overridden.length} model${t.overridden.length === 1 ? "" : "s"} from ${t.overrideFile ?? "the config file"}` : ""
  }`

/** The prices of `model`, exact id; undefined when the table lacks it (or there is no model). */
export const priceOf = (t: PriceTable, model: string | null): ModelPrice | undefined =>
  model === null || !Object.prototype.hasOwnProperty.call(t.models, model) ? undefined : t.models[model]

/**
 * US dollars of `usage` at `price` (a count not reported adds nothing). The
 * cache writes are priced in two parts: `cacheWrite1hTokens` (the part the
 * source says went to the 1-hour cache; none when null) at
 * {@link cacheWrite1hPrice}, the rest at `cacheWrite` (the 5-minute rate).
 * Infinity only when the cost itself is past the largest double (a price
 * near it times a few tokens is a finite cost, not an overflow on the way).
 */
export const costAt = (price: LongContextPrice, u: TokenUsage): number => {
  const oneHour = u.cacheWriteTokens === null ? 0 : Math.min(u.cacheWrite1hTokens ?? 0, u.cacheWriteTokens)
  const fiveMinutes = u.cacheWriteTokens === null ? null : u.cacheWriteTokens - oneHour
  const kinds = [
    [u.inputTokens, price.input],
    [u.outputTokens, price.output],
    [u.cacheReadTokens, price.cacheRead],
    [fiveMinutes, price.cacheWrite],
    // 2x input as twice the tokens at the input price: the same dollars, and no price doubled past the largest double.
    price.cacheWrite1h === undefined ? [oneHour * 2, price.input] : [oneHour, price.cacheWrite1h]
  ] as const
  const cost = kinds.reduce((a, [n, p]) => a + (n ?? 0) * p, 0) / 1_000_000
  return Number.isFinite(cost) ? cost : kinds.reduce((a, [n, p]) => a + (n ?? 0) * (p / 1_000_000), 0)
}
