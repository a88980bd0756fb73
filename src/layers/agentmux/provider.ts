/**
 * The `agentmux` provider module: an agent's own zones in AgentMux's
 * transcript store (`agentmux-agent-record`), selected with `--agent UID`,
 * scanned incrementally through session-ingest's state database. Seed
 * `002_…`. Adapter: `./adapter.ts`, loaded on first use.
 *
 * @module
 */
import { type AdapterMake, define } from "../provider.js"

/** The module (see `../provider.ts`). */
export const provider = define({
  id: "agentmux",
  locatorClasses: ["agentmux-agent-record"],
  about: {
    displayName: "AgentMux",
    disposition:
      "An agent's own zones (agent:<uid>:current, agent:<uid>:archive:<ms>) in AgentMux's global transcript store (--store, default <root>/shared/agents/transcripts/filestore.db) and in the channels' own stores under the AgentMux home (--agentmux-root, default ~/.agentmux), where \"New conversation\" archives; a session seen in several stores is one session. Selected with --agent UID; read-only, scanned incrementally per store through session-ingest's state database (--state). Unreadable lines are skipped and counted.",
    operations: ["discover", "inspect", "stream", "transcript"],
    spec: "seeds/002_be0ab054974359d2.txt"
  },
  settings: {
    /** AgentMux's `filestore.db`; undefined: the default (seed 002). */
    agentmuxStore: {
      target: "access",
      many: false,
      path: true,
      flag: "store",
      pseudo: "FILE",
      description: "AgentMux filestore.db (default: ~/.agentmux/shared/agents/transcripts/filestore.db).",
      on: "roots",
      configKey: "store"
    },
    /**
     * The AgentMux home (issue 18): the channels' own stores under it are read
     * with the global store, which defaults to `<root>/shared/agents/transcripts/filestore.db`.
     * Undefined: `~/.agentmux`, unless `--store` names the one store to read.
     */
    agentmuxRoot: {
      target: "access",
      many: false,
      path: true,
      flag: "agentmux-root",
      pseudo: "DIR",
      description:
        "AgentMux home whose channels' stores (channels/*/versions/*/data/db, dev/*/data/db) are read with the global store (default: ~/.agentmux, unless --store is given).",
      on: "roots",
      configKey: "agentmuxRoot"
    },
    /** session-ingest's scan-state database; undefined: under the user's data directory. */
    stateFile: {
      target: "access",
      many: false,
      path: true,
      flag: "state",
      pseudo: "FILE",
      description: "session-ingest's state database for incremental scans (default: under the user's data directory).",
      on: "roots",
      configKey: "state"
    },
    /** Agent UIDs whose records `import` brings in. */
    agents: {
      target: "plan",
      many: true,
      path: false,
      flag: "agent",
      pseudo: "UID",
      description: "AgentMux agent UID whose record is imported (repeatable).",
      on: "import",
      configKey: "agents"
    }
  },
  plan: ({ agents }) => ({
    discover: [...new Set(agents)].map((agentId) => ({
      provider: "agentmux",
      request: { agentId },
      configured: true,
      expectSources: true
    })),
    explicit: [],
    skipped: agents.length === 0
      ? [{ provider: "agentmux", remediation: "Pass --agent UID (and --store FILE) to include an AgentMux agent's record." }]
      : []
  }),
  load: (): Promise<AdapterMake> => import("./adapter.js").then((m) => m.make)
})
