/** What a floor or probe child prints as its last stdout line: its own timing and peak RSS. */
export const report = (t0: number, extra: Record<string, unknown>): void => {
  const ms = performance.now() - t0
  process.stdout.write(JSON.stringify({ ms, maxRssKiB: process.resourceUsage().maxRSS, ...extra }) + "\n")
}
