/**
 * What names a PostgreSQL index (`postgres://user:password@host:port/db`),
 * read without loading the PostgreSQL client: whether an `--index` value is
 * one, and its parts for messages, never with its password.
 *
 * @module
 */

/** Where a PostgreSQL index is, for messages: never its password. */
export interface PgTarget {
  /** The URL without its password (`postgres://user@host:port/db`). */
  readonly shown: string
  readonly host: string
  readonly port: number
  readonly database: string
  /** The role the URL logs in as (its user name; empty: none given, `pg`'s default: `PGUSER`, else the OS user). */
  readonly user: string
  /** The password of the URL (scrubbed from any message), if any. */
  readonly password: string | undefined
  /**
   * Every form of the password a message could hold (as decoded, as written
   * in the URL, as the URL parser re-encodes it, percent-encoded), longest
   * first: each is scrubbed from a server's error message.
   */
  readonly secrets: ReadonlyArray<string>
}

/** The `sslmode` values the PostgreSQL client knows (libpq's, and `no-verify`). */
export const SSL_MODES: ReadonlyArray<string> = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full", "no-verify"]

/** How to write a password's special characters in a URL (the remedy of a malformed URL). */
export const PERCENT_ENCODE_HINT =
  "percent-encode the special characters of the user name and password: # as %23, ? as %3F, / as %2F, @ as %40, : as %3A, % as %25, a space as %20 (JavaScript: encodeURIComponent(password))"

/**
 * A printable form of a value written as a URL, whatever its shape, that
 * never holds any part of its password: the scheme, then, when there is an
 * `@` after `://`, `…@` and what follows the LAST `@` (the host, port and
 * database; a password always comes before it), without the query. With no
 * `@`, the value without its query. Used where a URL cannot be parsed
 * reliably; a well-formed URL is shown by {@link targetOf} (with its user).
 */
