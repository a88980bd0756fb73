/**
 * tester20b F3: tokens of vendors that had no rule (Perplexity, Notion, Atlassian, Doppler, Pulumi, Terraform Cloud, New
 * Relic, Dynatrace, Fly.io, Square, Mailchimp, Heroku, PlanetScale, Shippo, Cloudflare Origin CA) go, their shapes as
 * gitleaks' rules give them; a body of another length, a word around the prefix and prose stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { expectVendorSamplesGo, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction

const IDS = [
  "perplexity-key", "notion-token", "atlassian-token", "doppler-token", "pulumi-token", "terraform-cloud-token", "newrelic-key",
  "dynatrace-token", "flyio-token", "square-token", "mailchimp-key", "heroku-key", "planetscale-token", "shippo-token", "cloudflare-origin-key"
]

describe("tester20b F3: vendor tokens known by a prefix", () => {
  it("each sample goes in a sentence, an assignment, JSON and a header, as its rule's marker", () => {
    expectVendorSamplesGo(IDS)
  })

  it("the tester's tokens of gitleaks' shapes", () => {
    for (const [t, id] of [
      [j("pp", "lx-h2FDEEtfjgVvVqE1SkHbn88HxjSI6bWHtP3fS2qHx6kwXoII"), "perplexity-key"],
      [j("pu", "l-2f828767efc2f91624a8940f1f836f99eee3692f"), "pulumi-token"],
      [j("bsDe0G9Cryn687", ".atlasv1.", "neLfjVHq8xiM0OGr4hTxoF54Fzbka8FRCztUjAwyuh1vauWv1zh87mTa5Vsqxezy3Le"), "terraform-cloud-token"],
      [j("NR", "AK-X1RDRGDSJPR16UMX1BZ99NFD02I"), "newrelic-key"],
      [j("fo", "1_HRg80USP2W5DfJXcaYioK6cPTt9iOqHOBSWhgetH8Lm"), "flyio-token"],
      [j("ec8df4f50947aaeb26c57d21fa5d3282", "-us12"), "mailchimp-key"],
      [j("HR", "KU-ffqkOkgWrdioyq-KvCiSGuPJ6sG9AHEOVezxZuJPWvHogU5nGYVHWVsUQk4D"), "heroku-key"],
      [j("pscale", "_tkn_HMPGPPA0NlGtetOd4UYETIay2BV6DfVPClogqoPchv5"), "planetscale-token"],
      [j("shippo", "_live_818d8962058765a6ca7cff00d796c25410335b40"), "shippo-token"]
    ] as const) expect(r.text(`${id}: ${t}`)).toBe(`${id}: ${marker(id)}`)
  })

  it("other lengths, longer words, placeholders and prose stay", () => {
    for (const t of [
      j("pp", "lx-", "a1".repeat(20)), j("pu", "l-", "ab12".repeat(9)), j("pu", "l-", "ab12".repeat(11)), "the pplx-api docs",
      j("xpu", "l-", "ab12".repeat(10)), j("NR", "AK-", "SHORT1"), "dt0c01.ABC.DEF", "v1.0-beta and v1.0-rc1",
      "shippo_live_key", j("sq0", "atp-", "short"), "locale en-us and en-us2", j("ab".repeat(16), "-use"),
      "pscale_tkn_ is the prefix", j("fo", "1_", "x".repeat(20)), j("HR", "KU-", "AA")
    ]) stays(t)
  })
})
