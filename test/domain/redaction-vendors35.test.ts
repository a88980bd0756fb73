/**
 * tester35a F9: long-lived vendor credentials with no rule: Azure AD client secrets (`…8Q~…`), Google OAuth refresh
 * tokens (`1//0…`), and the other prefixed rules of gitleaks' config that were missing (1Password, Artifactory,
 * Clojars, Duffel, EasyPost, Frame.io, Infracost, 42 Intra, OpenShift, Prefect, ReadMe, RubyGems, Scalingo, Sendinblue,
 * Sourcegraph, Harness, Alibaba, Facebook page tokens, Adobe, MaxMind, SettleMint). Each goes whole as its rule's
 * marker in a sentence, a header, an assignment and JSON text; ordinary text near the prefixes stays.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { gone, j, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction

/** `n` characters cycling through `alphabet` from `k` (a fixed, secret-shaped run; no literal a scanner flags). */
const run = (n: number, alphabet: string, k = 0) => Array.from({ length: n }, (_, i) => alphabet[(i * 7 + k * 13 + ((i * i) >> 1)) % alphabet.length]).join("")
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const LOWNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
const UPNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
const HEX = "0123456789abcdef"
const B64URL = ALNUM + "-_"

const SAMPLES: ReadonlyArray<readonly [id: string, key: string]> = [
  // the tester's shape (4 characters before the digit) and gitleaks' (3)
  ["azure-ad-client-secret", j("Zk4n8", "Q~", "W8qPz2LmX7Hd0Jf7Ug2Ta9Xe4Rt3Ks6Yb")],
  ["azure-ad-client-secret", j("a1B", "7Q~", run(34, ALNUM + "_~.-", 1))],
  ["google-refresh-token", j("1/", "/0gQz9vK2mXpL9wR4tY8nB3cF6hJ1-L9IrQz7vK2mXpL9wR4tY8nB3cF6hJ1")],
  ["google-refresh-token", j("1/", "/0", run(60, B64URL, 2))],
  ["onepassword-secret", j("ops", "_eyJ", run(300, ALNUM + "+/", 3), "=")],
  ["onepassword-secret", j("A3", "-ASWWYB-798JRY-LJVD4-23DC2-86TVM-H43EB")],
  ["artifactory-key", j("AK", "Cp", run(69, ALNUM, 4))],
  ["clojars-token", j("CLOJ", "ARS_", run(60, LOWNUM, 5))],
  ["duffel-token", j("duffel", "_live_", run(43, B64URL, 6))],
  ["easypost-token", j("EZ", "AK", run(54, ALNUM, 7))],
  ["frameio-token", j("fio", "-u-", run(64, B64URL, 8))],
  ["infracost-token", j("ico", "-", run(32, ALNUM, 9))],
  ["intra42-secret", j("s-s4t2", "ud-", run(64, HEX, 10))],
  ["openshift-token", j("sha256", "~", run(43, B64URL, 11))],
  ["prefect-token", j("pn", "u_", run(36, ALNUM, 12))],
  ["readme-token", j("rd", "me_", run(70, LOWNUM, 13))],
  ["rubygem-api-token", j("rubygems", "_", run(48, HEX, 14))],
  ["scalingo-token", j("tk-", "us-", run(48, B64URL, 15))],
  ["sendinblue-key", j("xkey", "sib-", run(64, HEX, 16), "-", run(16, ALNUM, 17))],
  ["sourcegraph-token", j("sg", "p_", run(16, HEX, 18), "_", run(40, HEX, 19))],
  ["sourcegraph-token", j("sg", "p_", run(40, HEX, 20))],
  ["harness-token", j("pa", "t.", run(22, B64URL, 21), ".", run(24, ALNUM, 22), ".", run(20, ALNUM, 23))],
  ["alibaba-access-key", j("LT", "AI", run(20, ALNUM, 24))],
  ["facebook-token", j("EA", "AC", run(120, ALNUM, 25))],
  ["adobe-client-secret", j("p8", "e-", run(32, ALNUM, 26))],
  ["maxmind-key", j(run(6, ALNUM, 27), "_", run(29, ALNUM, 28), "_m", "mk")],
  ["settlemint-token", j("sm", "_pat_", run(16, ALNUM, 29))]
]

describe("tester35a F9: vendor credentials of gitleaks' prefixed rules and Google's refresh token", () => {
  it("each goes whole, as its rule's marker, in a sentence, a header, an assignment and JSON text", () => {
    for (const [id, key] of SAMPLES) {
      expect(r.text(`token: ${key} ok`), id).toBe(`token: ${marker(id)} ok`)
      expect(r.text(`curl -H 'X-Vendor: ${key}' https://api.example.com`), id).toBe(`curl -H 'X-Vendor: ${marker(id)}' https://api.example.com`)
      expect(r.text(JSON.stringify({ note: `use ${key}` })), id).toBe(JSON.stringify({ note: `use ${marker(id)}` }))
      gone(`export VENDOR_CREDENTIAL=${key}`, key)
    }
  })

  it("the tester's lines: an Azure secret after a label, a Google refresh token after a word", () => {
    const az = j("Zk4n8", "Q~", "W8qPz2LmX7Hd0Jf7Ug2Ta9Xe4Rt3Ks6Yb")
    expect(r.text(`AZURE_CLIENT_SECRET value: ${az}`)).toBe(`AZURE_CLIENT_SECRET value: ${marker("azure-ad-client-secret")}`)
    const g = j("1/", "/0gQz9vK2mXpL9wR4tY8nB3cF6hJ1-L9IrQz7vK2mXpL9wR4tY8nB3cF6hJ1")
    expect(r.text(`google ${g}`)).toBe(`google ${marker("google-refresh-token")}`)
    // a refresh token in JSON written with escaped slashes (PHP's json_encode)
    expect(r.text(`{"refresh":"${g.replace(/\//g, "\\/")}"}`)).not.toContain("gQz9vK2m")
  })

  it("ordinary text near the prefixes stays", () => {
    for (const t of [
      "use a 1//0 comment", "1//0 and 1//02 are C++ comments", "see https://example.com/a/1//0/b", "Q~ is a key in vim", "x8Q~y is short",
      "sha256~abc", "the ico-file and ico-32 sizes", "pnu_short", "sgp_local_x", "pat.token.value", "sat.v1.json", "LTAIxxxxxxxxxxxxxxxxxxxx",
      "EAAC is short", "p8e-config", "sm_pat_short", "the rubygems_org mirror", "tk-us-east", "A3-TEST", "AKCp is a prefix", "ops_eyJ"
    ]) stays(t)
  })
})
