/**
 * Secret-shaped test values, built from pieces at run time so that the
 * repository holds no literal that a secret scanner would flag. Each is a
 * fresh random-looking value of the documented shape, keyed by the rule
 * that must catch it.
 */

let seed = 0x9e3779b9
/** Deterministic pseudo-random characters of `alphabet` (xorshift32). */
const rand = (n: number, alphabet: string) => {
  let out = ""
  for (let i = 0; i < n; i++) {
    seed ^= seed << 13
    seed ^= seed >>> 17
    seed ^= seed << 5
    out += alphabet[(seed >>> 0) % alphabet.length]
  }
  return out
}
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
const UPNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
const B64URL = ALNUM + "-_"
const HEX = "0123456789abcdef"
const j = (...parts: Array<string>) => parts.join("")
const b64url = (s: string) => Buffer.from(s).toString("base64url")
/** `n` characters of crypt(3)'s alphabet (`./0-9A-Za-z`), a fixed sequence picked by `k` (no draw of {@link rand}). */
const crypt = (n: number, k: number) => Array.from({ length: n }, (_, i) => `./${ALNUM}`[(i * 17 + k * 31 + ((i * i) >> 2)) % 64]).join("")
/** `n` characters of base64's alphabet without padding (Argon2's salt and hash), as {@link crypt} picks them. */
const b64 = (n: number, k: number) => Array.from({ length: n }, (_, i) => `${ALNUM}+/`[(i * 19 + k * 29 + ((i * i) >> 2)) % 64]).join("")

