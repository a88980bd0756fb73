/**
 * A source discovery listed in an import run that was gone when the run read
 * it (deleted or moved in between): rejected `SOURCE_NOT_FOUND` with
 * {@link VANISHED_REMEDY} in place of the remedy for a path a user named
 * (relative paths on the command line). The text report says such sources
 * on one line per provider, with their count; `--json` keeps a cause per
 * source (docs/import.md, "Sources that disappear during an import";
 * tester35b F6). Light on purpose: the CLI's `import` command reads it.
 *
 * @module
 */

/** The remedy of a discovered source gone before it was read. */
export const VANISHED_REMEDY =
  "It was listed by discovery in this run and was gone when it was read (deleted or moved during the import): run the import again."

/** The causes of a report that are discovered sources gone before they were read (`code` `SOURCE_NOT_FOUND`, {@link VANISHED_REMEDY}). */
export const isVanished = (c: { readonly code: string; readonly remedy: string | null; readonly path: string | null }): boolean =>
  c.code === "SOURCE_NOT_FOUND" && c.remedy === VANISHED_REMEDY && c.path !== null
