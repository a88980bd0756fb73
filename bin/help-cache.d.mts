/** Types of `help-cache.mjs` (for the tests): the cached help text for a command line, or undefined. */
export declare const cachedHelp: (
  bundle: string,
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>,
  stdout: { readonly isTTY?: boolean; readonly columns?: number }
) => string | undefined
