/**
 * The CLI's help text, rendered from @effect/cli's own descriptions of the
 * commands (`Command.getUsage`, `Command.getHelp`) by a renderer of ours:
 * optional options in `[brackets]` (repeatable ones `[--opt V]...`), usage
 * lines wrapped to the terminal's width (80 columns when stdout is not a
 * terminal), no built-in options that do nothing for this CLI (`--wizard`,
 * `--log-level`, `--completions`), and none of @effect/cli's filler
 * paragraphs ("A user-defined piece of text.", "This setting is optional.").
 * Colour (bold headings) only on a terminal without `NO_COLOR`.
 *
 * Loaded on the help path: only the command definitions and this module,
 * nothing of the library (bench figure (d)).
 *
 * @module
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"
import type * as Usage from "@effect/cli/Usage"
import * as Option from "effect/Option"

/** How help is laid out: the line width and whether headings may be bold. */
export interface HelpStyle {
  readonly width: number
  readonly color: boolean
}

/** The widest help is laid out: {@link HELP_WIDTH} columns, as most CLIs' help. */
export const HELP_WIDTH = 80

/**
 * The style for stdout: {@link HELP_WIDTH} columns, or a narrower terminal's
 * width (at least 40); colour on a terminal without `NO_COLOR`, or anywhere
 * with `FORCE_COLOR` (set and not `0`). The help of every command in both
 * colourings at 80 columns is rendered at build time (`dist/help.json`, see
 * `bin/help-cache.mjs`), so `--help` does not load the CLI at all.
 */
export const stdoutStyle = (): HelpStyle => {
  const tty = process.stdout.isTTY === true
  const force = (process.env.FORCE_COLOR ?? "") !== "" && process.env.FORCE_COLOR !== "0"
  return {
    width: tty && typeof process.stdout.columns === "number" && process.stdout.columns > 0
      ? Math.max(40, Math.min(HELP_WIDTH, process.stdout.columns))
      : HELP_WIDTH,
    color: force || (tty && (process.env.NO_COLOR ?? "") === "")
  }
}

// Any command with any options: the help renderer only reads their descriptions.
type AnyCommand = Command.Command<any, any, any, any>

/** Paragraphs @effect/cli adds to every option and argument that say nothing the usage line does not. */
const filler = (text: string): boolean =>
  text === "A user-defined piece of text." ||
  text === "A user-defined piece of text that is confidential." ||
  text === "A true or false value." ||
  text === "An integer." ||
  text === "A floating point number." ||
  text.startsWith("This setting is optional.") ||
  text.startsWith("This option may be repeated") ||
  text.startsWith("This argument may be repeated") ||
  text.startsWith("One of the following: ")

const spanText = (s: Span.Span): string => {
  switch (s._tag) {
    case "Text":
    case "URI":
      return s.value
    case "Sequence":
      return spanText(s.left) + spanText(s.right)
    case "Highlight":
    case "Strong":
    case "Weak":
      return spanText(s.value)
  }
}

/**
 * `words` filled into lines of at most `width` columns, after `indent`; the
 * first line starts with `head` when given (a word that does not fit after it
 * starts the next line). A word longer than a line gets a line of its own.
 */
export const wrap = (words: ReadonlyArray<string>, width: number, indent: string, head?: string): Array<string> => {
  const lines: Array<string> = []
  let line = head ?? indent
  let empty = head === undefined
  for (const w of words) {
    if (!empty && line.length + 1 + w.length > width) {
      lines.push(line)
      line = indent + w
    } else {
      line += (empty ? "" : " ") + w
    }
    empty = false
  }
  if (!empty) lines.push(line)
  return lines
}

const paragraph = (text: string, width: number, indent: string): Array<string> =>
  wrap(text.split(/\s+/).filter((w) => w.length > 0), width, indent)

/** Choices longer than this are shown by a placeholder (see {@link shortChoices}). */
const MAX_CHOICES_WIDTH = 40

/**
 * An option with its choices (`--format events|transcript|markdown`), or,
 * when they are too many for a usage line, with a placeholder made of the
 * option's last word (`--locator-class CLASS`; its description names them).
 */
