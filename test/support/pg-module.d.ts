/**
 * The little of `pg` (node-postgres, installed with @effect/sql-pg) that the
 * test helpers use to create databases and check the server; the project
 * has no `@types/pg`.
 */
declare module "pg" {
  interface ClientConfig {
    readonly connectionString?: string
    readonly host?: string
    readonly port?: number
    readonly user?: string
    readonly database?: string
    readonly connectionTimeoutMillis?: number
  }
  class Client {
    constructor(config: ClientConfig)
    connect(): Promise<void>
    query(text: string, params?: Array<unknown>): Promise<{ rows: Array<unknown> }>
    end(): Promise<void>
  }
  const pg: { readonly Client: typeof Client }
  export default pg
}
