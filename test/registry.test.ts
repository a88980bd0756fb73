/**
 * A provider is one module (issue 12): every list that names providers,
 * locator classes, their options, config keys, access-policy fields or
 * import-plan entries is derived from the registry. A fake fifth provider,
 * registered in a test registry, shows up in all of them without any shared
 * file knowing it; and what the CLI and library list equals the registry's.
 */
import * as Command from "@effect/cli/Command"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import { configFieldsOf, configKeysOf } from "../src/cli/config.js"
import * as Help from "../src/cli/help.js"
import * as O from "../src/cli/options.js"
import { UnsupportedOperation } from "../src/domain/errors.js"
import type { LocatorClass, ProviderId } from "../src/domain/model.js"
import { type AdapterMake, type AnyModule, define, descriptorOf, planOf, settingsOf } from "../src/layers/provider.js"
import * as Registry from "../src/layers/registry.js"
import * as Sources from "../src/layers/sources.js"
import * as SourceAccessNode from "../src/layers/SourceAccessNode.js"
import { AccessPolicy, type AccessPolicyShape, withDefaults } from "../src/services/AccessPolicy.js"
import { ImportLimits } from "../src/services/ImportLimits.js"
import { SessionSources } from "../src/services/SessionSource.js"
import { planFromPolicy } from "../src/layers/index/importer.js"
import { tempDir } from "./support/paths.js"
import { cli } from "./support/run.js"

/** A fifth provider, known to no shared file: a root option, an import-only option, its plan entries, an adapter. */
const fake = define({
  id: "fake-five",
  locatorClasses: ["fake-five-log"],
  about: { displayName: "Fake Five", disposition: "Test only.", operations: ["discover"], spec: "none" },
  settings: {
    fakeRoots: {
      target: "access",
      many: true,
      path: true,
      flag: "fake-root",
      pseudo: "DIR",
      description: "Fake Five root (repeatable).",
      on: "roots",
      configKey: "fakeRoots"
    },
    fakeTags: {
      target: "plan",
      many: true,
      path: false,
      flag: "fake-tag",
      pseudo: "TAG",
      description: "Fake Five tag to import (repeatable).",
      on: "import",
      configKey: "fakeTags"
    }
  },
  plan: ({ fakeRoots, fakeTags }) => ({
    discover: fakeRoots.length > 0 ? fakeTags.map((agentId) => ({ provider: "fake-five", request: { agentId }, configured: true })) : [],
    explicit: [],
    skipped: fakeRoots.length === 0 ? [{ provider: "fake-five", remediation: "Pass --fake-root DIR." }] : []
  }),
  load: (): Promise<AdapterMake> =>
    Promise.resolve(Effect.map(AccessPolicy, (policy) => ({
      descriptor: descriptorOf(fake as AnyModule),
      discover: () => Effect.succeed({ roots: (policy as unknown as { fakeRoots: ReadonlyArray<string> }).fakeRoots } as never),
      inspect: () => Effect.fail(new UnsupportedOperation({ message: "no", remediation: "no" })),
      stream: () => Stream.empty,
      transcript: () => Effect.fail(new UnsupportedOperation({ message: "no", remediation: "no" }))
    })))
})

const testRegistry: ReadonlyArray<AnyModule> = [...Registry.providers, fake]

