/**
 * tester39 F11: `usage --by workspace` cut a redacted workspace to its cell inside a redaction marker
 * (`…CTED:github-token]/[REDACTED:email]/app`): half a marker reads as content. A cell is cut as shown, never inside
 * an escape or a surrogate pair (docs/cli-output.md), and never inside a `[REDACTED:rule]` marker: the marker is kept
 * whole or left out, the cell within its width.
 */
import { describe, expect, it } from "vitest"
import { NAME_CELL_MAX, shownName } from "../src/domain/render.js"

const MARKERS = /\[REDACTED:[^\]]*\]/g
/** Whether every `[REDACTED:` of `cell` is a whole marker, and no marker's tail (`…CTED:x]`) is left. */
const wholeMarkers = (cell: string): boolean => {
  const rest = cell.replace(MARKERS, "")
  return !rest.includes("[REDACTED") && !/[A-Z]*:[a-z-]+\]/.test(rest) && !rest.includes("]")
}

describe("a name cut to its cell never splits a redaction marker (tester39 F11)", () => {
  it("the tester's workspace, kept at its end, at every width", () => {
    const ws = "/srv/[REDACTED:github-token]/[REDACTED:email]/app"
    expect(shownName(ws, NAME_CELL_MAX, "end")).toBe("…/[REDACTED:email]/app")
    for (let max = 5; max <= ws.length; max++) {
      const cell = shownName(ws, max, "end")
      expect(cell.length, `${max}: ${cell}`).toBeLessThanOrEqual(max)
      expect(wholeMarkers(cell), `${max}: ${cell}`).toBe(true)
      expect(ws.endsWith(cell.slice(1)), `${max}: ${cell}`).toBe(true)
    }
  })

  it("kept at its start, at every width", () => {
    const ws = "[REDACTED:aws-access-key] and [REDACTED:password-prose] tail"
    expect(shownName(ws, 30, "start")).toBe("[REDACTED:aws-access-key] and…")
    for (let max = 3; max <= ws.length; max++) {
      const cell = shownName(ws, max, "start")
      expect(cell.length, `${max}: ${cell}`).toBeLessThanOrEqual(max)
      expect(wholeMarkers(cell), `${max}: ${cell}`).toBe(true)
      expect(ws.startsWith(cell.slice(0, -1)), `${max}: ${cell}`).toBe(true)
    }
  })

  it("a quoted name (one that holds a line feed) likewise, at either end", () => {
    const ws = "/srv/[REDACTED:github-token]\n/[REDACTED:email]/app"
    for (let max = 6; max <= 60; max++) {
      for (const keep of ["start", "end"] as const) {
        const cell = shownName(ws, max, keep)
        expect(cell.length, `${keep} ${max}: ${cell}`).toBeLessThanOrEqual(max)
        expect(cell.startsWith("\""), `${keep} ${max}: ${cell}`).toBe(true)
        expect(wholeMarkers(cell), `${keep} ${max}: ${cell}`).toBe(true)
      }
    }
  })
})
