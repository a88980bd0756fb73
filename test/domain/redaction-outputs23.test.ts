/**
 * Session 23 (tester23c F7, F9): what database clients and secret managers print when an agent reads a secret.
 * psql's aligned table (`-+-` delimiter, a centred header, `(N rows)`) and its expanded `\x` records (`-[ RECORD 1 ]`,
 * `name | value`), mysql's boxed table (`+----+`) and `\G` rows, `vault kv get`'s `Key  Value` table, Doppler's box
 * table, AWS SSM's `get-parameter --with-decryption` JSON (`Type` between `Name` and `Value`). Each secret goes,
 * as text, as JSON text and as JSON text held in a string; the borders, the names and ordinary tables stay.
 */
import { describe, expect, it } from "@effect/vitest"
import { defaultRedaction } from "../../src/services/Redaction.js"
import { allGone, stays } from "../support/redaction-asserts.js"

const r = defaultRedaction

const PSQL = [
  " username |   password    |        api_key        ",
  "----------+---------------+-----------------------",
  " admin    | Adm1nPassw0rd | k3yAbCdEfGh1234567890",
  " bob      | B0bS3cretPw   | k3yZyXwVuTs0987654321",
  " carol    | C4rolPw123x   | k3yQwErTyUi5647382910",
  "(3 rows)",
  ""
].join("\n")

describe("F7: psql and mysql query output", () => {
  it("psql's aligned table: every password and api_key cell goes, the columns stay aligned", () => {
    const out = allGone(PSQL, ["Adm1nPassw0rd", "B0bS3cretPw", "C4rolPw123x", "k3yAbCdEfGh", "k3yZyXwVuTs", "k3yQwErTyUi"], [
      " username |   password    |        api_key        ",
      "----------+---------------+-----------------------",
      " admin    | ",
      "(3 rows)"
    ])
    expect(out).toContain(" carol    | [REDACTED:secret-table]")
  })

  it("psql's aligned table with its header blanks trimmed, and two columns", () => {
    allGone(PSQL.split("\n").map((l) => l.trimEnd()).join("\n"), ["Adm1nPassw0rd", "B0bS3cretPw", "C4rolPw123x", "k3yQwErTyUi"])
    allGone(" username |   password    \n----------+---------------\n admin    | Adm1nPassw0rd\n bob      | B0bS3cretPw\n carol    | C4rolPw123x\n(3 rows)\n", [
      "Adm1nPassw0rd",
      "B0bS3cretPw",
      "C4rolPw123x"
    ])
  })

  it("psql's expanded records (\\x): a row named like a secret loses its value", () => {
    const text = "-[ RECORD 1 ]-------------------\nusername | admin\npassword | Adm1nPassw0rd\napi_key  | k3yAbCdEfGh1234567890\n-[ RECORD 2 ]-------------------\nusername | bob\npassword | hunterbob\n"
    const out = allGone(text, ["Adm1nPassw0rd", "k3yAbCdEfGh1234567890", "hunterbob"], ["-[ RECORD 1 ]-------------------", "username | admin"])
    expect(out).toContain("password | [REDACTED:")
  })

  it("mysql's boxed table and its \\G rows", () => {
    const box = [
      "+----+----------+---------------+-----------------------+",
      "| id | username | password      | api_key               |",
      "+----+----------+---------------+-----------------------+",
      "|  1 | admin    | Adm1nPassw0rd | k3yAbCdEfGh1234567890 |",
      "|  2 | bob      | B0bS3cretPw   | k3yZyXwVuTs0987654321 |",
      "+----+----------+---------------+-----------------------+",
      "2 rows in set (0.00 sec)"
    ].join("\n")
    allGone(box, ["Adm1nPassw0rd", "B0bS3cretPw", "k3yAbCdEfGh", "k3yZyXwVuTs"], ["+----+----------+", "| id | username | password      |", "|  2 | bob      | "])
    const g = "*************************** 1. row ***************************\n      id: 1\nusername: admin\npassword: hunterbob\n api_key: k3yAbCdEfGh1234567890\n1 row in set (0.00 sec)\n"
    allGone(g, ["hunterbob", "k3yAbCdEfGh1234567890"], ["username: admin"])
  })

  it("ordinary query output stays: counts, token counts, keys that are no secret", () => {
    stays(" id | token_count | max_tokens | primary_key | password_policy\n----+-------------+------------+-------------+-----------------\n  1 |        1200 |       4096 | user_id     | strict\n(1 row)\n")
    stays(" name   | value\n--------+-------\n tokens | 1200\n(1 row)\n")
    stays("-[ RECORD 1 ]--\nid          | 1\ntoken_count | 1200\nmax_tokens  | 4096\n")
    stays("+----+-------------+\n| id | token_count |\n+----+-------------+\n|  1 |        1200 |\n+----+-------------+\n")
    stays("Key              Value\n---              -----\ncreated_time     2026-11-20T10:00:00Z\nversion          3\n")
  })
})