describe("a fake fifth provider in a test registry", () => {
  const settings = settingsOf(testRegistry)

  it("its settings, options (and their help) and config keys are derived", () => {
    expect(settings.map((s) => s.key)).toEqual([...Registry.settings.map((s) => s.key), "fakeRoots", "fakeTags"])
    const roots = O.parametersOf(settings, "roots")
    const imports = O.parametersOf(settings, "import")
    expect(Object.keys(roots)).toContain("fakeRoots")
    expect(Object.keys(imports)).toEqual([...Object.keys(O.importInputs), "fakeTags"])
    const help = Help.commandHelp("session-ingest", Command.make("import", { ...roots, ...imports }), { color: false, width: 80 })
    expect(help).toContain("[--fake-root DIR]...")
    expect(help).toContain("[--fake-tag TAG]...")
    expect(help).toContain("Fake Five root (repeatable).")
    expect(configKeysOf(settings)).toEqual([...configKeysOf(Registry.settings), "fakeRoots", "fakeTags"])
    expect(Object.keys(configFieldsOf(settings))).toContain("fakeTags")
  })

  it("its policy defaults and its import-plan entries are derived", () => {
    const listFields = settings.filter((s) => s.target === "access" && s.many).map((s) => s.key)
    expect((withDefaults({}, listFields) as Record<string, unknown>).fakeRoots).toEqual([])
    const without = planOf(testRegistry, withDefaults({}, listFields), {})
    expect(without.skipped.map((s) => s.provider)).toEqual(["muse-code", "agentmux", "fake-five"])
    const plan = planOf(testRegistry, { ...withDefaults({}, listFields), fakeRoots: ["/r"] }, { fakeTags: ["a", "b"] })
    expect(plan.discover.filter((d) => d.provider === "fake-five").map((d) => d.request.agentId)).toEqual(["a", "b"])
    expect(plan.skipped.map((s) => s.provider)).toEqual(["muse-code", "agentmux"])
  })

  it.effect("its adapter is in SessionSources, built from the policy, after the others", () =>
    Effect.gen(function*() {
      const sources = yield* SessionSources
      expect(sources.descriptors.map((d) => d.provider)).toEqual([...Registry.providerIds, "fake-five"])
      expect(sources.descriptors.at(-1)?.locatorClasses).toEqual(["fake-five-log"])
      const report = yield* Effect.flatMap(sources.get("fake-five"), (a) => a.discover({}))
      expect(report).toEqual({ roots: ["/x"] })
    }).pipe(
      Effect.provide(
        Sources.layerOf(testRegistry).pipe(
          Layer.provide(Layer.mergeAll(
            AccessPolicy.layer({ fakeRoots: ["/x"] } as never),
            ImportLimits.layer({}),
            SourceAccessNode.layer
          ))
        )
      )
    ))

  it("a module that claims another's key, flag or config key is refused", () => {
    const clash = (settings: Record<string, unknown>) => define({ ...fake, id: "clash", settings: settings as never }) as AnyModule
    const s = fake.settings.fakeRoots
    expect(() => settingsOf([...testRegistry, clash({ museRoots: { ...s, flag: "x", configKey: "x" } })])).toThrow(/key:museRoots/)
    expect(() => settingsOf([...testRegistry, clash({ other: { ...s, flag: "muse-root", configKey: "x" } })])).toThrow(/flag:muse-root/)
    expect(() => settingsOf([...testRegistry, clash({ other: { ...s, flag: "x", configKey: "store" } })])).toThrow(/config:store/)
    expect(() => settingsOf([...testRegistry, clash({ other: { ...s, flag: "workspace", configKey: "x" } })])).toThrow(/flag:workspace/)
  })
})

describe("every list of providers is the registry's", () => {
  it("types: ProviderId, LocatorClass and the policy's fields are the registry's", () => {
    const ids: ReadonlyArray<ProviderId> = Registry.providerIds
    const classes: ReadonlyArray<LocatorClass> = Registry.locatorClasses
    // @ts-expect-error an id no module registers
    const notAnId: ProviderId = "fake-five"
    // @ts-expect-error a class no module registers
    const notAClass: LocatorClass = "fake-five-log"
    const policy: AccessPolicyShape = { workspaceRoots: [], museRoots: [], agentsRoot: "a", agentmuxStore: "s", stateFile: "f" }
    // @ts-expect-error a field no module owns
    const notAField: AccessPolicyShape = { workspaceRoots: [], museRoots: [], fakeRoots: [] }
    expect([ids, classes, notAnId, notAClass, policy, notAField]).toHaveLength(6)
    expect(Registry.providerIds.slice(0, 3)).toEqual(["muse-code", "muse-agents", "agentmux"])
  })

  it("providers, the CLI's choices and help list the registry's ids and classes; the plan runs in registry order", () => {
    const listed = JSON.parse(cli(["providers", "--json"]).stdout).data as Array<{ provider: string; locatorClasses: Array<string> }>
    expect(listed.map((d) => d.provider)).toEqual(Registry.providerIds)
    expect(listed.flatMap((d) => d.locatorClasses)).toEqual(Registry.locatorClasses)
    expect(cli(["discover", "--help"]).stdout).toContain(`Provider id: ${Registry.providerIds.join(", ")} `)
    const usage = cli(["sessions", "--help"]).stdout.split("\n\n")[1].replace(/\s+/g, " ")
    const ids = Registry.providerIds.join("|")
    // Inline when the choices fit a usage line (40 characters, src/cli/help.ts), else by the placeholder; help names them all.
    expect(usage).toContain(ids.length <= 40 ? `[--provider ${ids}]` : "[--provider PROVIDER]")
    const importHelp = cli(["import", "--help"]).stdout
    for (const s of Registry.settings) expect(importHelp).toContain(s.positional === true ? `<${s.flag}>` : `--${s.flag} ${s.pseudo}`)
    const plan = planFromPolicy(withDefaults({ museRoots: ["/m"] }), { agents: ["u1"], exports: ["/w/e.json"] })
    expect(plan.discover.map((d) => d.provider)).toEqual(Registry.providerIds)
  })

  it("a config file with an unknown key is refused naming the registry's keys", () => {
    const dir = tempDir("registry-config-")
    const config = path.join(dir, "config.json")
    fs.writeFileSync(config, JSON.stringify({ noSuchRoot: "/x" }))
    const r = cli(["import", "--json", "--config", config, "--index", path.join(dir, "i.db")])
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout).error.remediation).toContain(`Keys: ${configKeysOf(Registry.settings).join(", ")} `)
    expect(configKeysOf(Registry.settings)).toEqual(["index", "workspaces", "prices", ...Registry.settings.map((s) => s.configKey)])
  })
})
