/**
 * The provider registry loads an adapter on its first use, once (issue 13:
 * building the library's layer loaded and made every provider's adapter, a
 * cost every command paid for providers it never read).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { UnsupportedOperation } from "../src/domain/errors.js"
import * as App from "../src/layers/app.js"
import { type AdapterMake, type AnyModule, define, descriptorOf } from "../src/layers/provider.js"
import { providers } from "../src/layers/registry.js"
import { registryOf } from "../src/layers/sources.js"
import * as SourceAccessNode from "../src/layers/SourceAccessNode.js"
import { AccessPolicy } from "../src/services/AccessPolicy.js"
import { ImportLimits } from "../src/services/ImportLimits.js"
import { SessionSources } from "../src/services/SessionSource.js"
import { SourceAccess } from "../src/services/SourceAccess.js"
import * as Context from "effect/Context"

const counted = (id: string, loads: Map<string, number>, makes: Map<string, number>): AnyModule =>
  define({
    id,
    locatorClasses: [`${id}-log`],
    about: { displayName: id, disposition: "Test only.", operations: ["discover"], spec: "none" },
    settings: {},
    plan: () => ({ discover: [], explicit: [], skipped: [] }),
    load: async (): Promise<AdapterMake> => {
      loads.set(id, (loads.get(id) ?? 0) + 1)
      return Effect.gen(function*() {
        makes.set(id, (makes.get(id) ?? 0) + 1)
        const policy = yield* AccessPolicy
        const unsupported = () => new UnsupportedOperation({ message: "no", remediation: "none" })
        return {
          descriptor: descriptorOf(counted(id, new Map(), new Map())),
          discover: () => Effect.succeed({ roots: policy.workspaceRoots } as never),
          inspect: () => Effect.fail(unsupported()),
          stream: () => Stream.fail(unsupported()),
          transcript: () => Effect.fail(unsupported())
        }
      }) as AdapterMake
    }
  }) as AnyModule

describe("the registry makes adapters on demand", () => {
  it.effect("none is loaded until asked for; each is loaded and made once, from the services given", () =>
    Effect.gen(function*() {
      const loads = new Map<string, number>()
      const makes = new Map<string, number>()
      const modules = [counted("one", loads, makes), counted("two", loads, makes)]
      const context = Context.make(AccessPolicy, { workspaceRoots: ["/w"] } as never).pipe(
        Context.add(ImportLimits, { maxDocumentBytes: 1, maxRecordBytes: 1, maxDepth: 64 }),
        Context.add(SourceAccess, SourceAccessNode.sourceAccessNode)
      )
      const registry = registryOf(modules, context)
      expect(registry.descriptors.map((d) => d.provider)).toEqual(["one", "two"])
      expect([...loads]).toEqual([])
      const [a, b] = yield* Effect.all([registry.get("one"), registry.get("one")], { concurrency: "unbounded" })
      expect(a).toBe(b)
      expect(yield* registry.get("one")).toBe(a)
      expect([...loads]).toEqual([["one", 1]])
      expect([...makes]).toEqual([["one", 1]])
      expect(yield* a.discover({})).toEqual({ roots: ["/w"] })
      const unknown = yield* Effect.flip(registry.get("three"))
      expect(unknown.code).toBe("INVALID_ARGUMENT")
      expect(unknown.remediation).toContain("one, two")
    }))

  it.effect("registries made at once (imports running side by side in one process) load a module's adapter once, not once each", () =>
    Effect.gen(function*() {
      // A module runner hands a second import of a module still being evaluated its exports as they are so far (vitest's
      // does): a load begun while another is under way answers no `make`. One load for every registry never meets it.
      let loads = 0
      let release!: () => void
      const evaluated = new Promise<void>((resolve) => (release = resolve))
      const real = counted("shared", new Map(), new Map())
      const shared = define({
        ...real,
        load: (): Promise<AdapterMake> => {
          loads++
          if (loads > 1) return Promise.resolve(undefined as unknown as AdapterMake)
          return evaluated.then(() => real.load())
        }
      }) as AnyModule
      const context = Context.make(AccessPolicy, { workspaceRoots: ["/w"] } as never).pipe(
        Context.add(ImportLimits, { maxDocumentBytes: 1, maxRecordBytes: 1, maxDepth: 64 }),
        Context.add(SourceAccess, SourceAccessNode.sourceAccessNode)
      )
      const registries = [registryOf([shared], context), registryOf([shared], context), registryOf([shared], context)]
      setTimeout(release, 20)
      const adapters = yield* Effect.all(registries.map((r) => r.get("shared")), { concurrency: "unbounded" })
      expect(loads).toBe(1)
      for (const a of adapters) expect(yield* a.discover({})).toEqual({ roots: ["/w"] })
    }))

  it.effect("the library's layer lists every provider and answers each adapter, the same one each time", () =>
    Effect.gen(function*() {
      const sources = yield* SessionSources
      expect(sources.descriptors.map((d) => d.provider)).toEqual(providers.map((m) => m.id))
      for (const m of providers) {
        const adapter = yield* sources.get(m.id)
        expect(adapter.descriptor).toEqual(descriptorOf(m))
        expect(yield* sources.get(m.id)).toBe(adapter)
      }
    }).pipe(Effect.provide(App.layer({}))))
})
