/**
 * Which of a fixed set of literal substrings ("needles") a string holds,
 * found in one pass over its characters: the prefilter of the redaction
 * (`textRedactor` in `./rules.ts`), which asks, for every string leaf of an
 * output, whether any rule's hints are there and which ones.
 *
 * Each needle is looked for at one pair of neighbouring characters in it,
 * its anchor: the pair least common in text (punctuation and capitals
 * before lower-case letters, rarer letters before common ones; a needle of
 * one character at that character), so a pass over prose does little more
 * than read each character once and look its pair up in a table. At each
 * occurrence of an anchor the needles anchored there are compared in place.
 * Characters are looked up by their low byte (a character outside ASCII
 * shares its entry with the others of that low byte: at worst a comparison
 * that fails), so the loop has no branch but the table's answer; a needle
 * may hold any characters (session 26: the words for a password in Russian,
 * Japanese or Chinese), each anchored at the low bytes of its pair. Pure:
 * no I/O; a scanner keeps only the answer of its last scan.
 *
 * @module
 */

/**
 * How common an ASCII character is in the text redaction sees (prose, code,
 * shell output, JSON text), from most to least common; characters not listed
 * are the rarest. Only the order matters: a needle is anchored at its pair
 * of characters whose places here add up to the most.
 */
const COMMON =
  " etaoinsrhldcumpfgywb.,-/_:\"=()vk0123456789\nxSTACIEjqzRPDNMLOFBHG{}[]>';<*#+$|\\KUWVYJXQZ@`~%^&!?"

/** A character's rarity: of its low byte, the table's key (a character outside ASCII is as rare as its low byte's ASCII one, or the rarest). */
const rarity = (code: number): number => {
  const low = code & 0xff
  const i = low < 128 ? COMMON.indexOf(String.fromCharCode(low)) : -1
  return i < 0 ? COMMON.length : i
}

/** A scanner of a set of needles (see the module's doc). */
export interface NeedleScanner {
  /** The needles, in the order given (their indexes are those of {@link NeedleScanner.has}). */
  readonly needles: ReadonlyArray<string>
  /** Scans `s`: true when it holds at least one needle. Afterwards {@link NeedleScanner.has} tells which. */
  readonly scan: (s: string) => boolean
  /** Whether the string of the last {@link NeedleScanner.scan} holds needle `i`. */
  readonly has: (i: number) => boolean
  /** How many distinct needles the string of the last {@link NeedleScanner.scan} holds (see {@link NeedleScanner.foundAt}). */
  readonly foundCount: () => number
  /** The index of the `j`-th needle (in the order first found, `j < foundCount()`) the last scanned string holds. */
  readonly foundAt: (j: number) => number
  /**
   * Whether the string of the last {@link NeedleScanner.scan} holds one of the scanner's flagged characters (the
   * `flagged` of {@link needleScanner}; false without them). A flagged character alone makes `scan` return false.
   */
  readonly flagged: () => boolean
}

/**
 * A scanner of `needles`: non-empty strings of any UTF-16 code units (throws on an empty one: a
 * programming error, the rule tables are constants). Duplicates are allowed
 * (each index answers for its own). `flagged`: characters (any UTF-16 code
 * units) the same pass looks for too ({@link NeedleScanner.flagged}: the
 * redaction's view test, `./views.ts`, without a second pass of its own).
 */
