/**
 * Session 24: a secret a command prints bare, which only the tool call's command tells (`doppler secrets get NAME
 * --plain`, `vault kv get -field=…`, `aws secretsmanager get-secret-value --query SecretString --output text`,
 * `kubectl get secret … -o jsonpath='{.data.…}' | base64 -d`): its output's lines go in every shareable output of
 * the events (export, ATIF, replay) and in the transcript's Markdown, and a later message restating the value loses
 * it too. The same output of another command stays.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { SessionEvent, Transcript } from "../../src/domain/model.js"
import { printsSecret } from "../../src/domain/redaction/command-output.js"
import { shareableTranscript } from "../../src/layers/share.js"
import { Redaction } from "../../src/services/Redaction.js"
import { sessionEvent as ev, sharedEventTexts } from "../support/redaction-asserts.js"

const M = "[REDACTED:command-output]"

const session = (command: string, output: string, later = "done"): ReadonlyArray<SessionEvent> => [
  ev(1, { kind: "tool-call", toolName: "Bash", toolCallId: "toolu_1", toolInput: { command }, text: JSON.stringify({ command }) } as Partial<SessionEvent>),
  ev(2, { kind: "tool-result", role: "user", toolCallId: "toolu_1", text: output, isError: false } as Partial<SessionEvent>),
  ev(3, { kind: "message", text: later })
]

const transcriptOf = (command: string, output: string): Transcript => ({
  sessionId: "s1",
  title: null,
  startedAt: null,
  endedAt: null,
  turns: [{ role: "assistant", timestamp: null, blocks: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command }, result: output }] }],
  compactions: []
} as unknown as Transcript)

const everyOutput = (command: string, output: string, later = "done") =>
  Effect.gen(function*() {
    const t = yield* sharedEventTexts(() => session(command, output, later))
    const md = JSON.stringify(yield* shareableTranscript(transcriptOf(command, output)))
    return { ...t, markdown: md }
  }).pipe(Effect.provide(Redaction.layer))

describe("a secret printed bare by the command of its tool call", () => {
  it.effect("doppler secrets get NAME --plain: the value goes in export, ATIF, replay and Markdown, and where a later message restates it", () =>
    Effect.gen(function*() {
      const out = yield* everyOutput("doppler secrets get DB_PASSWORD --plain", "Zq8vLm2Rt5Wx\n", "the password is Zq8vLm2Rt5Wx, as printed")
      for (const texts of [out.export, out.exportOneByOne, out.replay]) {
        expect(texts[1]).toBe(`${M}\n`)
        expect(texts[2]).not.toContain("Zq8vLm2Rt5Wx")
      }
      expect(out.atif).not.toContain("Zq8vLm2Rt5Wx")
      expect(out.markdown).not.toContain("Zq8vLm2Rt5Wx")
      expect(out.markdown).toContain(M)
    }))

  it.effect("doppler secrets get A B --plain: one value a line, each goes (a letters-only value too)", () =>
    Effect.gen(function*() {
      const out = yield* everyOutput("doppler secrets get DB_USER DB_PASSWORD --plain", "postgres\nhunterhunter\n")
      expect(out.export[1]).toBe(`${M}\n${M}\n`)
      expect(out.markdown).not.toContain("hunterhunter")
    }))

  it.effect("vault kv get -field, vault read -field, aws secretsmanager --query SecretString --output text, kubectl jsonpath | base64 -d", () =>
    Effect.gen(function*() {
      for (const command of [
        "vault kv get -field=password secret/app",
        "vault read -field=value secret/data/app",
        "aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
        "AWS_PROFILE=prod aws --region eu-west-1 secretsmanager get-secret-value --secret-id prod/db --output text --query 'SecretString'",
        "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
        "kubectl get secret db -n prod -o jsonpath={.data.password} | base64 --decode 2>/dev/null",
        "doppler run --command 'printenv DB_PASSWORD'"
      ]) {
        const out = yield* everyOutput(command, "Kx7-pW2qZr9\n")
        expect(out.export[1], command).toBe(`${M}\n`)
        expect(out.markdown, command).not.toContain("Kx7-pW2qZr9")
      }
    }))

  it.effect("the same output of another command stays; a failed call's error message stays", () =>
    Effect.gen(function*() {
      for (const command of [
        "doppler secrets get DB_PASSWORD",
        "doppler secrets get DB_PASSWORD --plain | wc -c",
        "doppler secrets get DB_PASSWORD --plain > pw.txt",
        "vault kv get secret/app",
        "aws secretsmanager get-secret-value --secret-id prod/db",
        "kubectl get secret db -o jsonpath='{.data.password}'",
        "echo doppler secrets get X --plain"
      ]) {
        expect(printsSecret(command), command).toBe(false)
        const out = yield* everyOutput(command, "hello world 42\n")
        expect(out.export[1], command).toBe("hello world 42\n")
      }
      const failed = [...session("doppler secrets get X --plain", "Doppler Error: Could not find requested secret: X\n")]
      failed[1] = { ...failed[1], isError: true }
      const texts = yield* sharedEventTexts(() => failed).pipe(Effect.provide(Redaction.layer))
      expect(texts.export[1]).toBe("Doppler Error: Could not find requested secret: X\n")
    }))
})