describe("F9: secret managers", () => {
  it("vault kv get: its Data table's secret-named rows lose their values", () => {
    const text = [
      "$ vault kv get secret/app",
      "=== Secret Path ===",
      "secret/data/app",
      "",
      "======= Metadata =======",
      "Key                Value",
      "---                -----",
      "created_time       2026-11-20T10:00:00.000000Z",
      "version            3",
      "",
      "====== Data ======",
      "Key              Value",
      "---              -----",
      "api_key          k3yAbCdEfGh1234567890",
      "client_secret    Cl1entS3cretValue42",
      "db_password      Vau1tPw123x",
      "github_token     tok3nValue9876543210",
      "username         admin"
    ].join("\n")
    const out = allGone(text, ["k3yAbCdEfGh1234567890", "Cl1entS3cretValue42", "Vau1tPw123x", "tok3nValue9876543210"], [
      "====== Data ======",
      "Key              Value",
      "created_time       2026-11-20T10:00:00.000000Z",
      "username         admin"
    ])
    expect(out).toContain("db_password      [REDACTED:")
  })

  it("vault kv get -format=json and secretsmanager's SecretString", () => {
    allGone(JSON.stringify({ data: { data: { api_key: "k3yAbCdEfGh1234567890", db_password: "Vau1tPw123x" }, metadata: { version: 3 } } }, null, 2), [
      "k3yAbCdEfGh1234567890",
      "Vau1tPw123x"
    ])
    allGone(JSON.stringify({ ARN: "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf", Name: "prod/db", SecretString: "{\"username\":\"admin\",\"password\":\"SmPw123x!\"}", VersionId: "v1" }, null, 4), ["SmPw123x!"])
  })

  it("aws ssm get-parameter --with-decryption: a SecureString's value goes whatever members come between", () => {
    const p = { Parameter: { Name: "/prod/app/db_password", Type: "SecureString", Value: "SsmPar4mPw!x", Version: 3, LastModifiedDate: "2026-11-20T10:00:00.000000+00:00", ARN: "arn:aws:ssm:us-east-1:123456789012:parameter/prod/app/db_password", DataType: "text" } }
    allGone(JSON.stringify(p, null, 4), ["SsmPar4mPw!x"], ["SecureString", "Version", "/prod/app/db_password"])
    allGone(JSON.stringify(p), ["SsmPar4mPw!x"])
    // a SecureString whose name names no secret
    allGone(JSON.stringify({ Parameter: { Name: "/prod/app/dsn", Type: "SecureString", Value: "hunterdsn", Version: 1 } }, null, 4), ["hunterdsn"])
    // a String whose name is a secret's: its value goes too, members between or not
    allGone(JSON.stringify({ Parameter: { Name: "/prod/app/db_password", Type: "String", Value: "Plain1234x", Version: 1 } }, null, 4), ["Plain1234x"])
    // a plain String whose name is no secret's stays
    stays(JSON.stringify({ Parameter: { Name: "/prod/app/region", Type: "String", Value: "us-east-1", Version: 1 } }, null, 4))
  })

  it("doppler secrets: its box table's NAME | VALUE rows", () => {
    const text = [
      "┌─────────────────┬──────────────────────┐",
      "│ NAME            │ VALUE                │",
      "├─────────────────┼──────────────────────┤",
      "│ DB_PASSWORD     │ DopplerPw123x        │",
      "│ DOPPLER_CONFIG  │ dev                  │",
      "│ STRIPE_API_KEY  │ k3yAbCdEfGh123456789 │",
      "└─────────────────┴──────────────────────┘"
    ].join("\n")
    const out = allGone(text, ["DopplerPw123x", "k3yAbCdEfGh123456789"], ["│ DOPPLER_CONFIG  │ dev                  │", "│ NAME            │ VALUE                │"])
    expect(out).toContain("│ DB_PASSWORD     │ [REDACTED:")
  })
})