/** Samples of every key shape, by the rule id that must redact them (the whole sample is the secret). */
export const secretSamples = (): Record<string, ReadonlyArray<string>> => ({
  "openai-key": [
    j("sk", "-proj-", rand(40, B64URL), "T3Blbk", "FJ", rand(40, B64URL)),
    j("sk", "-", rand(20, ALNUM), "T3Blbk", "FJ", rand(20, ALNUM)),
    j("sk", "-svcacct-", rand(60, B64URL), "7"),
    j("sk", "-admin-", rand(50, B64URL), "3")
  ],
  "anthropic-key": [
    j("sk", "-ant-", "api03-", rand(93, B64URL), "AA"),
    j("sk", "-ant-", "admin01-", rand(93, B64URL), "AA"),
    j("sk", "-ant-", "oat01-", rand(80, B64URL))
  ],
  "github-token": [
    j("gh", "p_", rand(36, ALNUM)),
    j("gh", "o_", rand(36, ALNUM)),
    j("gh", "u_", rand(36, ALNUM)),
    j("gh", "s_", rand(36, ALNUM)),
    j("gh", "r_", rand(36, ALNUM)),
    j("git", "hub_pat_", rand(22, ALNUM), "_", rand(59, ALNUM))
  ],
  "aws-access-key": [j("AK", "IA", rand(16, UPNUM)), j("AS", "IA", rand(16, UPNUM))],
  // (a second sample since session 16: with one, the differential test's random strings reached the rule too rarely)
  "google-api-key": [j("AI", "za", "Sy", rand(33, B64URL)), j("AI", "za", "Sy", rand(33, ALNUM))],
  "slack-token": [
    j("xo", "xb-", rand(12, "0123456789"), "-", rand(13, "0123456789"), "-", rand(24, ALNUM)),
    j("xo", "xp-", rand(12, "0123456789"), "-", rand(12, "0123456789"), "-", rand(13, "0123456789"), "-", rand(32, HEX)),
    j("xa", "pp-1-", rand(11, UPNUM), "-", rand(13, "0123456789"), "-", rand(64, HEX)),
    j("https://hooks.", "slack.com/services/", "T", rand(8, UPNUM), "/B", rand(8, UPNUM), "/", rand(24, ALNUM))
  ],
  "stripe-key": [
    j("sk", "_live_", rand(24, ALNUM)),
    j("sk", "_test_", rand(99, ALNUM)),
    j("rk", "_live_", rand(24, ALNUM)),
    j("wh", "sec_", rand(32, ALNUM))
  ],
  "npm-token": [j("np", "m_", rand(36, ALNUM))],
  jwt: [
    j(b64url(JSON.stringify({ alg: "HS256", typ: "JWT" })), ".", b64url(JSON.stringify({ sub: "1234567890", name: "X", iat: 1516239022 })), ".", rand(43, B64URL)),
    j(b64url(JSON.stringify({ alg: "none" })), ".", b64url(JSON.stringify({ sub: "u" })), ".")
  ],
  "private-key": [
    j("-----BEGIN ", "RSA PRIVATE KEY-----\n", rand(64, ALNUM), "\n", rand(64, ALNUM), "\n", rand(20, ALNUM), "==\n-----END ", "RSA PRIVATE KEY-----"),
    j("-----BEGIN ", "PRIVATE KEY-----\\n", rand(64, ALNUM), "\\n", rand(30, ALNUM), "\\n-----END ", "PRIVATE KEY-----"),
    j("-----BEGIN ", "OPENSSH PRIVATE KEY-----\n", rand(70, ALNUM), "\n-----END ", "OPENSSH PRIVATE KEY-----"),
    j(
      "-----BEGIN ",
      "EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,",
      rand(32, "0123456789ABCDEF"),
      "\n\n",
      rand(64, ALNUM),
      "\n-----END ",
      "EC PRIVATE KEY-----"
    )
  ],
  email: [j("alice.", rand(5, "abcdefgh"), "@", "example", ".com"), j("bob+tag", "@", "mail.", "corp", ".co.uk")],
  // found by a fresh user (session 7): GitLab and Hugging Face tokens
  "gitlab-token": [j("gl", "pat-", rand(20, B64URL.replace(/[-_]/g, "") + "-"), "Q7"), j("gl", "pat-", rand(27, ALNUM), ".01.", rand(9, "abcdefghijklmnopqrstuvwxyz0123456789")), j("gl", "dt-", rand(20, ALNUM))],
  "huggingface-token": [j("h", "f_", rand(33, ALNUM), "Q"), j("h", "f_", "wX", rand(30, "abcdefghijklmnopqrstuvwxyz"))],
  // session 8: a Twilio API key SID (SK, 32 lower-case hex digits, a digit and a letter among them)
  "twilio-api-key": [j("S", "K", rand(30, HEX), "a7"), j("S", "K", "4f", rand(30, HEX))],
  "sendgrid-key": [j("S", "G.", rand(22, B64URL), ".", rand(43, B64URL)), j("S", "G.", rand(22, ALNUM), ".", rand(43, ALNUM))],
  "age-secret-key": [j("AGE-", "SECRET-KEY-1", rand(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")), j("AGE-", "SECRET-KEY-1", rand(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"))],
  // session 16: PyPI API tokens (a macaroon, base64url)
  "pypi-token": [j("py", "pi-AgE", rand(90, B64URL)), j("py", "pi-AgEN", rand(120, ALNUM))],
  // session 20 (tester20b F3): more vendor tokens known by a prefix, their shapes as gitleaks' rules give them
  "perplexity-key": [j("pp", "lx-", rand(48, ALNUM)), j("pp", "lx-", rand(48, ALNUM))],
  "notion-token": [j("nt", "n_", rand(11, "0123456789"), rand(35, ALNUM)), j("nt", "n_", rand(11, "0123456789"), rand(35, ALNUM))],
  "atlassian-token": [j("ATA", "TT3", rand(178, B64URL), "=", rand(7, "0123456789ABCDEF")), j("ATA", "TT3x", rand(185, ALNUM))],
  "doppler-token": [j("dp.", "pt.", rand(43, ALNUM)), j("dp.", "pt.", rand(43, ALNUM))],
  "pulumi-token": [j("pu", "l-", rand(40, HEX)), j("pu", "l-", rand(40, HEX))],
  "terraform-cloud-token": [j(rand(14, ALNUM), ".atl", "asv1.", rand(66, B64URL)), j(rand(14, ALNUM), ".atl", "asv1.", rand(60, ALNUM))],
  "newrelic-key": [j("NR", "AK-", rand(27, UPNUM)), j("NR", "II-", rand(32, "abcdefghijklmnopqrstuvwxyz0123456789-"))],
  "dynatrace-token": [j("dt0", "c01.", rand(24, UPNUM), ".", rand(64, UPNUM)), j("dt0", "c01.", rand(24, ALNUM), ".", rand(64, ALNUM))],
  "flyio-token": [j("fo", "1_", rand(43, B64URL)), j("fm", "2_", rand(120, ALNUM + "+/"), "==")],
  "square-token": [j("sq0", "atp-", rand(22, B64URL)), j("sq0", "atp-", rand(40, ALNUM))],
  "mailchimp-key": [j(rand(32, HEX), "-us", "12"), j(rand(32, HEX), "-us", "6")],
  "heroku-key": [j("HR", "KU-AA", rand(58, B64URL)), j("HR", "KU-AA", rand(58, ALNUM))],
  "planetscale-token": [j("pscale", "_tkn_", rand(43, B64URL)), j("pscale", "_pw_", rand(32, ALNUM))],
  "shippo-token": [j("shippo", "_live_", rand(40, HEX)), j("shippo", "_test_", rand(40, HEX))],
  "cloudflare-origin-key": [j("v1", ".0-", rand(24, HEX), "-", rand(146, HEX)), j("v1", ".0-", rand(24, HEX), "-", rand(146, HEX))],
  // session 21: the vendor tokens session 20 left out, their shapes as the scanners cited in src/domain/redaction/rules.ts give them
  "replicate-token": [j("r", "8_", rand(36, B64URL), "7"), j("r", "8_", rand(37, ALNUM))],
  "langsmith-key": [j("lsv2", "_pt_", rand(32, HEX), "_", rand(10, HEX)), j("lsv2", "_sk_", rand(32, HEX), "_", rand(10, HEX))],
  "supabase-token": [j("sb", "p_", rand(40, HEX)), j("sb", "p_oauth_", rand(40, HEX))],
  "docker-hub-token": [j("dckr", "_pat_", rand(26, B64URL), "Q"), j("dckr", "_oat_", rand(32, ALNUM))],
  "cloudflare-token": [j("cf", "ut_", rand(40, ALNUM), rand(6, ALNUM)), j("cf", "at_", rand(40, B64URL), "9z")],
  "adafruit-key": [j("ai", "o_", rand(27, ALNUM), "4"), j("ai", "o_", "X", rand(27, ALNUM))],
  "mailgun-key": [j("ke", "y-", "0f", rand(30, HEX)), j("pub", "key-", rand(30, HEX), "9c")],
  "square-secret": [j("sq0", "csp-", rand(43, B64URL)), j("sq0", "csp-", rand(43, ALNUM))],
  "square-access-token": [j("EA", "AA", "Ex", rand(56, ALNUM), "a1"), j("EA", "AA", "l", rand(58, B64URL), "9")],
  // session 19 (tester19 F1): vendor tokens known by a fixed prefix, their formats as gitleaks and trufflehog state them
  "groq-key": [j("gs", "k_", rand(52, ALNUM)), j("gs", "k_", rand(52, ALNUM))],
  "xai-key": [j("xa", "i-", rand(80, ALNUM)), j("xa", "i-", rand(80, ALNUM))],
  "vault-token": [j("hv", "s.", rand(95, B64URL)), j("hv", "b.", rand(150, B64URL)), j("hv", "r.", rand(92, ALNUM))],
  "google-oauth-secret": [j("GOC", "SPX-", rand(28, B64URL)), j("GOC", "SPX-", rand(28, ALNUM))],
  "google-oauth-token": [j("ya", "29.", "a0", rand(120, B64URL)), j("ya", "29.", rand(60, ALNUM))],
  "digitalocean-token": [j("do", "p_v1_", rand(64, HEX)), j("do", "o_v1_", rand(64, HEX)), j("do", "r_v1_", rand(64, HEX))],
  "shopify-token": [j("shp", "at_", rand(32, HEX)), j("shp", "ca_", rand(32, HEX)), j("shp", "pa_", rand(32, HEX)), j("shp", "ss_", rand(32, "0123456789ABCDEF"))],
  "sentry-token": [j("sntr", "yu_", rand(64, HEX)), j("sntr", "ys_eyJ", b64url(JSON.stringify({ iat: 1700000000, region_url: "https://us.sentry.io", org: "acme" })).replace(/[-_]/g, "A"), "_", rand(43, ALNUM))],
  "discord-bot-token": [j(b64url(j("1", rand(18, "0123456789"))), ".", rand(6, B64URL), ".", rand(38, B64URL)), j(b64url(j("9", rand(17, "0123456789"))), ".", rand(6, B64URL), ".", rand(27, B64URL))],
  "telegram-bot-token": [j("7", rand(9, "0123456789"), ":AA", rand(33, B64URL)), j("5", rand(8, "0123456789"), ":AA", rand(33, ALNUM))],
  "linear-api-key": [j("lin", "_api_", rand(40, ALNUM)), j("lin", "_api_", rand(40, ALNUM))],
  "postman-api-key": [j("PM", "AK-", rand(24, HEX), "-", rand(34, HEX)), j("PM", "AK-", rand(24, HEX), "-", rand(34, HEX))],
  "grafana-token": [j("gl", "sa_", rand(32, ALNUM), "_", rand(8, HEX)), j("gl", "c_", rand(80, ALNUM + "+/"), "==")],
  "databricks-token": [j("da", "pi", rand(32, HEX)), j("da", "pi", rand(32, HEX), "-3")],
  // session 26 (tester25a F4): crypt(3) hashes, from a fixed sequence (no draw of `rand`: the samples after these keep their values)
  "password-hash": [
    j("$", "6", "$", crypt(16, 1), "$", crypt(86, 2)),
    j("$", "5", "$rounds=10000$", crypt(16, 3), "$", crypt(43, 4)),
    j("$", "1", "$", crypt(8, 5), "$", crypt(22, 6)),
    j("$", "apr1", "$", crypt(8, 7), "$", crypt(22, 8)),
    j("$", "2b", "$12$", crypt(53, 9)),
    j("$", "y", "$j9T$", crypt(24, 10), "$", crypt(43, 11)),
    j("$", "argon2id", "$v=19$m=65536,t=3,p=4$", b64(22, 12), "$", b64(43, 13))
  ],
  // session 35 (tester35a F9): gitleaks' prefixed rules that were missing, and Google's refresh token (last: the draws
  // of `rand` for the samples above keep their values)
  "azure-ad-client-secret": [j(rand(3, ALNUM), "8Q", "~", rand(34, ALNUM + "_~.-")), j(rand(4, ALNUM), "3Q", "~", rand(32, ALNUM))],
  "google-refresh-token": [j("1/", "/0", rand(60, B64URL), "a1"), j("1/", "/0", "gA", rand(100, ALNUM), "9")],
  "onepassword-secret": [j("op", "s_eyJ", rand(260, ALNUM + "+/"), "="), j("A", "3-", rand(6, "ABCDEFGHJKLMNPQRSTVWXYZ23456789"), "-", rand(11, "ABCDEFGHJKLMNPQRSTVWXYZ23456789"), "-", rand(5, "ABCDEFGHJKLMNPQRSTVWXYZ23456789"), "-", rand(5, "ABCDEFGHJKLMNPQRSTVWXYZ23456789"), "-", rand(5, "ABCDEFGHJKLMNPQRSTVWXYZ23456789"))],
  "artifactory-key": [j("AK", "Cp", rand(67, ALNUM), "a1"), j("AK", "Cp", "Z9", rand(67, ALNUM))],
  "clojars-token": [j("CLOJ", "ARS_", rand(60, "abcdefghijklmnopqrstuvwxyz0123456789"))],
  "duffel-token": [j("duf", "fel_live_", rand(43, B64URL)), j("duf", "fel_test_", rand(43, ALNUM))],
  "easypost-token": [j("EZ", "AK", rand(52, ALNUM), "a1"), j("EZ", "TK", "Q7", rand(52, ALNUM))],
  "frameio-token": [j("fio", "-u-", rand(64, B64URL))],
  "infracost-token": [j("ic", "o-", rand(30, ALNUM), "a1"), j("ic", "o-", "Z9", rand(30, ALNUM))],
  "intra42-secret": [j("s-s4", "t2ud-", rand(64, HEX)), j("s-s4", "t2af-", rand(64, HEX))],
  "openshift-token": [j("sha2", "56~", rand(43, B64URL))],
  "prefect-token": [j("pn", "u_", rand(34, ALNUM), "a1"), j("pn", "u_", "Z9", rand(34, ALNUM))],
  "readme-token": [j("rd", "me_", rand(70, "abcdefghijklmnopqrstuvwxyz0123456789"))],
  "rubygem-api-token": [j("ruby", "gems_", rand(48, HEX))],
  "scalingo-token": [j("tk-", "us-", rand(48, B64URL))],
  "sendinblue-key": [j("xkey", "sib-", rand(64, HEX), "-", rand(16, ALNUM)), j("xkey", "sib-", rand(64, HEX), "-", rand(16, ALNUM))],
  "sourcegraph-token": [j("sg", "p_", rand(16, HEX), "_", rand(40, HEX)), j("sg", "p_", rand(40, HEX))],
  "harness-token": [j("pa", "t.", rand(22, B64URL), ".", rand(24, ALNUM), ".", rand(20, ALNUM)), j("sa", "t.", rand(22, ALNUM), ".", rand(24, ALNUM), ".", rand(20, ALNUM))],
  "alibaba-access-key": [j("LT", "AI", rand(18, ALNUM), "a1"), j("LT", "AI", "5t", rand(18, ALNUM))],
  "facebook-token": [j("EA", "AC", rand(120, ALNUM)), j("EA", "AM", rand(150, ALNUM))],
  "adobe-client-secret": [j("p8", "e-", rand(30, ALNUM), "a1"), j("p8", "e-", "Z9", rand(30, ALNUM))],
  "maxmind-key": [j(rand(6, ALNUM), "_", rand(29, ALNUM), "_m", "mk")],
  "settlemint-token": [j("sm", "_pat_", rand(14, ALNUM), "a1"), j("sm", "_aat_", "Z9", rand(14, ALNUM))]
})