const shortChoices = (term: string): string => {
  const m = /^(--[\w-]+) (\S+(?:\|\S+)+)$/.exec(term)
  if (m === null || m[2].length <= MAX_CHOICES_WIDTH) return term
  return `${m[1]} ${m[1].split("-").at(-1)!.toUpperCase()}`
}

/** The usage's words: `[--opt V]` for an optional option, `[--opt V]...` for a repeatable one, `<arg>` for a required argument. */
const usageWords = (u: Usage.Usage): Array<string> => {
  switch (u._tag) {
    case "Empty":
      return []
    case "Mixed":
      return ["<command>"]
    case "Named": {
      // A positional argument is shown by its name alone (`<provider>`): its description names its values.
      if (u.names.every((n) => n.startsWith("<"))) return [u.names.join(", ")]
      const value = Option.match(u.acceptedValues, { onNone: () => "", onSome: (v) => " " + v.replace(/ \| /g, "|") })
      return [shortChoices(u.names.join(", ") + value)]
    }
    case "Optional": {
      const inner = usageWords(u.usage)
      return inner.length === 0 ? [] : [`[${inner.join(" ")}]`]
    }
    case "Repeated": {
      const inner = usageWords(u.usage)
      return inner.length === 0 ? [] : [`[${inner.join(" ")}]...`]
    }
    case "Alternation":
      return [`${usageWords(u.left).join(" ")}|${usageWords(u.right).join(" ")}`]
    case "Concat":
      return [...usageWords(u.left), ...usageWords(u.right)]
  }
}

/** An option or argument of a command, as its usage describes it. */
export interface Parameter {
  /** `--format`, or `<provider>` for a positional argument. */
  readonly name: string
  readonly positional: boolean
  /** Whether it takes a value (an argument always does; a flag such as `--json` does not). */
  readonly takesValue: boolean
  /** The values it takes, when they are a choice. */
  readonly choices: ReadonlyArray<string> | undefined
  /** Whether it may be given more than once (`--muse-root`, `--agent`, a repeated argument). */
  readonly repeatable: boolean
}

/** The options and arguments of a command, in the order of its usage (options first, then arguments in their order). */
export const parametersOf = (command: AnyCommand): Array<Parameter> => {
  const walk = (u: Usage.Usage, repeatable = false): Array<Parameter> => {
    switch (u._tag) {
      case "Empty":
      case "Mixed":
        return []
      case "Named": {
        const name = u.names[0]
        const positional = name.startsWith("<")
        const values = Option.getOrUndefined(u.acceptedValues)
        return [{
          name,
          positional,
          takesValue: positional || values !== undefined,
          choices: values !== undefined && values.includes(" | ") ? values.split(" | ") : undefined,
          repeatable
        }]
      }
      case "Optional":
        return walk(u.usage, repeatable)
      case "Repeated":
        return walk(u.usage, true)
      case "Alternation":
      case "Concat":
        return [...walk(u.left, repeatable), ...walk(u.right, repeatable)]
    }
  }
  // The first word is the command's own name.
  return walk(Command.getUsage(command)).slice(1)
}

/** A usage line `$ session-ingest <words>`, wrapped to `width` with continuation lines indented. */
export const usageLines = (prefix: string, words: ReadonlyArray<string>, width: number, indent = "  "): Array<string> => {
  const head = `${indent}$ ${prefix}`
  // Continuation lines line up under the first option, unless the longest word would not fit there.
  const longest = words.reduce((n, w) => Math.max(n, w.length), 0)
  const hang = head.length + 1 + longest <= width ? " ".repeat(head.length + 1) : indent + "    "
  return wrap(words, width, hang, head)
}

const heading = (title: string, style: HelpStyle) => (style.color ? `\u001b[1m${title}\u001b[0m` : title)