export const needleScanner = (needles: ReadonlyArray<string>, flagged = ""): NeedleScanner => {
  const count = needles.length
  const lengths = new Int32Array(count)
  const codes: Array<Int32Array> = []
  // Entries by anchor: a needle of one character is anchored at it (key: its low byte); a longer one at its
  // least common pair of neighbouring characters (key: 256 + first's low byte * 256 + second's), `at` the pair's offset.
  const byKey = new Map<number, Array<readonly [number, number]>>()
  for (let k = 0; k < count; k++) {
    const n = needles[k]
    if (n.length === 0) throw new Error("needleScanner: a needle is empty")
    lengths[k] = n.length
    codes.push(Int32Array.from({ length: n.length }, (_, i) => n.charCodeAt(i)))
    let key = n.charCodeAt(0) & 0xff
    let at = 0
    if (n.length > 1) {
      for (let i = 1; i + 1 < n.length; i++) {
        if (rarity(n.charCodeAt(i)) + rarity(n.charCodeAt(i + 1)) > rarity(n.charCodeAt(at)) + rarity(n.charCodeAt(at + 1))) at = i
      }
      key = 256 + (n.charCodeAt(at) & 0xff) * 256 + (n.charCodeAt(at + 1) & 0xff)
    }
    const list = byKey.get(key) ?? []
    list.push([k, at])
    byKey.set(key, list)
  }
  // flattened: the entries of key x are needleOf/offsetOf[first[x] .. first[x + 1])
  const keys = 256 + 256 * 256
  const first = new Int32Array(keys + 1)
  const entryNeedle: Array<number> = []
  const entryOffset: Array<number> = []
  for (let x = 0; x < keys; x++) {
    first[x] = entryNeedle.length
    for (const [k, at] of byKey.get(x) ?? []) {
      entryNeedle.push(k)
      entryOffset.push(at)
    }
  }
  first[keys] = entryNeedle.length
  const needleOf = Int32Array.from(entryNeedle)
  const offsetOf = Int32Array.from(entryOffset)
  // What a character may end, given its low byte c and the low byte p of the character before it (0 at the
  // start): table[p * 256 + c] holds 1 when some needle is a single character of low byte c, 2 when some needle
  // is anchored at a pair of low bytes (p, c). Characters sharing a low byte share its entries: a wasted
  // comparison (the needle is compared whole), never a missed needle, and no branch in the loop.
  const table = new Uint8Array(256 * 256)
  for (let x = 0; x < keys; x++) {
    if (first[x + 1] === first[x]) continue
    if (x < 256) for (let p = 0; p < 256; p++) table[p * 256 + x] |= 1
    else table[x - 256] |= 2
  }
  // 4: the low byte of a flagged character (then compared whole)
  const flags = Int32Array.from(flagged, (c) => c.charCodeAt(0))
  for (const f of flags) for (let p = 0; p < 256; p++) table[p * 256 + (f & 0xff)] |= 4

  // found[k] === generation: needle k is in the last string scanned (no clearing between scans)
  const found = new Int32Array(count).fill(-1)
  // the needles found by the last scan, in the order found
  const foundList = new Int32Array(count)
  let foundN = 0
  let generation = 0
  let any = false
  let flag = false

  /** The needles of key `x` that start at `i - offset` in `s`, marked found. */
  const check = (s: string, x: number, i: number, gen: number): void => {
    const end = first[x + 1]
    for (let e = first[x]; e < end; e++) {
      const k = needleOf[e]
      if (found[k] === gen) continue
      const start = i - offsetOf[e]
      const len = lengths[k]
      if (start < 0 || start + len > s.length) continue
      const code = codes[k]
      let j = 0
      while (j < len && s.charCodeAt(start + j) === code[j]) j++
      if (j === len) {
        found[k] = gen
        foundList[foundN++] = k
        any = true
      }
    }
  }

  const scan = (s: string): boolean => {
    if (generation === 0x7fffffff) {
      found.fill(-1)
      generation = 0
    }
    const gen = ++generation
    any = false
    flag = false
    foundN = 0
    const n = s.length
    // the low byte of the character before, times 256
    let prev = 0
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i) & 0xff
      const what = table[prev | c]
      if (what !== 0) {
        if ((what & 1) !== 0) check(s, c, i, gen)
        if ((what & 2) !== 0) check(s, 256 + prev + c, i - 1, gen)
        if ((what & 4) !== 0 && !flag) flag = flags.includes(s.charCodeAt(i))
      }
      prev = c << 8
    }
    return any
  }

  return {
    needles,
    scan,
    has: (i) => found[i] === generation,
    foundCount: () => foundN,
    foundAt: (j) => foundList[j],
    flagged: () => flag
  }
}
