/**
 * Long unbroken runs of text cut for layout, so that a browser lays the
 * replay out in time linear in the text's length.
 *
 * Chromium shapes a run between two line-break opportunities as one piece:
 * with a font that kerns (system-ui, DejaVu Sans) or a script that joins
 * (Arabic), breaking such a run across lines reshapes what is left of it at
 * every line, so a 250 KB word took 38 s to lay out and 1 MB minutes. A run
 * of more than {@link LONG_RUN} characters without a space, tab or line feed
 * is therefore cut into pieces of about {@link RUN_PIECE} characters, which
 * the page separates with `<wbr>` (a break opportunity that adds no
 * character: the text, its copy and `textContent` stay what they were).
 * A cut never splits a surrogate pair, never falls before a combining mark,
 * variation selector or ZWJ, nor after a ZWJ (it moves on by at most 8 code
 * units for that, then cuts there unless inside a surrogate pair). Text without such a run stays one piece.
 *
 * {@link longRunPieces} (the header, written by `./render.ts`) and the
 * page's script ({@link PIECES_JS}, for every text it shows) cut alike.
 *
 * @module
 */

/** Runs longer than this (UTF-16 code units without a space, tab, CR, LF, FF, ZWSP or U+3000) are cut. */
export const LONG_RUN = 200

/** The length of the pieces a long run is cut into (UTF-16 code units; the last piece of a run may be longer, up to 8 more). */
export const RUN_PIECE = 32

/**
 * The page script's `pieces(s)`: `s` as an array of strings whose
 * concatenation is `s`, cut inside its runs longer than {@link LONG_RUN}
 * (see the module doc). One pass over `s`; each code unit is looked at a
 * bounded number of times.
 */
export const PIECES_JS = String.raw`
  var LONG_RUN = ${LONG_RUN}, RUN_PIECE = ${RUN_PIECE};
  var JOINS = /^[\p{M}\u200c\u200d]/u;
  /** Whether a cut may fall before index 'at' of 's'. */
  function cutsAt(s, at) {
    var c = s.charCodeAt(at), p = s.charCodeAt(at - 1);
    if (c >= 0xdc00 && c <= 0xdfff) return false;
    if (p === 0x200d) return false;
    return !JOINS.test(s.slice(at, at + 2));
  }
  function pieces(s) {
    var out = [], from = 0, start = 0, n = s.length;
    for (var i = 0; i <= n; i++) {
      var c = i < n ? s.charCodeAt(i) : 32;
      if (c !== 32 && c !== 10 && c !== 9 && c !== 13 && c !== 12 && c !== 0x200b && c !== 0x3000) continue;
      if (i - start > LONG_RUN) {
        var at = start + RUN_PIECE;
        while (at < i) {
          var k = 0;
          while (at < i && k < 8 && !cutsAt(s, at)) { at++; k++; }
          if (at < i && s.charCodeAt(at) >= 0xdc00 && s.charCodeAt(at) <= 0xdfff) at++;
          if (at >= i) break;
          out.push(s.slice(from, at));
          from = at;
          at += RUN_PIECE;
        }
      }
      start = i + 1;
    }
    out.push(s.slice(from));
    return out;
  }
`

const JOINS = /^[\p{M}\u200c\u200d]/u

const cutsAt = (s: string, at: number): boolean => {
  const c = s.charCodeAt(at)
  if (c >= 0xdc00 && c <= 0xdfff) return false
  if (s.charCodeAt(at - 1) === 0x200d) return false
  return !JOINS.test(s.slice(at, at + 2))
}

const BREAKS = new Set([32, 10, 9, 13, 12, 0x200b, 0x3000])

/**
 * `text` as pieces whose concatenation is `text`, cut inside its runs
 * longer than {@link LONG_RUN} into pieces of about {@link RUN_PIECE} (see
 * the module doc); `[text]` when it has no such run. Linear in `text`'s
 * length. The page's script cuts the same way ({@link PIECES_JS}).
 */
export const longRunPieces = (text: string): Array<string> => {
  const out: Array<string> = []
  let from = 0
  let start = 0
  const n = text.length
  for (let i = 0; i <= n; i++) {
    if (i < n && !BREAKS.has(text.charCodeAt(i))) continue
    if (i - start > LONG_RUN) {
      let at = start + RUN_PIECE
      while (at < i) {
        let k = 0
        while (at < i && k < 8 && !cutsAt(text, at)) {
          at++
          k++
        }
        if (at < i && text.charCodeAt(at) >= 0xdc00 && text.charCodeAt(at) <= 0xdfff) at++
        if (at >= i) break
        out.push(text.slice(from, at))
        from = at
        at += RUN_PIECE
      }
    }
    start = i + 1
  }
  out.push(text.slice(from))
  return out
}
