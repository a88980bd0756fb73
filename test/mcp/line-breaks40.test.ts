/**
 * A secret whose name and value a line break separates where the format allows one (session 40: JSON's `"password":`
 * then the value on the next line, YAML's `password:` then an indented value, `Authorization: Bearer` then the token,
 * `Cookie:` then the cookie, INI's `key =` then the value, SQL's `IDENTIFIED` then `BY '…'`, an XML attribute on its
 * own line). Every output kept the value while a title and a search snippet, their white space folded, hid it. Now
 * each is hidden in `show`, `export`, `replay` and MCP's `get_events`, `get_session`, `session://`; a search for the
 * value finds nothing, and each search snippet is a window of the text as get_events gives it (tester39 F2's
 * property, with the new view). Through the built CLI and the official SDK client.
 */
import { j } from "../support/redaction-asserts.js"
import { type Told, toldSecretsSuite } from "./told-secrets.js"

const SID = "40404040-0000-4000-8000-000000000040"
/** Each hidden value with the text it is written in (a line break between its name and it). */
const TOLD: ReadonlyArray<Told> = [
  // [the value, the text, the rule that takes it]
  ["Hx8pLm2Qz9Kb41", `hotel {"password":\n  "Hx8pLm2Qz9Kb41"}`, "secret-field"],
  ["tokVlG3E5f6wmMEZEnWBuIS9", "india curl -H 'Authorization: Bearer\r\n  tokVlG3E5f6wmMEZEnWBuIS9' https://api.example.com", "bearer-token"],
  ["Pwt2wIYYtouV7x", "lima ALTER USER 'app'@'%' IDENTIFIED\nBY 'Pwt2wIYYtouV7x';", "sql-password"],
  [j("Vv5QXwQew5QNh1mgxI2b", "/Uwj6HKHJGIYArkJmhZs"), `mike [default]\naws_secret_access_key =\n${j("Vv5QXwQew5QNh1mgxI2b", "/Uwj6HKHJGIYArkJmhZs")}\n`, "aws-secret-key"],
  ["4iR1dcAWhG4k4F9lZqKEKxIvE4dvzaXD1", `november <add key="ApiKey"\n     value="4iR1dcAWhG4k4F9lZqKEKxIvE4dvzaXD1"/>`, "secret-pair"],
  ["biQ7khxraqhelm1FlgZ5PwLG", "oscar curl -H 'Cookie:\n  session=biQ7khxraqhelm1FlgZ5PwLG; theme=dark' https://x.example", "cookie"],
  ["qUXRFdlZHyebcUIUCHOR8FzN7c0uP83", `papa val dbPassword: String =\n    "qUXRFdlZHyebcUIUCHOR8FzN7c0uP83"`, "secret-field"]
]

toldSecretsSuite({
  sid: SID,
  told: TOLD,
  shownRule: "sql-password",
  words: ["hotel", "india", "lima", "mike", "november", "oscar", "papa", "notes", "password", "Authorization", "IDENTIFIED", "ApiKey", "theme"],
  what: "a secret whose name and value a line break separates",
  tag: "session 40"
})
