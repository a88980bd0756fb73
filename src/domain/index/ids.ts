/**
 * Stable ids of the index: derived from provider, source and native ids only,
 * so importing the same thing twice yields the same ids and inserts nothing
 * (issue "The index", "Stable ids").
 *
 * @module
 */
import type { Locator, ProviderId } from "../model.js"
import { sha256Bytes, sha256Hex } from "../source-id.js"

const join = (parts: ReadonlyArray<string>) => parts.join("\u0000")

/** How a {@link sessionUid} starts. */
export const SESSION_UID_PREFIX = "ses_"

/**
 * `ses_` + 32 hex: a session of one source (provider, source id, native
 * session id). `machine`: the machine the source was read on, in an index
 * that holds several machines' sources (PostgreSQL): the same file on two
 * machines holds two sessions. Without it (SQLite, one machine's index), the
 * ids of earlier builds.
 */
export const sessionUid = (provider: string, sourceId: string, sessionId: string, machine?: string): string =>
  `${SESSION_UID_PREFIX}${sha256Hex(join([...machinePart(machine), provider, sourceId, sessionId])).slice(0, 32)}`

/** `evt_` + 32 hex: an event of one session of one source (…, native event id); `machine` as for {@link sessionUid}. */
export const eventUid = (provider: string, sourceId: string, sessionId: string, eventId: string, machine?: string): string =>
  `evt_${sha256Hex(join([...machinePart(machine), provider, sourceId, sessionId, eventId])).slice(0, 32)}`

/**
 * The 16 bytes an {@link eventUid} stands for (its 32 hex digits), made
 * without the hex text: the same value, as the index stores it.
 */
export const eventUidBytes = (provider: string, sourceId: string, sessionId: string, eventId: string): Buffer =>
  sha256Bytes(`${provider}\u0000${sourceId}\u0000${sessionId}\u0000${eventId}`).subarray(0, 16)

/**
 * {@link eventUidBytes} written into `into` at byte `at` (16 bytes): the same
 * value, without a `Buffer` view made per event (a parse worker writes a
 * batch's uids into one buffer; issue 13, first import).
 */
export const eventUidInto = (into: Uint8Array, at: number, provider: string, sourceId: string, sessionId: string, eventId: string): void => {
  const digest = sha256Bytes(`${provider}\u0000${sourceId}\u0000${sessionId}\u0000${eventId}`)
  for (let i = 0; i < 16; i++) into[at + i] = digest[i]
}

/**
 * The key a source's checkpoint is kept under: provider, locator class, path
 * (as resolved by the importer) and selectors, and, in an index shared by
 * several machines (PostgreSQL), the machine the path is on. Known before the
 * source is read.
 *
 * Why SQLite's keys carry no machine: a SQLite index is one machine's own
 * file, so every source in it is on that machine, and its keys (those of
 * earlier builds) stay valid as they are: an existing index keeps its
 * checkpoints and is never re-imported or re-keyed. Keying it by host name
 * would also re-import everything after a host rename. The machine matters
 * only where indexes meet: a shared PostgreSQL index (where `push` names the
 * machine a SQLite index was filled on).
 */
export const sourceKey = (provider: ProviderId, locator: Locator, machine?: string): string =>
  `src_${
    sha256Hex(join([...machinePart(machine), provider, locator.locatorClass, locator.path, locator.agentId ?? "", locator.sessionId ?? ""]))
      .slice(0, 32)
  }`

/** The machine's part of an id: none for a one-machine index; a tagged part otherwise (so no machine name can pass for a provider). */
const machinePart = (machine: string | undefined): ReadonlyArray<string> => (machine === undefined ? [] : [`machine:${machine}`])
