/**
 * Stable ids of the index: derived from provider, source and native ids only,
 * so importing the same thing twice yields the same ids and inserts nothing
 * (issue "The index", "Stable ids").
 *
 * @module
 */
import type { Locator, ProviderId } from "../model.js"
import { sha256Hex } from "../source-id.js"

const join = (parts: ReadonlyArray<string>) => parts.join("\u0000")

/** `ses_` + 32 hex: a session of one source (provider, source id, native session id). */
export const sessionUid = (provider: string, sourceId: string, sessionId: string): string =>
  `ses_${sha256Hex(join([provider, sourceId, sessionId])).slice(0, 32)}`

/** `evt_` + 32 hex: an event of one session of one source (…, native event id). */
export const eventUid = (provider: string, sourceId: string, sessionId: string, eventId: string): string =>
  `evt_${sha256Hex(join([provider, sourceId, sessionId, eventId])).slice(0, 32)}`

/**
 * The key a source's checkpoint is kept under: provider, locator class, path
 * (as resolved by the importer) and selectors. Known before the source is read.
 */
export const sourceKey = (provider: ProviderId, locator: Locator): string =>
  `src_${sha256Hex(join([provider, locator.locatorClass, locator.path, locator.agentId ?? "", locator.sessionId ?? ""])).slice(0, 32)}`
