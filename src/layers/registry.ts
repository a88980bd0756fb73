/**
 * The provider registry layer: one line per provider adapter.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AccessPolicy } from "../services/AccessPolicy.js"
import type { ImportLimits } from "../services/ImportLimits.js"
import { SessionSources } from "../services/SessionSource.js"
import type { SourceAccess } from "../services/SourceAccess.js"
import * as AgentMux from "./agentmux/adapter.js"
import * as MuseAgents from "./muse-agents/adapter.js"
import * as MuseCode from "./muse-code/adapter.js"

/** Layer: the registry of every provider, built from the access services in context. */
export const layer: Layer.Layer<SessionSources, never, SourceAccess | ImportLimits | AccessPolicy> = Layer.effect(
  SessionSources,
  Effect.map(Effect.all([MuseCode.make, MuseAgents.make, AgentMux.make]), SessionSources.make)
)
