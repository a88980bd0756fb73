/**
 * The filters the index's query commands share (`sessions`, `search`,
 * `usage`): a time range from `--since` / `--until`, and a workspace folder.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { InvalidArgument } from "../domain/errors.js"
import { checkKind, KIND_REMEDY } from "../domain/kinds.js"
import { rangeBound } from "../domain/timestamps.js"
import { workspacePath } from "../layers/workspace-path.js"
import { errors } from "./lazy.js"

/** A `--since`/`--until` value: RFC 3339, or a date `YYYY-MM-DD` (UTC; `until` takes the whole day), as {@link rangeBound} reads it; `InvalidArgument` otherwise. */
export const parseBound = (flag: string, value: Option.Option<string>, endOfDay: boolean) =>
  Effect.gen(function*() {
    if (Option.isNone(value)) return undefined
    const v = value.value
    const r = rangeBound(v, endOfDay)
    if (r._tag === "invalid") {
      const { InvalidArgument } = yield* errors
      return yield* new InvalidArgument({
        message: `--${flag} ${v} is not a date (${r.problem}).`,
        remediation: "Use YYYY-MM-DD or an RFC 3339 time with a zone, e.g. 2026-10-01T12:00:00Z."
      })
    }
    return r.value
  })

/**
 * `--since` / `--until` as RFC 3339 bounds (see {@link parseBound}), each
 * undefined when not given. `InvalidArgument` when `since` is after `until`
 * (a range runs forward: refused rather than read as an empty or a reversed
 * range), or a value is not a date.
 */
export const timeRange = (
  since: Option.Option<string>,
  until: Option.Option<string>
): Effect.Effect<{ readonly since: string | undefined; readonly until: string | undefined }, InvalidArgument> =>
  Effect.gen(function*() {
    const from = yield* parseBound("since", since, false)
    const to = yield* parseBound("until", until, true)
    if (from !== undefined && to !== undefined && Date.parse(from) > Date.parse(to)) {
      const { InvalidArgument } = yield* errors
      return yield* new InvalidArgument({
        message: `--since ${Option.getOrElse(since, () => "")} is after --until ${Option.getOrElse(until, () => "")}: a range must run forward, from --since to --until.`,
        remediation: "Swap the two dates."
      })
    }
    return { since: from, until: to }
  })

/** A `--workspace` folder as the index keeps workspaces: its real path (the absolute path when it cannot be resolved). */
export const workspaceOption = (workspace: Option.Option<string>): string | undefined =>
  Option.getOrUndefined(Option.map(workspace, workspacePath))

/**
 * A `--kind` value, checked by the rule of `src/domain/kinds.ts` (kinds are
 * provider-defined and matched exactly; a value that is no kind's form, or
 * another spelling of a common kind such as `tool_result`, is refused):
 * undefined when not given; `InvalidArgument` naming the kind meant and
 * listing the common kinds.
 */
export const kindOption = (kind: Option.Option<string>): Effect.Effect<string | undefined, InvalidArgument> =>
  Effect.gen(function*() {
    if (Option.isNone(kind)) return undefined
    const check = checkKind(kind.value)
    if (check._tag === "ok") return kind.value
    const { InvalidArgument } = yield* errors
    return yield* new InvalidArgument({ message: `--kind ${check.problem}`, remediation: KIND_REMEDY })
  })
