/**
 * A tool's output that is a secret because of the command that printed it (session 24): `doppler secrets get NAME
 * --plain` prints the bare value, one line per name, and nothing in the output names it, so no text rule can see
 * it; only the tool call's command tells. Likewise `vault kv get -field=password secret/x` (`vault read
 * -field=…`), `aws secretsmanager get-secret-value … --query SecretString --output text`, `kubectl get secret X -o
 * jsonpath='{.data.password}' | base64 -d` (`oc`, `--decode`) and `doppler run … printenv NAME`. The command must be
 * the whole of the tool call's command (maybe after `NAME=value` assignments, maybe with `2>/dev/null`): its
 * standard output is then the secret, each of its lines whole. A command piped on (`| wc -c`), redirected to a
 * file, or followed by another command prints something else, and stays.
 *
 * Used where a tool call and its output are seen together: a session's events (`sessionRedactor` in `./redact.ts`:
 * the call, then the result with its `toolCallId`) and a transcript's `tool_use` block (its `input` and `result`).
 * Pure: no I/O.
 *
 * @module
 */
import { marker } from "./rules.js"

/** The marker of a line a secret-printing command printed. */
export const COMMAND_OUTPUT_MARK = marker("command-output")

/** Leading `NAME=value` assignments (`AWS_PROFILE=prod aws …`). */
const ENV = String.raw`(?:[A-Za-z_][A-Za-z0-9_]{0,63}=[^\s;&|<>]{0,256}[ \t]{1,8}){0,8}`
/** The command's arguments: words of quoted pieces and other characters than a pipe, a list separator, a redirection. */
const ARGS = String.raw`(?:[ \t]{1,8}(?:'[^'\n]{0,512}'|"[^"\n]{0,512}"|[^\s;&|<>'"]){1,512}){0,32}`
/** An optional `2>/dev/null` (stderr dropped: stdout is still the value), then the end. */
const END = String.raw`(?:[ \t]{1,8}2>[ \t]{0,4}/dev/null)?[ \t]*$`

/**
 * The commands whose standard output is a secret's value bare ({@link printsSecret}). Each anchored on the whole
 * command; the option that makes the output bare is looked for in the command apart ({@link BARE}).
 */
const COMMANDS: ReadonlyArray<{ readonly command: RegExp; readonly bare: RegExp }> = [
  // Doppler: `doppler secrets get NAME [NAME…] --plain` (one value a line; `--raw` too)
  { command: new RegExp(String.raw`^${ENV}doppler[ \t]{1,8}secrets[ \t]{1,8}get${ARGS}${END}`), bare: /[ \t]--plain(?![A-Za-z0-9_-])/ },
  // Doppler: `doppler run [--project p --config c] [--command 'printenv X'|-- printenv X]`
  {
    command: new RegExp(String.raw`^${ENV}doppler[ \t]{1,8}run${ARGS}${END}`),
    bare: /(?:[ \t]--command[ \t=]{1,8}['"]?[ \t]*(?:printenv|echo[ \t]{1,8}\$\{?[A-Za-z_])|[ \t]--[ \t]{1,8}printenv)(?![A-Za-z0-9_-])/
  },
  // HashiCorp Vault: `vault kv get -field=password secret/x`, `vault read -field=value …` (`-field value` too)
  { command: new RegExp(String.raw`^${ENV}vault[ \t]{1,8}(?:kv[ \t]{1,8}get|read)${ARGS}${END}`), bare: /[ \t]--?field(?:=|[ \t]{1,8})[^\s-]/ },
  // AWS Secrets Manager: `aws secretsmanager get-secret-value --secret-id x --query SecretString --output text`
  {
    command: new RegExp(String.raw`^${ENV}aws[ \t]{1,8}(?:[^\s;&|<>]{1,128}[ \t]{1,8}){0,4}secretsmanager[ \t]{1,8}get-secret-value${ARGS}${END}`),
    bare: /[ \t]--query[ \t=]{1,8}['"]?SecretString['"]?(?![A-Za-z0-9_.[-])[\s\S]*[ \t]--output[ \t=]{1,8}text|[ \t]--output[ \t=]{1,8}text[\s\S]*[ \t]--query[ \t=]{1,8}['"]?SecretString['"]?(?![A-Za-z0-9_.[-])/
  },
  // Kubernetes: `kubectl get secret X -o jsonpath='{.data.password}' | base64 -d` (`oc`, `--decode`, `-D`)
  {
    command: new RegExp(String.raw`^${ENV}(?:kubectl|oc)[ \t]{1,8}get[ \t]{1,8}secrets?${ARGS}[ \t]{0,8}\|[ \t]{0,8}base64[ \t]{1,8}(?:-d|--decode|-D)${END}`),
    bare: /jsonpath[ \t=]{1,8}['"]?\{\.data\./
  }
]

/**
 * Whether `command` (a shell tool call's command: `toolInput.command`) prints a secret's value bare, as its whole
 * standard output ({@link COMMANDS}). A long or multi-line command is no such command.
 */
export const printsSecret = (command: string): boolean => {
  const c = command.trim()
  if (c.length === 0 || c.length > 4096 || c.includes("\n")) return false
  return COMMANDS.some((x) => x.command.test(c) && x.bare.test(c))
}

/** The shell command of a tool call's input (`{"command": "…"}`, or an argument list `["bash", "-lc", "…"]`), if any. */
export const commandOf = (input: unknown): string | undefined => {
  if (typeof input !== "object" || input === null) return undefined
  if (Array.isArray(input)) {
    const last = input[input.length - 1]
    return typeof last === "string" ? last : undefined
  }
  const c = (input as { readonly command?: unknown }).command
  if (typeof c === "string") return c
  if (Array.isArray(c)) return commandOf(c)
  return undefined
}

/**
 * `output` of a command that {@link printsSecret}: each line that holds more than white space becomes
 * {@link COMMAND_OUTPUT_MARK} (its indentation and line break kept); each value hidden is passed to `found`.
 */
export const redactCommandOutput = (output: string, found?: (value: string) => void): string =>
  output.replace(/^([ \t]*)(\S(?:[^\n]*\S)?)([ \t]*\r?)$/gm, (_all, head: string, value: string, tail: string) => {
    if (value === COMMAND_OUTPUT_MARK) return `${head}${value}${tail}`
    found?.(value)
    return `${head}${COMMAND_OUTPUT_MARK}${tail}`
  })
