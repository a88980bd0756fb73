/**
 * Findings of tester35b on the Muse Code provider (session 35): fields this
 * build does not know are kept under `extensions["native.muse"].unknownFields`
 * (F1: DESIGN "provenance is never dropped"); an export event of an unknown
 * kind is MALFORMED_SOURCE, not a gap marker (F2: seed 001, gap markers are
 * the null-envelope events, `kind` "gap" or none); a sequence running
 * backwards in an export is counted (F3: seed 001, "ordered events"); a
 * sequence beyond 2^53 - 1 is named as not a safe integer, with the source's
 * digits (F4).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Either from "effect/Either"
import { decodeExport } from "../../src/domain/muse-code/export.js"
import { SEQUENCE_DECREASES } from "../../src/domain/muse-code/record-names.js"
import { peerMuseCode, tempDir } from "../support/paths.js"
import { cli } from "../support/run.js"

const peerDir = peerMuseCode
const load = (name: string) => JSON.parse(fs.readFileSync(path.join(peerDir, name), "utf8"))
const decode = (doc: unknown) =>
  decodeExport(new TextEncoder().encode(typeof doc === "string" ? doc : JSON.stringify(doc)), { sourceId: "sha256:x", digest: "d", maxDepth: 64 })
const native = (e: { readonly extensions: Record<string, unknown> }) => e.extensions["native.muse"] as Record<string, unknown>

describe("F1: unknown fields of a Muse Code record are kept under unknownFields", () => {
  it("export: an envelope field, a stream field and an event field ride as in the source", () => {
    const d = load("multistream-v1.json")
    d.events[0].envelope.envelope_extra = { k: "ENVEXTRA", n: [1, 2] }
    d.events[0].envelope.stream.extra = "STREAMEXTRA"
    d.events[0].extra_top = "EVTEXTRA"
    const r = decode(d)
    if (Either.isLeft(r)) throw new Error(r.left.message)
    expect(native(r.right.events[0]).unknownFields).toEqual({
      envelope: { envelope_extra: { k: "ENVEXTRA", n: [1, 2] } },
      stream: { extra: "STREAMEXTRA" },
      event: { extra_top: "EVTEXTRA" }
    })
    // the other events hold known fields only: no key added
    expect("unknownFields" in native(r.right.events[1])).toBe(false)
  })

  it("export: a record of known fields only is mapped exactly as before (no unknownFields key)", () => {
    const r = decode(load("valid-v1.json"))
    if (Either.isLeft(r)) throw new Error(r.left.message)
    expect(r.right.events.every((e) => !("unknownFields" in native(e)))).toBe(true)
  })

  it("export: a real Muse Code 1.4.0 export (the exporter's derived, recorded_at and outer_log_ordinal beside each event) gains no unknownFields", () => {
    const r = decode(load("live-1.4.0-v1.json"))
    if (Either.isLeft(r)) throw new Error(r.left.message)
    expect(r.right.events.length).toBe(11)
    expect(r.right.events.filter((e) => "unknownFields" in native(e))).toEqual([])
  })

  it("a __proto__ field is kept as a field, no prototype set", () => {
    const d = load("valid-v1.json")
    const text = JSON.stringify(d).replace('"sequence":0', '"__proto__":{"polluted":1},"sequence":0')
    const r = decode(text)
    if (Either.isLeft(r)) throw new Error(r.left.message)
    const u = native(r.right.events[0]).unknownFields as { envelope: Record<string, unknown> }
    expect(Object.getPrototypeOf(u.envelope)).toBe(Object.prototype)
    expect(JSON.stringify(u)).toBe('{"envelope":{"__proto__":{"polluted":1}}}')
  })

  it("native log: an envelope field, a stream field and a retained child's field reach the stream", () => {
    const sid = "00000000-0000-4000-8000-000000000002"
    const dir = tempDir("si-35b-f1-")
    const folder = path.join(dir, "root", "2026", "09", "25", sid)
    fs.mkdirSync(folder, { recursive: true })
    const lines = fs.readFileSync(path.join(peerDir, "native", "2026", "09", "25", sid, "session.jsonl"), "utf8").split("\n").filter((l) => l.length > 0)
    const r1 = JSON.parse(lines[1])
    r1.envelope_extra = { k: "ENVEXTRA" }
    r1.stream.extra = "STREAMEXTRA"
    lines[1] = JSON.stringify(r1)
    const frame = JSON.parse(lines[0])
    const child = JSON.parse(frame.children[0].record_json)
    child.child_extra = "CHILDEXTRA"
    frame.children[0].record_json = JSON.stringify(child)
    lines[0] = JSON.stringify(frame)
    const file = path.join(folder, "session.jsonl")
    fs.writeFileSync(file, lines.join("\n") + "\n")
    const r = cli(["stream", "muse-code", "--muse-root", path.join(dir, "root"), file])
    expect(r.code, r.stderr).toBe(0)
    const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l))
    const kept = events.map((e) => native(e).unknownFields).filter((u) => u !== undefined)
    expect(kept).toEqual([{ envelope: { child_extra: "CHILDEXTRA" } }, { envelope: { envelope_extra: { k: "ENVEXTRA" } }, stream: { extra: "STREAMEXTRA" } }])
  })
})

describe("F2: an export event of an unknown kind is MALFORMED_SOURCE, not a gap marker", () => {
  it("kind mystery with a null envelope is refused, naming the kind", () => {
    const d = load("valid-v1.json")
    d.events.splice(2, 0, { kind: "mystery", envelope: null, payload: "something this build does not know" })
    const r = decode(d)
    expect(Either.isLeft(r)).toBe(true)
    if (Either.isRight(r)) return
    expect(r.left.code).toBe("MALFORMED_SOURCE")
    expect(r.left.message).toContain('events[2] is of kind "mystery"')
  })

  it("gap markers of kind gap (peer fixture) and with no kind (seed 001: the null envelope) are skipped and counted", () => {
    const d = load("multistream-v1.json")
    const gaps = d.events.filter((e: any) => e.envelope === null).length
    expect(gaps).toBeGreaterThan(0)
    const r = decode(d)
    if (Either.isLeft(r)) throw new Error(r.left.message)
    expect(r.right.gapMarkers).toBe(gaps)
    d.events.push({ envelope: null, marker: "omitted_live_only" })
    const r2 = decode(d)
    if (Either.isLeft(r2)) throw new Error(r2.left.message)
    expect(r2.right.gapMarkers).toBe(gaps + 1)
  })

  it("the CLI: inspect exits 5 with MALFORMED_SOURCE", () => {
    const dir = tempDir("si-35b-f2-")
    const d = load("valid-v1.json")
    d.events.splice(2, 0, { kind: "mystery", envelope: null })
    fs.writeFileSync(path.join(dir, "x.json"), JSON.stringify(d))
    const r = cli(["inspect", "muse-code", "--workspace", dir, path.join(dir, "x.json")])
    expect(r.code).toBe(5)
    expect(r.stderr + r.stdout).toContain("MALFORMED_SOURCE")
    expect(r.stderr + r.stdout).not.toContain("GAP_MARKERS_SKIPPED")
  })
})

describe("F3: an export whose envelope sequences decrease is counted, kept in document order", () => {
  it("valid-v1.json reversed: 12 of its 13 records come after a larger sequence; the first is events[1]", () => {
    const d = load("valid-v1.json")
    d.events.reverse()
    const r = decode(d)
    if (Either.isLeft(r)) throw new Error(r.left.message)
    expect(r.right.sequenceDecreases).toBe(12)
    expect(r.right.firstDecrease).toEqual({ event: 1, sessionId: r.right.events[0].sessionId, sequence: 11, after: 12 })
    // not reordered
    expect(r.right.events[0].eventId).toBe("muse-seq-12")
    expect(r.right.events[0].sequence).toBe(0)
  })

  it("an ordered export counts none; the CLI's inspect names the code", () => {
    const r = decode(load("valid-v1.json"))
    if (Either.isLeft(r)) throw new Error(r.left.message)
    expect(r.right.sequenceDecreases).toBe(0)
    const dir = tempDir("si-35b-f3-")
    const d = load("valid-v1.json")
    d.events.reverse()
    fs.writeFileSync(path.join(dir, "x.json"), JSON.stringify(d))
    const i = cli(["inspect", "muse-code", "--workspace", dir, path.join(dir, "x.json"), "--json"])
    expect(i.code, i.stderr).toBe(0)
    const diags = JSON.parse(i.stdout.trim().split("\n").pop()!).data.diagnostics as Array<{ code: string; details: any }>
    expect(diags.find((x) => x.code === SEQUENCE_DECREASES)?.details.count).toBe(12)
  })
})

describe("F4: a sequence beyond 2^53 - 1 is not a safe integer, told with the source's digits", () => {
  it("export", () => {
    const text = JSON.stringify(load("valid-v1.json")).replace('"sequence":0', '"sequence":1152921504606846976')
    const r = decode(text)
    expect(Either.isLeft(r)).toBe(true)
    if (Either.isRight(r)) return
    expect(r.left.code).toBe("MALFORMED_SOURCE")
    expect(r.left.message).toContain("Expected a safe integer")
    expect(r.left.message).toContain("the source writes 1152921504606846976")
    expect(r.left.message).not.toContain("Expected an integer")
  })

  it("native log, through the CLI: exit 5", () => {
    const sid = "00000000-0000-4000-8000-000000000002"
    const dir = tempDir("si-35b-f4-")
    const folder = path.join(dir, "root", "2026", "09", "25", sid)
    fs.mkdirSync(folder, { recursive: true })
    const file = path.join(folder, "session.jsonl")
    fs.writeFileSync(
      file,
      `{"schema_version": 1, "id": "a", "stream": {"kind": "session", "id": "${sid}"}, "sequence": 1152921504606846976, "recorded_at": 1790349241254814, "record_type": "event", "durability": "durable", "causation_id": null, "payload_type": "runtime.session", "payload_schema_version": 1, "payload": {}}\n`
    )
    const r = cli(["inspect", "muse-code", "--muse-root", path.join(dir, "root"), file])
    expect(r.code).toBe(5)
    expect(r.stderr + r.stdout).toContain("Expected a safe integer")
    expect(r.stderr + r.stdout).toContain("the source writes 1152921504606846976")
  })
})