/**
 * Secrets that sit after a name the rule keeps (`postgres://user:` …,
 * `API_KEY=` …): `[text, secret]`, the secret being what must go.
 */
export const contextualSamples = (): Record<string, ReadonlyArray<readonly [string, string]>> => {
  const pw = () => j("pw", rand(14, ALNUM))
  const a = pw(), b = pw(), c = pw(), d = pw(), e = pw(), f = pw(), g = pw(), h = pw(), i = pw()
  const aws = () => j(rand(20, ALNUM), "/", rand(19, ALNUM))
  const awsA = aws(), awsB = aws(), awsC = aws()
  const bearer = j("tok", rand(20, ALNUM), "9"), basic = j("dXNlcj", rand(10, ALNUM), "3", "==")
  const q1 = j(rand(40, ALNUM), "7"), q2 = j(rand(30, B64URL), "2"), q3 = rand(64, HEX), q4 = j("IQoJb3JpZ2luX2Vj", rand(60, ALNUM), "%2F", rand(20, ALNUM))
  const q5 = j(rand(20, ALNUM), "%2B", rand(10, ALNUM), "%3D"), q6 = j("K", rand(30, ALNUM), "5")
  const f1 = j(rand(32, ALNUM), "1"), f2 = j(rand(32, ALNUM), "2"), f3 = j("hunter2", rand(12, ALNUM)), f4 = rand(24, ALNUM), f5 = j(rand(30, ALNUM), "3"), f6 = j("pw", rand(10, ALNUM), "9")
  const pin = j("8", rand(9, "0123456789"))
  const okta = j("0", "0", rand(39, B64URL), "x")
  const twilio = j("S", "K", rand(30, HEX), "c3")
  const kubeKey = j("LS0tLS1CRUdJTi", rand(60, ALNUM), "==")
  const kubeKey2 = j("LS0tLS1CRUdJTi", rand(80, ALNUM + "+/"))
  const keyBase = rand(64, HEX)
  const sudoPw = j(rand(8, ALNUM), "7!")
  const awsNear = j("Ab1", rand(37, ALNUM + "/+"))
  const awsNearId = rand(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
  const escBody = j(rand(30, ALNUM), "9")
  const sudoPw2 = j("r00t", rand(8, ALNUM))
  const pypi = j("py", "pi-AgE", rand(100, B64URL))
  const escGhp = j(rand(35, ALNUM), "Q")
  // (not drawn: a draw here would change every sample drawn after it)
  const escGhp2 = j([...escGhp.slice(0, 35)].reverse().join(""), "7")
  const argA = j(rand(14, ALNUM), "4"), argB = j("pw", rand(16, ALNUM), "7")
  // session 22 (tester22b F5): passwords in SQL, piped to a command's stdin, in a command's own options and arguments
  const cmd = () => j("Pw", rand(10, ALNUM), "!7")
  const sq1 = cmd(), sq2 = cmd(), st1 = cmd(), cp1 = cmd(), cp2 = cmd(), cp3 = j("Z", rand(10, ALNUM), "9"), co1 = cmd(), ht1 = cmd(), ht2 = cmd(), ss1 = cmd()
  const pp1 = cmd(), pp2 = cmd(), cs1 = cmd(), cs2 = cmd(), cf1 = cmd(), cf2 = cmd(), up1 = cmd(), rp1 = cmd(), tf1 = cmd()
  return {
    "url-credentials": [
      [`postgres://app:${a}@db.internal:5432/prod`, a],
      [`mongodb+srv://root:${b}@cluster0.example.net/test`, b],
      [`redis://:${c}@cache:6379/0`, c],
      [`https://user:${d}@git.example.com/repo.git`, d]
    ],
    "secret-assignment": [
      [`OPENAI_API_KEY=${e}`, e],
      [`export GITHUB_TOKEN="${f}"`, f],
      [`CLIENT_SECRET='${g}' node app.js`, g],
      [`PGPASSWORD=${h} psql -h db`, h],
      [`Server=db;Database=x;User Id=sa;Password=${i};`, i]
    ],
    // found by a fresh user: credentials files, YAML and JSON, and HTTP headers
    "aws-secret-key": [
      [`[default]\naws_access_key_id = x\naws_secret_access_key = ${awsA}\n`, awsA],
      [`env:\n  AWS_SECRET_ACCESS_KEY: ${awsB}`, awsB],
      [`{"AccessKeyId": "x", "SecretAccessKey": "${awsC}"}`, awsC],
      // session 16: a bare one next to its key id
      [`use ${j("AK", "IA", awsNearId)} and secret ${awsNear}`, awsNear]
    ],
    "bearer-token": [
      [`curl -H 'Authorization: Bearer ${bearer}' https://api.example.com`, bearer],
      [`Authorization: Basic ${basic}`, basic]
    ],
    // found by a fresh user (session 7): credentials in query strings, JSON and YAML fields
    "url-query-secret": [
      [`https://api.example.com/v1?access_token=${q1}&x=1`, q1],
      [`curl 'https://x.example/cb#state=1&access_token=${q2}'`, q2],
      [`https://bucket.s3.amazonaws.com/o?X-Amz-Algorithm=AWS4&X-Amz-Signature=${q3}&X-Amz-Security-Token=${q4}`, q3],
      [`GET /export?sig=${q5}&se=2025 HTTP/1.1`, q5],
      [`https://maps.example/api?key=${q6}&q=paris`, q6]
    ],
    "secret-field": [
      [`{"api_key": "${f1}"}`, f1],
      [`{\\"client_secret\\": \\"${f2}\\", \\"id\\": 1}`, f2],
      [`config:\n  password: ${f3}\n  user: app`, f3],
      [`{'token': '${f4}'}`, f4],
      [`const opts = { apiKey: "${f5}" }`, f5],
      [`DB_PASS: ${f6}`, f6],
      // session 10: a PIN under a password's name, a member assigned; session 11: plural names, backticks
      [`{"db_password": ${pin}, "user": "app"}`, pin],
      [`self.password = "${f3}"`, f3],
      [`{"apiKeys": "${f1}"}`, f1],
      ["password = `" + f6 + "`", f6],
      // session 22: Go's `:=`, a typed declaration (Kotlin, Swift, TypeScript)
      [`  password := "${f1}"`, f1],
      [`  val dbPassword: String = "${f5}"`, f5]
    ],
    // (each after a prompt, `mysql> `, `$ `: a line that starts with a word may be read as the rest of a key wrapped
    // over the line before, when the property test of redaction-rules7 puts one there)
    "sql-password": [[`mysql> ALTER USER 'app'@'%' IDENTIFIED BY '${sq1}';`, sq1], [`mysql> SET PASSWORD FOR 'bob'@'localhost' = PASSWORD('${sq2}');`, sq2]],
    "stdin-password": [[`$ echo "${st1}" | docker login -u bob --password-stdin`, st1]],
    "command-password": [[`$ keytool -list -keystore ks.jks -storepass ${cp1}`, cp1], [`$ ssh-keygen -t ed25519 -N '${cp2}' -f deploy`, cp2], [`$ 7z a -p${cp3} backup.7z db.sql`, cp3]],
    "connect-password": [[`$ sqlplus -s app/${co1}@//db:1521/orcl`, co1]],
    "htpasswd-password": [[`$ htpasswd -b -c .htpasswd admin ${ht1}`, ht1], [`$ htpasswd -nbB admin '${ht2}'`, ht2]],
    "securestring-password": [[`$pw = ConvertTo-SecureString "${ss1}" -AsPlainText -Force`, ss1]],
    // session 23 (tester23b F2, F4): command-line passwords of other shapes, a Terraform variable's default
    // session 26 (tester25a F5): a password a process substitution writes
    "email-obfuscated": [[`write to bob.hidden.user [at] corp-example.com`, "bob.hidden.user"], [`mail carol.q (at) mail.example.org today`, "carol.q"]],
    "substituted-password": [[`$ sshpass -f <(echo '${pp2}') ssh deploy@host uptime`, pp2], [`$ restic --password-file <(echo ${pp1}) backup /srv`, pp1]],
    "piped-password": [[`$ echo '${pp1}' | vncpasswd -f > ~/.vnc/passwd`, pp1], [`$ printf '%s\\n' ${pp2} | sudo -S systemctl restart app`, pp2], [`$ chpasswd <<< 'alice:${pp1}'`, pp1]],
    "command-secret": [[`$ gh secret set DEPLOY_KEY --body ${cs1}`, cs1], [`$ rabbitmqctl add_user bob '${cs2}'`, cs2], [`$ security add-generic-password -a bob -s svc -w ${cs1}`, cs1], [`$ wpa_passphrase HomeNet ${cs2}`, cs2]],
    "config-secret": [[`$ npm config set //registry.npmjs.org/:_authToken ${cf1}`, cf1], [`$ yarn config set npmAuthToken ${cf1}`, cf1], [`$ poetry config http-basic.repo alice ${cf2}`, cf2]],
    "user-password": [[`$ smbclient //srv/share -U alice%${up1}`, up1], [`$ rpcclient -U 'CORP\\bob%${up1}' 10.0.0.1`, up1]],
    "redis-password": [[`127.0.0.1:6379> AUTH ${rp1}`, rp1], [`$ redis-cli CONFIG SET requirepass '${rp1}'`, rp1]],
    "terraform-variable": [[`variable "db_password" {\n  default = "${tf1}"\n}`, tf1], [`variable "conn" {\n  default   = "${tf1}"\n  sensitive = true\n}`, tf1]],
    // session 10: a header as a name/value pair (its own id since session 11)
    "secret-pair": [
      [`headers: [["Accept", "*/*"], ["X-Api-Key", "${f2}"]]`, f2],
      [`{"name": "Authorization", "value": "${f5}"}`, f5],
      [`<add key="ApiKey" value="${f1}"/>`, f1]
    ],
    "npm-token": [[`//registry.npmjs.org/:_authToken=${f1}`, f1]],
    "twilio-api-key": [[`twilio api:core:keys:fetch --sid ${twilio}`, twilio]],
    "kubeconfig-key": [[`    client-key-data: ${kubeKey}`, kubeKey], [`{"user": {"client-key-data": "${kubeKey2}"}}`, kubeKey2]],
    "secret-key-base": [[`SECRET_KEY_BASE=${keyBase} bin/rails s`, keyBase]],
    "sudo-password": [[`echo '${sudoPw}' | sudo -S apt-get install -y jq`, sudoPw], [`echo ${sudoPw2} | sudo -k -S systemctl restart nginx`, sudoPw2]],
    "pypi-token": [[`twine upload -u __token__ -p ${pypi} dist/*`, pypi]],
    // session 16: a token written with JSON or HTML escapes
    // (session 23: C's and Python's `\x`, a numeric reference with leading zeros)
    "escaped-token": [[`{"note": "\\u0073k-proj-${escBody}"}`, escBody], [`ghp&#95;${escGhp}`, escGhp], [`ghp\\x5f${escGhp2}`, escGhp2], [`ghp&#095;${escGhp2}`, escGhp2]],
    // session 24 (tester24a F7): a secret's JSON key written with escapes inside its name
    "escaped-name": [[`{"pass\\u0077ord": "${f3}"}`, f3], [`{"api\\u005fkey": "${f6}"}`, f6]],
    // session 11: objects and arrays under a secret's name, INI lines, YAML blocks, PINs, prose, header maps
    "secret-nested": [[`{"credentials": {"user": "app", "pass": "${f3}"}}`, f3], [`{"tokens": ["${f4}", "${f5}"]}`, f4]],
    "secret-line": [[`\n[db]\nhost = x\npassword = ${f3}\n`, f3], [`\nspring.datasource.password = ${f6}\n`, f6]],
    // session 25 (tester25a F11): no draw of its own (a draw would change every sample drawn after it)
    "secret-spaced-key": [[`{"Db Password": "${f1}"}`, f1], [`{'API Key': '${f5}'}`, f5]],
    // tester20b F8: a lower-case name_password=value word of a command line
    "secret-argument": [[`terraform apply -var db_password=${argA} -auto-approve`, argA], [`ansible-playbook -e "ansible_become_pass=${argB}"`, argB]],
    "secret-block": [[`\ndb:\n  password: |\n    ${f3}\n  host: x\n`, f3], [`\n- name: API_TOKEN\n  value: >-\n    ${f5}\n`, f5]],
    "secret-pin": [[`{"pin": "${pin.slice(0, 6)}"}`, pin.slice(0, 6)], [`card_cvv: ${pin.slice(0, 3)}`, `cvv: ${pin.slice(0, 3)}`]],
    "token-prose": [[`the token is ${f6}, keep it`, f6], [`API key: ${f5}`, f5]],
    "authorization": [[`{"Authorization": "${f4}"}`, f4], [`{"headers": {"Proxy-Authorization": "Token ${f4}x"}}`, f4]],
    // session 8: Azure connection-string keys, a password told in prose
    "azure-storage-key": [
      [`DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=${q6}${f4}==;EndpointSuffix=core.windows.net`, `${q6}${f4}==`],
      [`Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${f1}=`, `${f1}=`]
    ],
    "password-prose": [[`my password is ${f3}, sorry`, f3], [`The Password is: ${f6}!`, f6]],
    // session 24: a password told in another language (tester24a F8)
    "password-prose-intl": [[`Passwort: ${f3}, danke`, f3], [`le mot de passe est ${f6}.`, f6]],
    // session 9: XML elements, cookie headers
    "secret-element": [[`<config><password>${f3}</password></config>`, f3], [`<ClientSecret>${f5}</ClientSecret>`, f5]],
    "cookie": [[`curl -H 'Cookie: session=${f4}; theme=dark' https://x.example`, f4], [`Set-Cookie: sid=${f1}; Path=/; HttpOnly`, f1]],
    // session 21: an Okta API token after its scheme `SSWS` or a name holding `okta`
    "okta-token": [[`curl -H "Authorization: SSWS ${okta}" https://acme.okta.com/api/v1/users`, okta], [`okta_api_token: ${okta}`, okta]]
  }
}

/** Home paths and what they must become. */
export const homePathSamples = (): ReadonlyArray<readonly [string, string, string]> => [
  // [text, redacted, the user name that must go]
  ["cd /home/zed-canary/proj && ls", "cd ~/proj && ls", "zed-canary"],
  ["/Users/zed.canary/Library/x", "~/Library/x", "zed.canary"],
  ["C:\\Users\\ZedCanary\\src\\app", "~\\src\\app", "ZedCanary"],
  ["\"C:\\\\Users\\\\ZedCanary\\\\src\"", "\"~\\\\src\"", "ZedCanary"],
  ["file:///home/zedcanary", "file://~", "zedcanary"]
]

/** Values that must stay unchanged (no rule may match). */
export const innocents = (): ReadonlyArray<string> => {
  const sha = rand(40, HEX)
  const uuid = `${rand(8, HEX)}-${rand(4, HEX)}-4${rand(3, HEX)}-8${rand(3, HEX)}-${rand(12, HEX)}`
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(Array.from({ length: 30000 }, (_, k) => (k * 7919 + (k >> 3)) % 256))])
  return [
    sha,
    `commit ${sha}\nAuthor: CI\n`,
    uuid,
    `sha256:${rand(64, HEX)}`,
    `data:image/png;base64,${png.toString("base64")}`,
    png.toString("base64"),
    "const apiKey = process.env.API_KEY",
    "password: string",
    "interface Login { username: string; password: string }",
    "if (password === confirmPassword) return true",
    "const token = await getToken()",
    "git@github.com:org/repo.git",
    "![logo](assets/logo@2x.png)",
    "npm install react@18.2.0 @types/node",
    "https://example.com/docs/home/index.html",
    "ls /var/log /etc/hosts /tmp/x",
    "the disk-usage-report-generator-2024 task",
    "export API_KEY=$API_KEY",
    "TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "KEY_PREFIX is fine; MONKEY=banana",
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
    "eyJhbGciOi is a header fragment",
    "postgres://localhost:5432/db",
    "Ask-ant-eater and sk-learn",
    "~/proj/src/index.ts",
    // query strings and fields that are no secret (session 7)
    "https://example.com/list?page=2&sort=asc",
    "https://example.com/search?q=token&lang=en",
    "https://example.com/?key=value&token_type=bearer",
    '{"key": "Enter", "sortKey": "createdAt", "token": "", "max_tokens": 4096}',
    "token: ${TOKEN}\npassword: $DB_PASSWORD\napi_key: \"${API_KEY}\"",
    "apiKey: process.env.API_KEY,",
    "type Config = { token: string; clientSecret?: string | undefined }",
    "The password: see the vault. Secret: none.",
    "max_token: 100\nmonkey: banana",
    // session 22: prose and code about the commands and statements that take a password
    "use IDENTIFIED BY to set the password; the IDENTIFIED BY clause.",
    "CREATE USER app IDENTIFIED BY :pw; CREATE USER x IDENTIFIED EXTERNALLY;",
    "the ssh-keygen -N flag; zip -P is insecure; ssh-keygen -N '' -f key",
    "echo $CR_PAT | docker login ghcr.io -u bob --password-stdin",
    "password := os.Getenv(\"DB_PASSWORD\")",
    "sqlplus / as sysdba",
    // session 26: a `$6`/`$5` that is no password hash (a shell variable, a price, awk's fields), a template's .pgpass line
    "echo $6 and $5; it costs $5.00 or $6,50",
    "awk '{print $1$2$3}' file; sed 's/$/x/'",
    "echo 'localhost:5432:db:user:password' > ~/.pgpass"
  ]
}
