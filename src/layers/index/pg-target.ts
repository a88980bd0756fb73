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
  /** The password of the URL (scrubbed from any message), if any. */
  readonly password: string | undefined
}

/**
 * The printable form of an `--index` value: a `postgres://` URL without its
 * password, a file as it is.
 */
export const shownIndex = (index: string): string => (isPostgresUrl(index) ? targetOf(index).shown : index)

/** Whether `value` names a PostgreSQL index (`postgres://…` or `postgresql://…`) rather than a SQLite file. */
export const isPostgresUrl = (value: string): boolean => /^postgres(ql)?:\/\//i.test(value)

/**
 * Whether `value` is written as a URL (`scheme://…`), whatever its scheme:
 * such a value is never taken for a file path (which would print it, with
 * its password, and create a file named after it).
 */
export const looksLikeUrl = (value: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(value)

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
 * no URL at all (a file path). The checks: the scheme, percent-escapes
 * (user, password, database, query), a host (or a `host=` query parameter,
 * for a Unix socket), and a port from 1 to 65535. The message shows the URL
 * without its password or query; it never holds the password.
 */
export const indexUrlProblem = (value: string): string | undefined => {
  if (!looksLikeUrl(value)) return undefined
  const m = /^([^:]+):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/.exec(value)
  if (m === null) return `${value.slice(0, value.indexOf(":"))}://…: not a valid URL.`
  const [, scheme, authority, path, query = ""] = m
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
  if (user !== undefined && badEscape(user)) return said("the user name holds a bad percent-escape (write a special character as %XX, two hex digits).")
  if (password !== undefined && badEscape(password)) {
    return said("the password holds a bad percent-escape (write a special character as %XX, two hex digits, e.g. %40 for @).")
  }
  if (badEscape(path)) return said("the database name holds a bad percent-escape (%XX, two hex digits).")
  if (badEscape(query.replace(/\+/g, " "))) return said("the query (after ?) holds a bad percent-escape (%XX, two hex digits).")
  const bracket = /^\[[^\]]*\]/.exec(hostport)
  const host = bracket !== null ? bracket[0] : hostport.split(":")[0]
  const rest = hostport.slice(host.length)
  const socket = /[?&]host=/.test(query)
  if (host === "" && !socket) return said("the URL names no host (postgres://user:password@HOST:5432/database).")
  if (rest !== "") {
    const port = rest.slice(1)
    if (!rest.startsWith(":") || !/^[0-9]{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
      return said(`the port "${rest.slice(1)}" is not a number from 1 to 65535.`)
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

/** Host, port, database and a printable form of a `postgres://` URL (defaults: localhost, 5432, the user's name). */
export const targetOf = (url: string): PgTarget => {
  try {
    const u = new URL(url)
    const inQuery = u.searchParams.get("password")
    const password = u.password !== "" ? decodeURIComponent(u.password) : inQuery !== null && inQuery !== "" ? inQuery : undefined
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
      password
    }
  } catch {
    return { shown: "postgres://(an invalid URL)", host: "(unknown)", port: 5432, database: "(unknown)", password: undefined }
  }
}
