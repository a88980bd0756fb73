/**
 * A credential in a URL's query is a credential whatever the case of its
 * name, and in camelCase too (tester20 F4): CloudFront's signed URLs carry
 * `Signature=`, APIs `apiKey=`, `accessToken=`; GitLab `private_token=`,
 * Firebase `auth=`, websockets `jwt=`. README "Redaction", `url-query-secret`.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
const V = "Zq8wXk2mPa9sLd4fAaBbCc"

describe("url-query-secret: names in any case, camelCase and more names (tester20 F4)", () => {
  it("the value goes, the name and the rest of the URL stay", () => {
    const names = [
      "Signature", "SIGNATURE", "Token", "TOKEN", "apiKey", "APIKEY", "accessToken", "AccessToken", "refreshToken", "idToken", "authToken",
      "private_token", "privateToken", "session_token", "sessionToken", "secret_key", "secretKey", "clientSecret", "Password", "jwt", "JWT",
      "x-amz-signature", "X-Goog-Signature", "Sig"
    ]
    for (const name of names) {
      expect(r.text(`https://h.example/p?a=1&${name}=${V}&b=2`), name).toBe(`https://h.example/p?a=1&${name}=${marker("url-query-secret")}&b=2`)
    }
  })

  it("auth= and Key= only when the value looks like a secret; other names stay", () => {
    expect(r.text(`https://x.firebaseio.com/u.json?auth=${V}`)).toBe(`https://x.firebaseio.com/u.json?auth=${marker("url-query-secret")}`)
    expect(r.text(`https://maps.example/api?Key=${V}1`)).toBe(`https://maps.example/api?Key=${marker("url-query-secret")}`)
    for (const ok of ["?auth=true", "?auth=oauth2&x=1", "?author=bob", "?Key=name", "?Key-Pair-Id=K2JCJMDEHXQW5F", "?Tokens=5", "?token_type=bearer", "?Token=$TOKEN", "?MaxTokens=4096"]) {
      expect(r.text(ok), ok).toBe(ok)
    }
  })
})
