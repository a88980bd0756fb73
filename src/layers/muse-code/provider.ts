/**
 * The `muse-code` provider module: Muse Code `muse export` trajectories
 * (`manual-export`, given explicitly) and native session logs
 * (`muse-native-session-log`, under an authorized `--muse-root`; there is no
 * default root). Seed `001_…`. Adapter: `./adapter.ts`, loaded on first use.
 *
 * @module
 */
import * as nodePath from "node:path"
import { type AdapterMake, define } from "../provider.js"

/** The module (see `../provider.ts`). */
export const provider = define({
  id: "muse-code",
  locatorClasses: ["manual-export", "muse-native-session-log"],
  about: {
    displayName: "Muse Code",
    disposition:
      "Explicit `muse export` trajectory files under an authorized workspace root; native session.jsonl logs only under an explicitly authorized --muse-root (no default root, never ~/.muse). Fails closed on anything it cannot trust.",
    operations: ["discover", "inspect", "stream"],
    spec: "seeds/001_19d2aaf271b07ab8.txt"
  },
  settings: {
    /** Native session roots; empty: native discovery is unsupported. */
    museRoots: {
      target: "access",
      many: true,
      path: true,
      flag: "muse-root",
      pseudo: "DIR",
      description:
        "Authorized Muse Code sessions root, e.g. ~/.local/share/muse/sessions (repeatable). Native discovery and native logs need it; there is no default.",
      on: "roots",
      configKey: "museRoots"
    },
    /** Explicit `muse export` files to import. */
    exports: {
      target: "plan",
      many: true,
      path: true,
      flag: "export-file",
      positional: true,
      pseudo: "FILE",
      description: "Explicit `muse export` trajectory files to import (under a --workspace).",
      on: "import",
      configKey: "exports"
    }
  },
  plan: ({ exports, museRoots }) => ({
    discover: museRoots.length > 0 ? [{ provider: "muse-code", request: {}, configured: true }] : [],
    explicit: [...new Set(exports.map((p) => nodePath.resolve(p)))].map((p) => ({
      provider: "muse-code",
      locator: { locatorClass: "manual-export", path: p }
    })),
    skipped: museRoots.length === 0
      ? [{ provider: "muse-code", remediation: "Pass --muse-root DIR to include native Muse Code session logs." }]
      : []
  }),
  load: (): Promise<AdapterMake> => import("./adapter.js").then((m) => m.make)
})
