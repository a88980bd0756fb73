/**
 * A credential told in prose with a line break (or a tab, CRLF, several breaks) between its words and its value
 * (tester39 F1, F2). `my password is` then the value on the next line was shown in clear by `show --format
 * markdown`, `export --format atif`, `replay` and MCP `get_events`, while the MCP search snippet (its white space
 * folded, then redacted a second time) and the title hid it; and `search_sessions` for the hidden value found the
 * event by it, its own snippet showing `[REDACTED:password-prose]` (an oracle: "this value is the right guess").
 * The prose rules now read any white space run as their separator, in every output alike, and a search snippet is a
 * window of the very redacted text its hit was decided on, never redacted again (docs/mcp.md, "A search over what is
 * shown"). Through the built CLI and the official SDK client.
 */
import { type Told, toldSecretsSuite } from "./told-secrets.js"

const SID = "39393939-0000-4000-8000-000000000039"
/** Each hidden value with the text it is told in (a separator other than one space between the words and it). */
const TOLD: ReadonlyArray<Told> = [
  // [the value, the text, the rule that takes it]
  ["Sq1oG6iEf5Cq0", "hotel my password is\nSq1oG6iEf5Cq0\nhotel done", "password-prose"],
  ["Ab12Cd34Ef56Gh", "india the token is\r\nAb12Cd34Ef56Gh now", "token-prose"],
  ["Lp4vRt8Yk2Qw", "lima passphrase was\n\n\tLp4vRt8Yk2Qw\nok", "password-prose"],
  ["Mk3jHs9Pq1Xz", "mike API key:\tMk3jHs9Pq1Xz", "token-prose"],
  ["Nv7Tq2Wz9Kb", "november the password for\nprod is Nv7Tq2Wz9Kb.", "password-prose"],
  ["Pw4De77xxQ", "oscar Das Passwort\nist Pw4De77xxQ", "password-prose-intl"],
  ["Rk8mZp3Lq6", "papa Rk8mZp3Lq6 is the\npassword for prod", "password-prose"]
]

toldSecretsSuite({
  sid: SID,
  told: TOLD,
  // (tester39 F2 by construction) a text a rule reads one way as written and another once its white space is folded
  // (`Set-Cookie:` then the cookie on the next line). The snippet's window is folded; redacted again, it hid what its
  // hit was decided on and get_events shows. Whatever the rules make of it, the snippet must be a window of the text
  // as get_events gives it.
  more: ["sierra Set-Cookie:\nsid=4iR1dcAWhG4k4F9lZqKEKxIvE4dvzaXD1; Path=/; HttpOnly"],
  shownRule: "password-prose",
  words: ["hotel", "india", "lima", "mike", "november", "oscar", "papa", "notes", "sierra", "HttpOnly"],
  what: "a credential told across a line break",
  tag: "tester39 F1, F2"
})
