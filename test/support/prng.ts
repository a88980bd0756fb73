/**
 * mulberry32: floats in [0, 1) from a 32-bit seed, the same sequence for the
 * same seed (the property tests' cases and the bench's generated inputs).
 */
export const mulberry32 = (seed: number): (() => number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * A small seeded PRNG (mulberry32) for property tests: the same seed gives the
 * same cases on every run, so a failure can be replayed.
 *
 * - `next()`: a float in [0, 1);
 * - `int(n)`: an integer in [0, n);
 * - `pick(xs)`: one element of a non-empty array.
 */
export const prng = (seed: number) => {
  const next = mulberry32(seed)
  const int = (n: number) => Math.floor(next() * n)
  return { next, int, pick: <A>(xs: ReadonlyArray<A>): A => xs[int(xs.length)] }
}
