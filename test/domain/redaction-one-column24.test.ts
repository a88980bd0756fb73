/**
 * Session 24: a query's one-column result (`SELECT password FROM users;`): psql prints the column's name centred, a
 * rule of `-` alone and the values, then `(N rows)`; mysql boxes it (`+----+`). A column whose header names a secret
 * loses its values, as in a table of several columns (redaction-outputs23); a name over `---` with no psql footer
 * is a Markdown heading and stays.
 */
import { describe, expect, it } from "@effect/vitest"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { allGone, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction
const M = "[REDACTED:secret-table]"

describe("a one-column query result", () => {
  it("psql: SELECT password FROM users; each value goes, the header, the rule and the footer stay", () => {
    const out = allGone("   password    \n---------------\n Adm1nPassw0rd\n hunterbob\n(2 rows)\n", ["Adm1nPassw0rd", "hunterbob"], [
      "   password    ",
      "---------------",
      "(2 rows)"
    ])
    expect(out).toBe(`   password    \n---------------\n ${M}\n ${M}\n(2 rows)\n`)
  })

  it("psql: one row, a token column, a NULL row, after the command's echo", () => {
    expect(r.text("select api_token from services;\n      api_token       \n----------------------\n tok_9f8e7d6c5b4a3\n \n(2 rows)\n\n")).toBe(
      `select api_token from services;\n      api_token       \n----------------------\n ${M}\n \n(2 rows)\n\n`
    )
    expect(r.text(" secret \n--------\n S3cr3tV4lue\n(1 row)")).toBe(` secret \n--------\n ${M}\n(1 row)`)
  })

  it("mysql's boxed one-column table: each value goes", () => {
    allGone("+---------------+\n| password      |\n+---------------+\n| Adm1nPassw0rd |\n| hunterbob     |\n+---------------+\n2 rows in set (0.00 sec)\n", [
      "Adm1nPassw0rd",
      "hunterbob"
    ], ["| password      |", "2 rows in set"])
  })

  it("what stays: another column's values, a Markdown heading named password, a rule without the footer", () => {
    stays("   username    \n---------------\n admin\n bob\n(2 rows)\n")
    stays("password\n--------\n\n Use a long passphrase here\n")
    stays("Password\n--------\n hunter2abc is an example\nmore text\n")
  })
})

describe("psql's aligned name/value output (tester24a F2)", () => {
  it("a settings table `name | value`: a row whose first cell names a secret loses its value, other rows stay", () => {
    const text = " name        | value\n-------------+--------------------------\n api_token   | Qz8kTablePw9931xx\n db_password | TblPass7781zz\n region      | eu-west-1\n(3 rows)\n"
    const out = allGone(text, ["Qz8kTablePw9931xx", "TblPass7781zz"], ["api_token", "db_password", "eu-west-1", "(3 rows)"])
    expect(out).toBe(` name        | value\n-------------+--------------------------\n api_token   | ${M}\n db_password | ${M}\n region      | eu-west-1\n(3 rows)\n`)
  })

  it("`key | value | updated` with the secret in the second column; rows past the table's end are not read as its rows", () => {
    const text = "  key   |     value      | updated\n--------+----------------+---------\n secret | Wq7sHu2kLm9pQr | today\n(1 row)\n\n secret | Wq7sHu2kLm9pQz | prose after the table\n"
    const out = r.text(text)
    expect(out).not.toContain("Wq7sHu2kLm9pQr")
    expect(out).toContain(" secret | Wq7sHu2kLm9pQz | prose after the table")
  })

  it("a Markdown table without leading pipes is not a query output: its rows are read as before", () => {
    stays("name | value\n--- | ---\nprose | words here\n")
  })
})
