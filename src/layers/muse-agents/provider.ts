/**
 * The `muse-agents` provider module: Muse agents transcripts
 * `<agents-root>/<agentId>/sessions/<agentId>.jsonl` (`muse-agent-transcript`)
 * under `--agents-root`, else `$MUSE_AGENTS_DIR`, else `~/agents`. Seed
 * `000_…`. Adapter: `./adapter.ts`, loaded on first use.
 *
 * @module
 */
import { type AdapterMake, define } from "../provider.js"

/** The module (see `../provider.ts`). */
export const provider = define({
  id: "muse-agents",
  locatorClasses: ["muse-agent-transcript"],
  about: {
    displayName: "Muse agents",
    disposition:
      "Transcripts <agents-root>/<agentId>/sessions/<agentId>.jsonl (+ best-effort sessions.json) under --agents-root, else $MUSE_AGENTS_DIR, else ~/agents. Tolerant: a bad line is skipped and counted as a parse warning, never fatal.",
    operations: ["discover", "inspect", "stream", "transcript"],
    spec: "seeds/000_a873f5e134bdf113.txt"
  },
  settings: {
    /** The agents root; undefined: `$MUSE_AGENTS_DIR`, else `~/agents` (seed 000). */
    agentsRoot: {
      target: "access",
      many: false,
      path: true,
      flag: "agents-root",
      pseudo: "DIR",
      description: "Muse agents root (default: $MUSE_AGENTS_DIR, else ~/agents).",
      on: "roots",
      configKey: "agentsRoot"
    }
  },
  // Always discovered (the root has a default); a root the operator named (option, config or environment) must be there.
  plan: ({ agentsRoot }) => ({
    discover: [{
      provider: "muse-agents",
      request: {},
      configured: agentsRoot !== undefined || (process.env.MUSE_AGENTS_DIR ?? "") !== ""
    }],
    explicit: [],
    skipped: []
  }),
  load: (): Promise<AdapterMake> => import("./adapter.js").then((m) => m.make)
})
