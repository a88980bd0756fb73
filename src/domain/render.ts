/**
 * Plain-text and Markdown renderings of a {@link Transcript}, for people.
 *
 * @module
 */
import type { Transcript, TranscriptBlock } from "./model.js"

const fence = (s: string): string => {
  const ticks = s.includes("```") ? "````" : "```"
  return `${ticks}\n${s}\n${ticks}`
}

const blockMarkdown = (b: TranscriptBlock): string => {
  switch (b.type) {
    case "text":
      return b.text
    case "thinking":
      return `<details><summary>thinking</summary>\n\n${b.text}\n\n</details>`
    case "tool_use": {
      const head = `**tool** \`${b.name}\`${b.isError === true ? " (error)" : ""}`
      const input = fence(JSON.stringify(b.input, null, 2))
      const result = b.result !== undefined ? `\n\nresult:\n\n${fence(b.result)}` : ""
      return `${head}\n\n${input}${result}`
    }
  }
}

/** Markdown: a heading per turn (role and time), blocks below it; compactions, parse warnings and diagnostics at the end. */
export const renderTranscriptMarkdown = (t: Transcript): string => {
  const out: Array<string> = [`# ${t.title ?? t.sessionId}`, ""]
  out.push(`- session: \`${t.sessionId}\``)
  if (t.model !== null) out.push(`- model: ${t.model}`)
  if (t.startedAt !== null) out.push(`- started: ${t.startedAt}`)
  if (t.endedAt !== null) out.push(`- ended: ${t.endedAt}`)
  out.push("")
  for (const turn of t.turns) {
    out.push(`## ${turn.role}${turn.timestamp !== null ? ` · ${turn.timestamp}` : ""}`, "")
    for (const b of turn.blocks) out.push(blockMarkdown(b), "")
  }
  if (t.compactions.length > 0) {
    out.push("## compactions", "", ...t.compactions.map((c) => `- ${c.id} (${c.trigger ?? "?"}) ${c.timestamp ?? ""}`), "")
  }
  if (t.parseWarnings.length > 0) {
    out.push("## parse warnings", "", ...t.parseWarnings.map((w) => `- ${w.kind}: ${w.count} (first at line ${w.firstLine ?? "?"})`), "")
  }
  if (t.diagnostics.length > 0) {
    out.push("## diagnostics", "", ...t.diagnostics.map((d) => `- ${d.kind}: ${d.count}${d.firstLine !== null ? ` (first at line ${d.firstLine})` : ""}`), "")
  }
  return out.join("\n")
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + "…" : s)

/** Plain text: one paragraph per turn, tool calls on one line each. */
export const renderTranscriptText = (t: Transcript): string => {
  const out: Array<string> = [`${t.title ?? t.sessionId}  [${t.sessionId}]`]
  for (const turn of t.turns) {
    out.push("", `${turn.role}${turn.timestamp !== null ? ` @ ${turn.timestamp}` : ""}:`)
    for (const b of turn.blocks) {
      if (b.type === "text") out.push(`  ${b.text.replace(/\n/g, "\n  ")}`)
      else if (b.type === "thinking") out.push(`  (thinking) ${clip(b.text.replace(/\s+/g, " "), 200)}`)
      else {
        out.push(`  [${b.name}] ${clip(JSON.stringify(b.input), 200)}${b.isError === true ? "  ✗ error" : ""}`)
        if (b.result !== undefined) out.push(`    → ${clip(b.result.replace(/\s+/g, " "), 200)}`)
      }
    }
  }
  if (t.compactions.length > 0) out.push("", `compactions: ${t.compactions.length}`)
  for (const w of t.parseWarnings) out.push(`warning: ${w.kind} × ${w.count} (first at line ${w.firstLine ?? "?"})`)
  for (const d of t.diagnostics) out.push(`note: ${d.kind} × ${d.count}${d.firstLine !== null ? ` (first at line ${d.firstLine})` : ""}`)
  return out.join("\n") + "\n"
}
