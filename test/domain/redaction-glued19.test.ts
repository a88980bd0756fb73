/**
 * tester19 F7 (the glued part): a key glued to a word (`tokenghp_…`, `1ghp_…`, `_ghp_…`, `idAKIA…`) or followed by
 * `_` (`ghp_…_old`) was kept whole. For the prefixes specific enough to be no word's part (GitHub's `gh?_` with 36
 * or more letters and digits and `github_pat_`, AWS key ids told by case, Anthropic's `sk-ant-<kind><version>-`) a
 * glued key goes; ordinary words that share a prefix stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { j, stays } from "../support/redaction-asserts.js"
import { secretSamples } from "../support/secrets.js"

const r = defaultRedaction

describe("tester19 F7: keys glued to a word", () => {
  it("GitHub tokens glued before and after", () => {
    for (const key of secretSamples()["github-token"]) {
      for (const before of ["token", "1", "_", "x_", "TOKEN="]) expect(r.text(`${before}${key}`), before).toBe(`${before}${marker("github-token")}`)
    }
    const ghp = j("ghp_", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")
    expect(r.text(`${ghp}_old and ${ghp}_v2`)).toBe(`${marker("github-token")}_old and ${marker("github-token")}_v2`)
    expect(r.text(`tokenghp_${"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"}_old`)).toBe(`token${marker("github-token")}_old`)
  })

  it("AWS key ids glued to a lower-case word, `_` or a lower-case tail", () => {
    const id = j("AKIA", "Q3EGRTWKNZ7PLM4X")
    expect(r.text(`id${id}`)).toBe(`id${marker("aws-access-key")}`)
    expect(r.text(`key_${id}_prod`)).toBe(`key_${marker("aws-access-key")}_prod`)
    expect(r.text(`${id}x`)).toBe(`${marker("aws-access-key")}x`)
    expect(r.text(`aws${j("ASIA", "Y2K4M6N8P0Q2R4S6")}key`)).toBe(`aws${marker("aws-access-key")}key`)
  })

  it("Anthropic keys glued to a word when their kind and version follow the prefix", () => {
    for (const key of secretSamples()["anthropic-key"]) {
      for (const before of ["token", "1", "_", "KEY"]) expect(r.text(`${before}${key}`), before).toBe(`${before}${marker("anthropic-key")}`)
    }
  })

  it("Slack tokens glued to a word when their team and bot ids follow", () => {
    const xoxb = j("xoxb-", "2345678901-2345678901234-AbCdEfGhIjKlMnOpQrStUvWx")
    expect(r.text(`prefix_${xoxb}`)).toBe(`prefix_${marker("slack-token")}`)
    expect(r.text(`token${xoxb}`)).toBe(`token${marker("slack-token")}`)
    stays("myxoxb-not-a-token-at-all and boxoxb-1")
  })

  it("words that share a prefix stay", () => {
    // inside a longer run of upper-case letters and digits (base32, an upper-case hex dump): no key id
    stays(j("X", "AKIAQ3EGRTWKNZ7PLM4X"))
    stays(j("AKIAQ3EGRTWKNZ7PLM4X", "Y"))
    stays(j("7", "AKIAQ3EGRTWKNZ7PLM4X2"))
    stays("MALAYSIAN AIRLINES ASIAN FANTASIA idAKIAnothing")
    // glued `sk-ant-` without a kind and version, `gh?_` with fewer than 36 or a longer run
    stays("task-ant-colony-simulation-with-pheromones and masksk-ant-colony-simulation-with-pheromones")
    stays(j("tokenghp_", "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7"))
    stays("thigh_ and high_score and laugh_track and ghp_short_name and tokenghp_x")
  })
})
