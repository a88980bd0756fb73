/**
 * What a parse worker sends the main thread (`import --jobs`, issue 13): a
 * batch's prepared rows by column (`PreparedColumns`), each lean shape once
 * per message (`ShapeTable`), and the main thread's rows made again from
 * them (`preparedRowsOf`) equal to what the writer would compute itself
 * (`preparedRowOf`).
 */
import * as v8 from "node:v8"
import { describe, expect, it } from "@effect/vitest"
import type { SessionEvent } from "../../src/domain/model.js"
import { headColumnsOf, headsOf, preparedColumnsOf, preparedRowsOf, ShapeTable, StringTable } from "../../src/layers/index/parse-pool.js"
import { eventHeadOf, preparedRowOf } from "../../src/layers/index/sqlite-writer.js"

const sourceId = `sha256:${"a".repeat(64)}`

/** A muse-code-like event: `k` picks one of two shapes (a message or a tool call), with text of its own. */
const event = (k: number): SessionEvent => ({
  contractVersion: "1.0.0",
  provider: "muse-code",
  sourceId,
  sessionId: "s-1",
  eventId: `muse-seq-${k}`,
  sequence: k,
  kind: k % 2 === 0 ? "message" : "tool-call",
  role: k % 2 === 0 ? "assistant" : null,
  toolName: k % 2 === 0 ? null : "Bash",
  toolCallId: k % 2 === 0 ? null : `call-${k}`,
  model: "m-1",
  occurredAt: `2026-01-01T00:00:${String(k % 60).padStart(2, "0")}.000Z`,
  text: `text number ${k} of the session`,
  cursor: `c${k}`,
  rawReference: { locatorClass: "native-session", sequence: k, offset: k * 100 },
  extensions: { "native.muse": { record_type: "event", durability: "durable", payload_type: k % 2 === 0 ? "message" : "tool_call" } }
} as unknown as SessionEvent)

describe("parse worker answers by column", () => {
  it("the rows made again from the columns are those preparedRowOf computes, uid bytes, shape, body, words and usage", () => {
    const events = Array.from({ length: 7 }, (_, k) => event(k))
    const rows = events.map(preparedRowOf)
    const table = new ShapeTable()
    const back = preparedRowsOf(preparedColumnsOf(rows, table), table.defs)
    expect(back.length).toBe(rows.length)
    for (let i = 0; i < rows.length; i++) {
      expect(Buffer.from(back[i].uid).equals(Buffer.from(rows[i].uid))).toBe(true)
      expect({ ...back[i], uid: null }).toEqual({ ...rows[i], uid: null })
    }
    // Two kinds of event: two shapes, each entered once.
    expect(table.defs.length).toBe(2)
    expect(new Set(rows.map((r) => r.shape))).toEqual(new Set(table.defs))
  })

  it("a row stored whole (shape null) comes back null", () => {
    const row = { ...preparedRowOf(event(0)), shape: null }
    const table = new ShapeTable()
    const cols = preparedColumnsOf([row], table)
    expect(cols.shapes[0]).toBe(-1)
    expect(preparedRowsOf(cols, table.defs)[0].shape).toBeNull()
    expect(table.defs).toEqual([])
  })

  it("a message of several answers holds each shape's JSON once, and each uid in one buffer per batch", () => {
    const table = new ShapeTable()
    const answers = [0, 1, 2].map((s) => ({
      shapes: table.defs,
      prepared: preparedColumnsOf(Array.from({ length: 40 }, (_, k) => preparedRowOf(event(s * 40 + k))), table)
    }))
    const message = v8.serialize(answers)
    const def = table.defs[0]
    let count = 0
    for (let at = message.indexOf(def); at >= 0; at = message.indexOf(def, at + 1)) count++
    expect(count).toBe(1)
    const back = v8.deserialize(message) as typeof answers
    expect(back[2].shapes).toBe(back[0].shapes)
    expect(back[1].prepared.uids.byteLength).toBe(40 * 16)
    expect(preparedRowsOf(back[1].prepared, back[1].shapes)[3].shape).toBe(preparedRowOf(event(43)).shape)
  })

  it("the heads made again from the columns are the events' heads (a null role, times, cursors, sequences beyond 2^31)", () => {
    const events = Array.from({ length: 5 }, (_, k) => ({ ...event(k), ...(k === 3 ? { occurredAt: null, sequence: 2 ** 40 + 3 } : {}) } as SessionEvent))
    const heads = events.map(eventHeadOf)
    const table = new StringTable()
    expect(headsOf(headColumnsOf(heads, table), table.defs)).toEqual(heads)
    expect(heads[1].role).toBeNull()
  })

  it("a message of several answers holds each repeated head word (the source id) once", () => {
    const table = new StringTable()
    const answers = [0, 1].map((s) => ({
      words: table.defs,
      events: headColumnsOf(Array.from({ length: 40 }, (_, k) => eventHeadOf(event(s * 40 + k))), table)
    }))
    const message = v8.serialize(answers)
    let count = 0
    for (let at = message.indexOf(sourceId); at >= 0; at = message.indexOf(sourceId, at + 1)) count++
    expect(count).toBe(1)
    const back = v8.deserialize(message) as typeof answers
    expect(headsOf(back[1].events, back[1].words)[7]).toEqual(eventHeadOf(event(47)))
  })

  it("a uid that is not 16 bytes is refused (a row would otherwise take its neighbour's bytes)", () => {
    const row = { ...preparedRowOf(event(0)), uid: new Uint8Array(12) }
    expect(() => preparedColumnsOf([row], new ShapeTable())).toThrow(/16/)
  })
})
