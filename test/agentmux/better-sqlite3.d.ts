// Minimal typings of the better-sqlite3 API the AgentMux test helpers use
// (the package ships none and @types/better-sqlite3 is not a dependency).
declare module "better-sqlite3" {
  namespace Database {
    interface Statement {
      run(...params: ReadonlyArray<unknown>): unknown
      get(...params: ReadonlyArray<unknown>): unknown
      all(...params: ReadonlyArray<unknown>): Array<unknown>
    }
    interface Database {
      prepare(sql: string): Statement
      exec(sql: string): this
      pragma(sql: string): unknown
      transaction<A>(f: () => A): () => A
      close(): void
    }
  }
  const Database: new(filename: string, options?: { readonly?: boolean; fileMustExist?: boolean }) => Database.Database
  export default Database
}