export const safeUrlText = (value: string): string => {
  const sep = value.indexOf("://")
  if (sep < 0) return `${value.slice(0, Math.max(0, value.indexOf(":")))}:…`
  const scheme = value.slice(0, sep)
  const rest = value.slice(sep + 3)
  const at = rest.lastIndexOf("@")
  const tail = (at < 0 ? rest : rest.slice(at + 1)).replace(/[?#].*$/s, "")
  return `${scheme}://${at < 0 ? "" : "…@"}${tail}`
}

/**
 * The printable form of an `--index` value: a URL without its password
 * (nor any part of it, even when malformed: see {@link safeUrlText}), a
 * file as it is.
 */
export const shownIndex = (index: string): string =>
  isPostgresUrl(index) && indexUrlProblem(index) === undefined ? targetOf(index).shown : looksLikeUrl(index) ? safeUrlText(index) : index

/** Whether `value` names a PostgreSQL index (`postgres://…` or `postgresql://…`) rather than a SQLite file. */
export const isPostgresUrl = (value: string): boolean => /^postgres(ql)?:\/\//i.test(value)

/**
 * Whether `value` is written as a URL (`scheme://…`, or `postgres:` with
 * its slashes mistyped), whatever its scheme: such a value is never taken
 * for a file path (which would print it, with its password, and create a
 * file named after it).
 */
export const looksLikeUrl = (value: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^postgres(ql)?:/i.test(value)

const badEscape = (part: string): boolean => {
  if (/%(?![0-9a-f]{2})/i.test(part)) return true
  try {
    decodeURIComponent(part)
    return false
  } catch {
    return true
  }
}

/**
 * What is wrong with an index value written as a URL, in words, or
 * `undefined` when it is a well-formed `postgres://` / `postgresql://` URL or
 * no URL at all (a file path). The checks: `://`; an `@` after a `/`, `?`
 * or `#` (a password with an unescaped `/`, `?` or `#` ends the host part
 * early, so the URL would be read with the password as its host, port or
 * database); the scheme; percent-escapes (user, password, database, query);
 * a host (or a `host=` query parameter, for a Unix socket); a port from 1 to
 * 65535; and `sslmode` (one of {@link SSL_MODES}). The message shows the URL
 * without its password or query (see {@link safeUrlText}); it never holds any
 * part of the password.
 */
export const indexUrlProblem = (value: string): string | undefined => {
  if (!looksLikeUrl(value)) return undefined
  const sep = value.indexOf("://")
  if (sep < 0) {
    return `${safeUrlText(value)}: not a valid URL (write postgres://user:password@host:port/database, with two slashes).`
  }
  const scheme = value.slice(0, sep)
  const rest = value.slice(sep + 3)
  const lastAt = rest.lastIndexOf("@")
  const cut = rest.search(/[/?#]/)
  if (lastAt >= 0 && cut >= 0 && cut < lastAt) {
    const found = ["#", "?", "/"].filter((c) => rest.slice(0, lastAt).includes(c))
    const encoded = found.map((c) => `${c} as %${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`).join(", ")
    return `${safeUrlText(value)}: the part before the last "@" (the user name and password) holds ${
      found.map((c) => `"${c}"`).join(" and ")
    }, which ends the host part of a URL, so the password would be read as a host, port or database (the password is not shown). Percent-encode it in the password: ${encoded} (an @ in the database name or query is written %40).`
  }
  const m = /^([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/s.exec(rest)
  if (m === null) return `${safeUrlText(value)}: not a valid URL.`
  const [, authority, path, query = ""] = m
  const at = authority.lastIndexOf("@")
  const userinfo = at < 0 ? undefined : authority.slice(0, at)
  const hostport = at < 0 ? authority : authority.slice(at + 1)
  const colon = userinfo === undefined ? -1 : userinfo.indexOf(":")
  const user = userinfo === undefined ? undefined : colon < 0 ? userinfo : userinfo.slice(0, colon)
  const password = userinfo === undefined || colon < 0 ? undefined : userinfo.slice(colon + 1)
  const shown = `${scheme}://${user !== undefined && user !== "" ? `${user}@` : ""}${hostport}${path}`
  const said = (problem: string) => `${shown}: ${problem}`
  if (!/^postgres(ql)?$/i.test(scheme)) {
    return said(`the scheme "${scheme}" is not postgres:// or postgresql:// (a file path has no scheme).`)
  }
  if (user !== undefined && badEscape(user)) return said(`the user name holds a bad percent-escape (${PERCENT_ENCODE_HINT}).`)
  if (password !== undefined && badEscape(password)) {
    return said(`the password holds a bad percent-escape (the password is not shown; ${PERCENT_ENCODE_HINT}).`)
  }
  if (badEscape(path)) return said("the database name holds a bad percent-escape (%XX, two hex digits).")
  if (badEscape(query.replace(/\+/g, " "))) return said("the query (after ?) holds a bad percent-escape (%XX, two hex digits).")
  const bracket = /^\[[^\]]*\]/.exec(hostport)
  const host = bracket !== null ? bracket[0] : hostport.split(":")[0]
  const rest2 = hostport.slice(host.length)
  const socket = /[?&]host=/.test(query)
  if (host === "" && !socket) return said("the URL names no host (postgres://user:password@HOST:5432/database).")
  if (rest2 !== "") {
    const port = rest2.slice(1)
    if (!rest2.startsWith(":") || !/^[0-9]{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
      return said(`the port "${rest2.slice(1)}" is not a number from 1 to 65535.`)
    }
  }
  for (const mode of new URLSearchParams(query.slice(1)).getAll("sslmode")) {
    if (!SSL_MODES.includes(mode)) {
      return said(`the sslmode "${mode}" is not one the PostgreSQL client knows: ${SSL_MODES.join(", ")}.`)
    }
  }
  try {
    new URL(value)
  } catch {
    return said(`the host "${host}" is not a valid host name or address.`)
  }
  return undefined
}

/**
 * The URL handed to the PostgreSQL client. `sslmode=prefer`, `require` and
 * `verify-ca` are passed on as `verify-full`, which is what the client (pg
 * 8) does with them anyway (the server's certificate is verified), so that
 * it prints no deprecation warning on the user's terminal; a URL with
 * `uselibpqcompat=true` (libpq's weaker meanings) is left as it is, as is
 * any other URL.
 */
export const connectionUrl = (url: string): string => {
  const m = /([?&])sslmode=(prefer|require|verify-ca)(?=&|#|$)/i.exec(url)
  if (m === null || /[?&]uselibpqcompat=true(?=&|#|$)/i.test(url)) return url
  return url.slice(0, m.index) + `${m[1]}sslmode=verify-full` + url.slice(m.index + m[0].length)
}

/**
 * Host, port, database and a printable form of a `postgres://` URL
 * (defaults: localhost, 5432, the user's name), and every form of its
 * password (see {@link PgTarget}). A URL {@link indexUrlProblem} finds wrong
 * is shown by {@link safeUrlText}, its parts unknown.
 */
export const targetOf = (url: string): PgTarget => {
  const forms = (values: ReadonlyArray<string | undefined>): ReadonlyArray<string> =>
    [...new Set(values.filter((v): v is string => v !== undefined && v !== ""))].sort((a, b) => b.length - a.length)
  // As written: between the first ":" of the userinfo and the last "@" (whatever the URL's shape).
  const rest = url.includes("://") ? url.slice(url.indexOf("://") + 3) : url
  const userinfo = rest.lastIndexOf("@") < 0 ? "" : rest.slice(0, rest.lastIndexOf("@"))
  const written = userinfo.includes(":") ? userinfo.slice(userinfo.indexOf(":") + 1) : undefined
  const decoded = (s: string | undefined) => {
    try {
      return s === undefined ? undefined : decodeURIComponent(s)
    } catch {
      return s
    }
  }
  const invalid = (): PgTarget => ({
    shown: safeUrlText(url),
    host: "(unknown)",
    port: 5432,
    database: "(unknown)",
    user: "(unknown)",
    password: decoded(written),
    secrets: forms([written, decoded(written), written !== undefined ? encodeURIComponent(decoded(written) ?? "") : undefined])
  })
  if (indexUrlProblem(url) !== undefined) return invalid()
  try {
    const u = new URL(url)
    const inQuery = u.searchParams.get("password")
    const password = u.password !== "" ? decoded(u.password) : inQuery !== null && inQuery !== "" ? inQuery : undefined
    const secrets = forms([
      password,
      u.password,
      written,
      decoded(written),
      password !== undefined ? encodeURIComponent(password) : undefined,
      inQuery ?? undefined
    ])
    u.password = ""
    u.searchParams.delete("password")
    const host = u.hostname === "" ? "localhost" : u.hostname
    const port = u.port === "" ? 5432 : Number(u.port)
    const user = decodeURIComponent(u.username)
    return {
      shown: u.toString(),
      host,
      port,
      database: u.pathname.length > 1 ? decodeURIComponent(u.pathname.slice(1)) : user !== "" ? user : "postgres",
      user,
      password,
      secrets
    }
  } catch {
    return invalid()
  }
}
