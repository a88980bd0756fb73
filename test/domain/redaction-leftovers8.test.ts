/**
 * Redaction leftovers of session 7: a credential's value in a URL ends at a
 * Markdown link's or a bracket's close (the `)` is the text's, not the
 * secret's); Hugging Face tokens of lower-case letters and digits; page
 * tokens (`next_page_token`, `nextPageToken`, AWS `NextToken`) are cursors of
 * an API's listing, not credentials, so `secret-field` leaves them.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { prng } from "../support/prng.js"

const r = defaultRedaction
const R = marker
const rand = (p: ReturnType<typeof prng>, n: number, alphabet: string) =>
  Array.from({ length: n }, () => alphabet[p.int(alphabet.length)]).join("")

describe("redaction: a URL's credential ends where the text closes it", () => {
  const p = prng(81)
  it("a Markdown link, a parenthesis, a bracket: the secret goes, the close stays", () => {
    for (const name of ["token", "access_token", "api_key", "sig", "X-Amz-Signature"]) {
      const s = rand(p, 28, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") + "3"
      expect(r.text(`[the file](https://h.example/f?${name}=${s})`), name).toBe(`[the file](https://h.example/f?${name}=${R("url-query-secret")})`)
      expect(r.text(`(see https://h.example/f?a=1&${name}=${s}) then`), name).toBe(`(see https://h.example/f?a=1&${name}=${R("url-query-secret")}) then`)
      expect(r.text(`[https://h.example/f?${name}=${s}]`), name).toBe(`[https://h.example/f?${name}=${R("url-query-secret")}]`)
      expect(r.text(`[a](https://h.example/f?${name}=${s}) and [b](https://h.example/g)`), name)
        .toBe(`[a](https://h.example/f?${name}=${R("url-query-secret")}) and [b](https://h.example/g)`)
    }
  })
})

describe("redaction: Hugging Face tokens without an upper-case letter", () => {
  it("hf_ and 30 or more lower-case letters and digits, a digit among them, is a token", () => {
    const p = prng(82)
    for (let i = 0; i < 50; i++) {
      const t = "hf_" + rand(p, 30 + p.int(10), "abcdefghijklmnopqrstuvwxyz") .slice(0, -1) + String(p.int(10))
      expect(r.text(`export HF_TOKEN=${t}`), t).toBe(`export HF_TOKEN=${R("huggingface-token")}`)
      expect(r.text(`login("${t}")`), t).toBe(`login("${R("huggingface-token")}")`)
    }
    const hex = "hf_" + rand(p, 40, "0123456789abcdef")
    expect(r.text(`tok ${hex} end`)).toBe(`tok ${R("huggingface-token")} end`)
  })

  it("near misses stay: letters only, snake_case names, too short, inside a word", () => {
    for (const ok of ["hf_abcdefghijklmnopqrstuvwxyzabcdefgh", "hf_hub_download_v2_model_name_12", "hf_abc123", "xhf_abcdefghijklmnopqrstuvwxyz0123456789"]) {
      expect(r.text(ok), ok).toBe(ok)
    }
  })
})

describe("redaction: page tokens are cursors, not credentials", () => {
  const cursor = "CAESBggDEAEYAQ9aZ3x"
  it("next_page_token, nextPageToken, page_token, NextToken, continuation_token keep their values", () => {
    for (const name of ["next_page_token", "nextPageToken", "page_token", "pageToken", "NextToken", "next_token", "continuation_token", "continuationToken", "NEXT_PAGE_TOKEN", "pagination_token"]) {
      for (const text of [`{"${name}": "${cursor}"}`, `{\\"${name}\\":\\"${cursor}\\"}`, `${name}: ${cursor}`]) {
        expect(r.text(text), text).toBe(text)
      }
    }
  })

  it("a secret whose name only holds such a word is still a secret", () => {
    for (const name of ["access_token", "pageAccessToken", "page_secret", "token", "next_page_password", "csrf_token"]) {
      expect(r.text(`{"${name}": "${cursor}"}`), name).toBe(`{"${name}": "${R("secret-field")}"}`)
    }
  })
})
