/**
 * tester20b F1: a key right after an ANSI colour code (`ESC[32msk_live_…ESC[0m`: `grep --color=always`, `gh`, test
 * runners) was kept whole by most rules: the code's final byte (`m`) read as the first character of a longer word. An
 * ANSI control sequence (CSI: ESC `[` parameters final byte) is a boundary in every rule, as an escape is (session 19),
 * whether ESC is the character itself, JSON's `\u001b`, `\x1b`, the shell's `\033` / `\e`, or caret notation `^[`.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, inString, j, stays } from "../support/redaction-asserts.js"
import { secretSamples } from "../support/secrets.js"

const r = defaultRedaction

/** A colour code before a key and the reset after it, in each form a terminal's output or a script holds them. */
const CODES: ReadonlyArray<readonly [string, string]> = [
  ["\x1b[32m", "\x1b[0m"], ["\x1b[1;33m", "\x1b[0m"], ["\x1b[38;5;208m", "\x1b[m"], ["\x1b[01;31m\x1b[K", "\x1b[m\x1b[K"],
  ["\x9b1m", "\x9b0m"], ["\\u001b[32m", "\\u001b[0m"], ["\\u001B[1m", "\\u001B[0m"], ["\\x1b[32m", "\\x1b[0m"],
  ["\\033[32m", "\\033[0m"], ["\\e[1m", "\\e[0m"], ["\\E[4m", "\\E[0m"], ["^[[32m", "^[[0m"]
]

describe("tester20b F1: a key after an ANSI colour code", () => {
  it("every key shape goes after each form of a colour code, the codes staying", () => {
    for (const [id, samples] of Object.entries(secretSamples())) {
      if (id === "private-key") continue
      for (const key of samples) {
        for (const [before, after] of CODES) {
          const text = `x ${before}${key}${after} y`
          const out = gone(text, key, before, after)
          expect(out, text).toContain(marker(id))
          // JSON text held in a JSON string (ESC as `\u001b`, a backslash doubled)
          gone(inString(text), key)
        }
      }
    }
  })

  it("the tester's cases: coloured terminal output and scripts that print colours", () => {
    const S = j("sk_live_", "yVaQXekW9LctXb03rEMU64yT")
    const H = j("hf_", "yD3HyP3MRJgN8ZGrBOUTp7tBqHtJvaYALu")
    expect(r.text(`a2: \x1b[32m${S}\x1b[0m`)).toBe(`a2: \x1b[32m${marker("stripe-key")}\x1b[0m`)
    expect(r.text(`{"out":"\\u001b[1m${H}\\u001b[0m"}`)).toBe(`{"out":"\\u001b[1m${marker("huggingface-token")}\\u001b[0m"}`)
    expect(r.text(`echo -e "\\033[32m${S}\\033[0m"`)).toBe(`echo -e "\\033[32m${marker("stripe-key")}\\033[0m"`)
    expect(r.text(`printf '\\e[1m${H}\\e[0m'`)).toBe(`printf '\\e[1m${marker("huggingface-token")}\\e[0m'`)
    // a name after a colour code too: secret-assignment, secret-field
    expect(r.text("\x1b[1mAPI_KEY=q8Zk2mPa9sLd4fVb\x1b[0m")).not.toContain("q8Zk2mPa9sLd4fVb")
    expect(r.text("\x1b[33mpassword: \"q8Zk2mPa9sLd4fVb\"")).not.toContain("q8Zk2mPa9sLd4fVb")
    // an email and a home path
    expect(r.text("\x1b[36mbob@example.com\x1b[0m")).toBe(`\x1b[36m${marker("email")}\x1b[0m`)
    expect(r.text("\x1b[34m/home/alice/src\x1b[0m")).toBe("\x1b[34m~/src\x1b[0m")
  })

  it("coloured words and codes that are no key stay", () => {
    for (const t of [
      "\x1b[32mPASS\x1b[0m test/a.test.ts (12 tests)", "\x1b[1;31merror\x1b[0m: cannot find module 'sk_live'",
      "\\u001b[32mskipped\\u001b[0m", "\\033[1mAKIA is a prefix\\033[0m", "^[[32mok^[[0m", "ls \\e[1m*.ts",
      "arr[0]ghp_ is not a token", "C:\\e[1]x"
    ]) stays(t)
  })
})
