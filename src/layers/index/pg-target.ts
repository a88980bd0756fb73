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
