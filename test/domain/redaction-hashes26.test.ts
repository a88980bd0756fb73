/**
 * Session 26 (tester25a F4): a `.pgpass` line written into a command (`echo '…' > ~/.pgpass`, `printf`, a here-doc)
 * loses its password (`pgpass-password`), and a crypt(3) password hash (`/etc/shadow`'s `$6$…`, htpasswd's
 * `$apr1$…`, bcrypt, yescrypt, Argon2) goes whole (`password-hash`). The formats: PostgreSQL's .pgpass
 * (`hostname:port:database:username:password`), crypt(5)'s `$id$salt$hash` (MD5 `$1$`, SHA-256 `$5$`, SHA-512
 * `$6$` with optional `rounds=N$`, bcrypt `$2b$NN$` then 53 characters, yescrypt `$y$params$salt$hash`), Apache's
 * `$apr1$`, PHC's `$argon2id$v=19$m=…,t=…,p=…$salt$hash`. Values are made up.
 */
import { describe, expect, it } from "@effect/vitest"
import { marker } from "../../src/domain/redaction/rules.js"
import { defaultRedaction } from "../../src/services/Redaction.js"

const r = defaultRedaction
const PG = marker("pgpass-password")
const HASH = marker("password-hash")

describe("a .pgpass line written by a command (tester25a F4)", () => {
  it.each([
    ["echo 'db.internal:5432:app:app:PgEch0Pw9x' > ~/.pgpass", `echo 'db.internal:5432:app:app:${PG}' > ~/.pgpass`],
    ['echo "db.internal:5432:app:app:PgEch0Pw9x" >> ~/.pgpass', `echo "db.internal:5432:app:app:${PG}" >> ~/.pgpass`],
    ["echo db:5432:app:app:BareEch0Pw > ~/.pgpass && chmod 600 ~/.pgpass", `echo db:5432:app:app:${PG} > ~/.pgpass && chmod 600 ~/.pgpass`],
    ["echo -n '*:*:*:postgres:St4rPw!' > ~/.pgpass", `echo -n '*:*:*:postgres:${PG}' > ~/.pgpass`],
    ["printf 'localhost:5432:*:postgres:Pr1ntfPw!\\n' > ~/.pgpass", `printf 'localhost:5432:*:postgres:${PG}\\n' > ~/.pgpass`],
    ["cat > ~/.pgpass <<EOF\ndb:5432:app:app:HereD0cPw\nEOF", `cat > ~/.pgpass <<EOF\ndb:5432:app:app:${PG}\nEOF`],
    // a tool call's command in JSON text: the quotes and the `\n` maybe escaped
    ['{"command":"echo \'db:5432:app:app:JsonEch0Pw\' > ~/.pgpass"}', `{"command":"echo 'db:5432:app:app:${PG}' > ~/.pgpass"}`],
    ['{"command":"printf \\"db:5432:app:app:JsonPr1ntf\\\\n\\" > ~/.pgpass"}', `{"command":"printf \\"db:5432:app:app:${PG}\\\\n\\" > ~/.pgpass"}`],
    ['{"command":"cat > ~/.pgpass <<EOF\\ndb:5432:app:app:JsonHereD0c\\nEOF"}', `{"command":"cat > ~/.pgpass <<EOF\\ndb:5432:app:app:${PG}\\nEOF"}`],
    // a string in code
    ['f.write("db:5432:app:app:PyWr1te!\\n")', `f.write("db:5432:app:app:${PG}\\n")`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })

  it.each([
    "echo 'localhost:5432:db:user:password' > ~/.pgpass",
    "echo 'db:5432:app:app:$PGPASSWORD' > ~/.pgpass",
    "echo '12:30:45:00:11'",
    'echo "started at 10:15:30:00:05"',
    "printf '%s\\n' \"a:b:c:d:e\""
  ])("%j stays as it is", (text) => {
    expect(r.text(text)).toBe(text)
  })
})

describe("a password hash (tester25a F4)", () => {
  const sha512 = "$6$saltsalt$Sh4d0wH4shAbcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL/"
  it.each([
    [`root:${sha512}:19000:0:99999:7:::`, `root:${HASH}:19000:0:99999:7:::`],
    ["bob:$apr1$xyz12345$Htp4sswdH4shValue123.", `bob:${HASH}`],
    ["alice:$1$abcdefgh$0123456789abcdefABCDEF", `alice:${HASH}`],
    ["svc:$5$rounds=5000$saltsalt$Sha256H4shAbcdefghijklmnopqrstuvwxyz0123456", `svc:${HASH}`],
    ["carol:$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7:19500:0:99999:7:::", `carol:${HASH}:19500:0:99999:7:::`],
    ['{"password_hash": "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW"}', `{"password_hash": "${HASH}"}`],
    ["dave:$2y$10$abcdefghijklmnopqrstuu5gBCkR3OiBvdZ3pNF0Ey8d8r4nJqE1i", `dave:${HASH}`],
    ["$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG", HASH],
    // escaped `$` in a shell's double quotes and in JSON text
    ['usermod -p "\\$6\\$saltsalt\\$Sh4d0wH4shAbcdefghijklmnop" bob', `usermod -p "${HASH}" bob`]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })

  it.each([
    "echo $6 and $5",
    "it costs $5.00, or $6 with tax",
    "awk '{print $1$2$3}' file",
    "x=$1$2$3$4",
    "the $6$ prefix means SHA-512",
    "root:x:0:0:root:/root:/bin/bash",
    "root:!:19000:0:99999:7:::",
    "bob:*:19000::::::"
  ])("%j stays as it is", (text) => {
    expect(r.text(text)).toBe(text)
  })
})

describe("home-path by hand ends a display name's words where its pattern does (found by the differential test, session 26)", () => {
  // HOME_USER: up to three capitalized words when a separator or a quote follows; the pattern gives back the words'
  // apostrophes to find a quote after them, so `/home/e Y'S:` is the folder `e Y` (a quote follows it)
  it.each([
    ["/home/e Y'S:", "~'S:"],
    ["cd /home/e A'b C'd E x", "cd ~'d E x"],
    ["/home/e Y'S", "~"],
    ["/home/bob is here", "~ is here"]
  ])("%j becomes %j", (text, want) => {
    expect(r.text(text)).toBe(want)
  })
})
