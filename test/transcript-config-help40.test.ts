/**
 * tester40 F4: `transcript --config` reads the file only for its custom
 * redaction patterns (docs/redaction.md: "`transcript` takes `--config` for
 * these patterns"); the source is authorized by the roots given as options.
 * The help said "JSON config", and a user expected the file's `claudeRoot`
 * to apply (it does not: SOURCE_OUTSIDE_ALLOWED_ROOT). The help says what it
 * is read for, and that its roots are not used.
 */
import { describe, expect, it } from "@effect/vitest"
import { optionHelp } from "./support/help.js"

describe("transcript --help: what --config is read for", () => {
  it("its redaction patterns only, not its roots", () => {
    const text = optionHelp("transcript", "--config")
    expect(text).toMatch(/read only for its custom redaction patterns/)
    expect(text).toMatch(/its roots are not used/)
  })
})
