/**
 * A SourceAccess test double over the Node layer that fails as a real
 * unreadable file or folder does, for tests that run as root (root ignores
 * `chmod 000`): the failures are the Node layer's own mapping of the errno
 * (`fsError`), so the importer sees exactly what it sees for a user without
 * the permission.
 */
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import { fsError, sourceAccessNode } from "../../src/layers/SourceAccessNode.js"
import type { SourceAccessShape } from "../../src/services/SourceAccess.js"

/** What to make fail. */
export type Fault =
  /** `open`/`readHead`/`readWhole` of `file` fail with `errno` (a `chmod 000` file: stat and list still work). */
  | { readonly kind: "file"; readonly file: string; readonly errno: "EACCES" | "EPERM" | "EIO" }
  /** Reads of `file` that touch a byte at or past `from` fail with `errno` (an I/O error mid-file). */
  | { readonly kind: "mid-file"; readonly file: string; readonly from: number; readonly errno: "EIO" | "EACCES" }
  /** `dir` cannot be listed and nothing below it can be reached (a `chmod 000` folder). */
  | { readonly kind: "folder"; readonly dir: string; readonly errno: "EACCES" | "EPERM" }

/** A Node-like error with `code`. */
const errnoError = (code: string) => Object.assign(new Error(code), { code })

/** The Node layer with `fault` injected. */
export const faultyAccess = (fault: Fault): SourceAccessShape => {
  const fail = (path: string) => Effect.fail(fsError(path, errnoError(fault.errno)))
  const below = (p: string) => fault.kind === "folder" && nodePath.resolve(p).startsWith(nodePath.resolve(fault.dir) + nodePath.sep)
  const isFile = (p: string) => fault.kind !== "folder" && nodePath.resolve(p) === nodePath.resolve(fault.file)
  const touches = (offset: number, length: number) => fault.kind === "mid-file" && length > 0 && offset + length > fault.from
  return {
    ...sourceAccessNode,
    authorizeFile: (p, roots, opt) => (below(p) ? fail(nodePath.resolve(p)) : sourceAccessNode.authorizeFile(p, roots, opt)),
    listDirectory: (d) =>
      fault.kind === "folder" && (nodePath.resolve(d) === nodePath.resolve(fault.dir) || below(d)) ? fail(d) : sourceAccessNode.listDirectory(d),
    probe: (p) => (below(p) ? fail(p) : sourceAccessNode.probe(p)),
    readHead: (f, length, scratch) =>
      isFile(f.path) && (fault.kind === "file" || touches(0, length)) ? fail(f.path) : sourceAccessNode.readHead(f, length, scratch),
    readWhole: (f, max) => (isFile(f.path) ? fail(f.path) : sourceAccessNode.readWhole(f, max)),
    open: (f) =>
      !isFile(f.path)
        ? sourceAccessNode.open(f)
        : fault.kind === "file"
        ? fail(f.path)
        : Effect.map(sourceAccessNode.open(f), (o) => ({
          ...o,
          read: (offset: number, length: number) => (touches(offset, length) ? fail(f.path) : o.read(offset, length))
        })),
    copyTo: (p, dest) => (isFile(p) || below(p) ? fail(p) : sourceAccessNode.copyTo(p, dest))
  }
}