/** A help document as text: headings, wrapped paragraphs, options with their description indented below them. */
const renderDoc = (doc: HelpDoc.HelpDoc, style: HelpStyle, indent: string): Array<string> => {
  switch (doc._tag) {
    case "Empty":
      return []
    case "Header":
      return ["", heading(spanText(doc.value), style), ""]
    case "Paragraph": {
      const text = spanText(doc.value)
      return filler(text) ? [] : paragraph(text, style.width, indent)
    }
    case "DescriptionList":
      return doc.definitions.flatMap(([term, body]) => [
        "",
        indent + shortChoices(spanText(term).replace(/ \| /g, "|").replace(/^\((.*)\)$/, "$1")),
        ...renderDoc(body, style, indent + "    ")
      ])
    case "Enumeration":
      return doc.elements.flatMap((e) => renderDoc(e, style, indent + "  "))
    case "Sequence":
      return [...renderDoc(doc.left, style, indent), ...renderDoc(doc.right, style, indent)]
  }
}

const config = CliConfig.make({ showBuiltIns: false })

/** The usage lines of a command: `$ <program> <name>`, then its options and arguments, wrapped. */
const commandUsage = (program: string, command: AnyCommand, width: number): Array<string> => {
  const [name, ...words] = usageWords(Command.getUsage(command))
  return usageLines(`${program} ${name}`, words, width)
}

/** The text of a command's description (the paragraph under its DESCRIPTION heading). */
const descriptionOf = (command: AnyCommand): string => {
  const paragraphs: Array<string> = []
  let inDescription = false
  const walk = (d: HelpDoc.HelpDoc): void => {
    if (d._tag === "Sequence") {
      walk(d.left)
      walk(d.right)
    } else if (d._tag === "Header") inDescription = spanText(d.value) === "DESCRIPTION"
    else if (d._tag === "Paragraph" && inDescription) paragraphs.push(spanText(d.value))
  }
  walk(Command.getHelp(command, config))
  return paragraphs.join(" ")
}

/** The help of one command: usage, description, arguments, options (with `--help`). */
export const commandHelp = (program: string, command: AnyCommand, style: HelpStyle): string => {
  const lines = [
    heading("USAGE", style),
    "",
    ...commandUsage(program, command, style.width),
    ...renderDoc(Command.getHelp(command, config), style, "  "),
    "",
    "  -h, --help",
    ...paragraph("Show this help.", style.width, "      ")
  ]
  return lines.join("\n").replace(/\n{3,}/g, "\n\n").replace(/^\n+/, "") + "\n"
}

/** The help of the whole program: what it is, each command's usage and description, the global options. */
export const rootHelp = (
  program: string,
  version: string,
  description: string,
  commands: ReadonlyArray<AnyCommand>,
  style: HelpStyle
): string => {
  const lines = [
    `${program} ${version}`,
    "",
    ...paragraph(description, style.width, ""),
    "",
    heading("USAGE", style),
    "",
    ...usageLines(program, ["<command>", "[options]"], style.width),
    "",
    heading("COMMANDS", style),
    ...commands.flatMap((command) => [
      "",
      ...commandUsage(program, command, style.width),
      ...paragraph(descriptionOf(command), style.width, "      ")
    ]),
    "",
    heading("OPTIONS", style),
    "",
    "  -h, --help",
    ...paragraph(`Show this help; \`${program} <command> --help\` shows a command's.`, style.width, "      "),
    "",
    "  --version",
    ...paragraph("Show the version.", style.width, "      ")
  ]
  return lines.join("\n") + "\n"
}

/** A help document's text on one line (paragraphs joined by a space): for @effect/cli's error documents. */
export const docText = (doc: HelpDoc.HelpDoc): string => {
  switch (doc._tag) {
    case "Empty":
      return ""
    case "Header":
    case "Paragraph":
      return spanText(doc.value).trim()
    case "DescriptionList":
      return doc.definitions.map(([t, d]) => `${spanText(t)}: ${docText(d)}`).join(" ")
    case "Enumeration":
      return doc.elements.map(docText).join(" ")
    case "Sequence":
      return [docText(doc.left), docText(doc.right)].filter((t) => t.length > 0).join(" ")
  }
}
