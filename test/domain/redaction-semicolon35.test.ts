/**
 * tester35a F11: a bare secret value holding `;`. An INI, `.env` or properties line's value runs to the line's end
 * (`password=Qz7v;K2mX9pL`): a `;` with a value's character right after it is part of the value, so no piece of the
 * secret is shown. A `;` still ends a value where it separates: a shell's command separator (`PASSWORD=x; run`, `x;`
 * at a line's end) and a connection string's next pair (`Password=x;Host=y`). YAML's plain scalar likewise
 * (`password: a;b`). docs/redaction.md, `secret-assignment`.
 */
import { describe, expect, it } from "@effect/vitest"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const A = "[REDACTED:secret-assignment]"

describe("tester35a F11: a secret value holding `;`", () => {
  it("an INI / .env / properties line's value goes whole", () => {
    for (const [text, want] of [
      ["[db]\npassword=Qz7v;K2mX9pL\n", `[db]\npassword=${A}\n`],
      ["password=Qz7v;K2mX9pL", `password=${A}`],
      ["DB_PASSWORD=Qz7v;K2mX9pL", `DB_PASSWORD=${A}`],
      ["API_KEY=Qz7v;K2mX9pL\r\nHOST=x", `API_KEY=${A}\r\nHOST=x`],
      ["db.password=Qz7v;K2mX9pL", `db.password=${A}`],
      ["password=Qz7v;K2;mX9pL", `password=${A}`],
      // a comment after white space stays
      ["password=Qz7v;K2mX9pL ; rotated monthly", `password=${A} ; rotated monthly`],
      ["password=Qz7v;K2mX9pL # rotated", `password=${A} # rotated`],
      // in JSON text (a Write's content)
      [JSON.stringify({ content: "[db]\npassword=Qz7v;K2mX9pL\nhost=x" }), JSON.stringify({ content: `[db]\npassword=${A}\nhost=x` })],
      // YAML's plain scalar
      ["password: Qz7v;K2mX9pL", "password: [REDACTED:secret-field]"],
      ["  - password: a1;b2;c3\n", "  - password: [REDACTED:secret-field]\n"]
    ] as const) {
      const out = r.text(text)
      expect(out, text).toBe(want)
      for (const piece of ["Qz7v", "K2mX9pL", "mX9pL", "b2", "c3"]) expect(out, text).not.toContain(piece)
    }
  })

  it("a shell's separator and a connection string's next pair end the value, and stay", () => {
    for (const [text, want] of [
      ["export PASSWORD=Qz7vK2; ./run", `export PASSWORD=${A}; ./run`],
      ["DB_PASSWORD=Qz7vK2;\nnext", `DB_PASSWORD=${A};\nnext`],
      ["API_TOKEN=Qz7vK2;&& make", `API_TOKEN=${A};&& make`],
      ["Server=db;Password=Qz7v9K;Host=y", `Server=db;Password=${A};Host=y`],
      ["Server=db;Password=Qz7v9K;", `Server=db;Password=${A};`],
      ["Server=db;Uid=app;Pwd=Qz7v9K;Database=x", `Server=db;Uid=app;Pwd=${A};Database=x`],
      ["\"Password=Qz7v9K;Trusted_Connection=no\"", `"Password=${A};Trusted_Connection=no"`],
      ["token: Qz7v9;Host=y", "token: [REDACTED:secret-field];Host=y"]
    ] as const) expect(r.text(text), text).toBe(want)
  })

  it("ordinary text with `;` stays", () => {
    for (const t of ["for (i = 0; i < n; i++) {}", "a=1;b=2;c=3", "MAX_TOKENS=4096;next", "color: red; margin: 0;", "PASSWORD=$DB_PASS; run", "primary_key=id;x"]) stays(t)
  })
})

describe("tester35c F4/F5 and the session-9 rule, on the final rules (session 35)", () => {
  const PW = ["Qz7vK2", "mX9pL"].join("")
  it("a connection string's next key holding a space (Data Source, Initial Catalog, Integrated Security) stays, with its `;`", () => {
    expect(r.text(`Password=${PW};Data Source=db1;Initial Catalog=app;Integrated Security=false`))
      .toBe("Password=[REDACTED:secret-assignment];Data Source=db1;Initial Catalog=app;Integrated Security=false")
  })
  it("a shell command's word after `;` ends the value (`API_TOKEN=x;make`), a value's characters after it do not", () => {
    expect(r.text(`API_TOKEN=${PW};make`)).toBe("API_TOKEN=[REDACTED:secret-assignment];make")
    expect(r.text(`API_TOKEN=${PW};npm run build`)).toBe("API_TOKEN=[REDACTED:secret-assignment];npm run build")
    expect(r.text(`[db]\npassword=Ab3;Cd5;Ef7`)).toBe("[db]\npassword=[REDACTED:secret-assignment]")
  })
  it("a bundler's `ico-<32 lowercase hex>` asset name stays; an Infracost key (mixed case) goes", () => {
    stays("dist/assets/ico-d41d8cd98f00b204e9800998ecf8427e.svg")
    const key = ["ico-", "Zq7K2mXpL9wR4tY8", "nB3cF6hJ1Lm2Qp4W"].join("")
    expect(r.text(`INFRACOST ${key} x`)).toBe("INFRACOST [REDACTED:infracost-token] x")
  })
  it("a Facebook page token or a Google refresh token as a URL's user info goes (a `/` before it is no part of one)", () => {
    const token = ["EAAC", "Zq7K2mXpL9wR4tY8nB3c".repeat(6)].join("")
    expect(r.text(`https://${token}@github.com/o/r.git`)).toBe("https://[REDACTED:facebook-token]@github.com/o/r.git")
    const refresh = ["1//0", "gAZQkeEYljOZBGnpexhwKLJM9nCHpP0VcnmjtHQi6N8Ej7qjNNFP0"].join("")
    expect(r.text(`https://${refresh}@github.com/o/r.git`)).not.toContain(refresh.slice(4, 20))
  })
})
