/**
 * tester35a F2, F3, F5 through the CLI (the domain tests: test/domain/redaction-tester35a.test.ts): a session whose
 * prompt, Bash command, tool result and answer hold a secret-named JSON key with its value on the next line, URL
 * passwords holding a raw `/`, `#`, `?`, and a PEM key quoted with an uneven `>` prefix; `export --format ndjson`
 * (whose tool-call `text` is the input as one line of JSON) and `show --format markdown` show none of them.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { claudeAssistantLine, claudeUserLine, importedClaudeIndex } from "./support/claude-import.js"

const SID = "35353535-0000-4000-8000-00000000000e"
const j = (...p: Array<string>) => p.join("")
// built at run time so that no secret scanner flags this file: [the text, the pieces no output may show]
const PW = j("Qz7vK2m", "XpL9w")
const L1 = j("MIIEowIBAAKCAQEAq7Zx9", "Lm2Qp4Wv8Rt3Ks6Yb1Nc5Hd0Jf7Ug2Ta9Xe4")
const L2 = j("Pw3Vq8Lz5Mn1Br6Cy0Dx4", "Ek7Fj2Gh9Hi3Jk6Ll1Mm8Nn5Oo2Pp0Qq7Rr4Ss")
const TEXTS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  [`echo '{"db": {\n  "password":\n    "${PW}"}}' > c.json`, [PW]],
  [`amqp-cli amqp://u:${j("Zk4n/", "W8qP2Lm")}@mq:5672/ && redis-cli -u redis://default:${j("Zk4nW8#", "qP2Lm")}@cache:6379`, ["Zk4n", "W8qP2Lm", "qP2Lm"]],
  [`curl https://u:${j("Rt3Ks6?", "Yb1Nc5")}@h.io/`, ["Rt3Ks6", "Yb1Nc5"]],
  [`cat <<'EOF' > key.pem\n> ${j("-----BEGIN RSA ", "PRIVATE KEY-----")}\n> ${L1}\n>${L2}\n> ${j("-----END RSA ", "PRIVATE KEY-----")}\nEOF`, [L1.slice(6, 30), L2.slice(0, 24), "END RSA"]]
]

let index: string
let run: ReturnType<typeof importedClaudeIndex>["run"]

beforeAll(() => {
  const at = (n: number) => `2026-12-01T00:00:${String(n).padStart(2, "0")}Z`
  ;({ index, run } = importedClaudeIndex("si-tester35a-cli-", {
    [SID]: TEXTS.flatMap(([text], i) => [
      claudeUserLine(SID, `u${i}`, i === 0 ? null : `r${i - 1}`, at(4 * i), text),
      claudeAssistantLine(SID, `a${i}`, `u${i}`, at(4 * i + 1), [{ type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: text, description: "run it" } }]),
      claudeUserLine(SID, `t${i}`, `a${i}`, at(4 * i + 2), [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: text }]),
      claudeAssistantLine(SID, `r${i}`, `t${i}`, at(4 * i + 3), [{ type: "text", text: `Done: ${text}` }])
    ])
  }))
}, 120_000)

describe("tester35a F2, F3, F5 in the CLI's redacted outputs", () => {
  it("export --format ndjson and show --format markdown show none of the secrets, and keep the text around them", () => {
    for (const args of [["export", SID, "--format", "ndjson"], ["show", SID, "--format", "markdown"]]) {
      const out = run([...args, "--index", index])
      for (const [text, pieces] of TEXTS) for (const p of pieces) expect(out, `${args.join(" ")}: ${text.slice(0, 40)}`).not.toContain(p)
      for (const keep of ["[REDACTED:secret-field]", "amqp://u:[REDACTED:url-credentials]@mq:5672/", "redis://default:[REDACTED:url-credentials]@cache:6379", "https://u:[REDACTED:url-credentials]@h.io/", "[REDACTED:private-key]", "key.pem"]) {
        expect(out, `${args.join(" ")} keeps ${keep}`).toContain(keep)
      }
    }
  })
})
