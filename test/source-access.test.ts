/**
 * Authorized source access (issue 2): a regular file, not a symlink, inside an
 * authorized root after realpath.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as SourceAccessNode from "../src/layers/SourceAccessNode.js"
import { type AuthorizedFile, SourceAccess, type SourceAccessShape } from "../src/services/SourceAccess.js"
import { tempDir } from "./support/paths.js"

const base = tempDir()
const root = path.join(base, "ws")
const outside = path.join(base, "elsewhere")
fs.mkdirSync(path.join(root, "real"), { recursive: true })
fs.mkdirSync(outside, { recursive: true })
fs.writeFileSync(path.join(root, "real", "a.json"), "{}")
fs.writeFileSync(path.join(outside, "b.json"), "{}")
fs.symlinkSync(path.join(root, "real", "a.json"), path.join(root, "link.json"))
fs.symlinkSync(path.join(root, "real"), path.join(root, "linkdir"))
fs.symlinkSync(outside, path.join(root, "out"))
fs.symlinkSync(root, path.join(base, "ws-link"))
execFileSync("mkfifo", [path.join(root, "fifo")])

const authorize = (p: string, roots: ReadonlyArray<string> = [root]) =>
  Effect.flatMap(SourceAccess, (a) => a.authorizeFile(p, roots))
const codeOf = (p: string, roots?: ReadonlyArray<string>) => Effect.map(Effect.flip(authorize(p, roots)), (e) => e.code)

layer(SourceAccessNode.layer)("SourceAccess (Node)", (it) => {
  it.effect("a regular file inside the root is authorized, with its real path and root", () =>
    Effect.gen(function*() {
      const f = yield* authorize(path.join(root, "real", "a.json"))
      expect(f.path).toBe(path.join(root, "real", "a.json"))
      expect(f.root).toBe(root)
      expect(f.stat.size).toBe(2)
    }))

  it.effect("a root reached through a symlink still authorizes the files below it", () =>
    Effect.gen(function*() {
      const f = yield* authorize(path.join(base, "ws-link", "real", "a.json"), [path.join(base, "ws-link")])
      expect(f.path).toBe(path.join(root, "real", "a.json"))
    }))

  it.effect("the rules' errors", () =>
    Effect.gen(function*() {
      expect(yield* codeOf(path.join(root, "link.json"))).toBe("SOURCE_SYMLINK")
      expect(yield* codeOf(path.join(root, "linkdir", "a.json"))).toBe("SOURCE_SYMLINK")
      expect(yield* codeOf(path.join(root, "out", "b.json"))).toBe("SOURCE_OUTSIDE_ALLOWED_ROOT")
      expect(yield* codeOf(path.join(outside, "b.json"))).toBe("SOURCE_OUTSIDE_ALLOWED_ROOT")
      expect(yield* codeOf(path.join(root, "real"))).toBe("SOURCE_NOT_REGULAR_FILE")
      expect(yield* codeOf(path.join(root, "fifo"))).toBe("SOURCE_NOT_REGULAR_FILE")
      expect(yield* codeOf(path.join(root, "nope.json"))).toBe("SOURCE_NOT_FOUND")
      expect(yield* codeOf(path.join(root, "real", "a.json"), [])).toBe("SOURCE_NOT_AUTHORIZED")
      expect(yield* codeOf(path.join(root, "real", "a.json", "x"))).toBe("SOURCE_NOT_REGULAR_FILE")
    }))

  it.effect("a symlink at any depth below the root is refused, the root named by its real path or through its link", () =>
    Effect.gen(function*() {
      const deep = path.join(root, "real", "2026", "09", "25")
      fs.mkdirSync(path.join(deep, "s1"), { recursive: true })
      fs.writeFileSync(path.join(deep, "s1", "session.jsonl"), "{}\n")
      if (!fs.existsSync(path.join(deep, "s-link"))) fs.symlinkSync(path.join(deep, "s1"), path.join(deep, "s-link"))
      const linkRoot = path.join(base, "ws-link")
      // No symlink on the way: authorized, whichever form of the root names it.
      for (const [p, roots] of [[path.join(deep, "s1", "session.jsonl"), [root]], [path.join(linkRoot, "real", "2026", "09", "25", "s1", "session.jsonl"), [linkRoot]]] as const) {
        const f = yield* authorize(p, roots)
        expect(f.path).toBe(path.join(deep, "s1", "session.jsonl"))
        expect(f.root).toBe(root)
        expect(f.stat.size).toBe(3)
      }
      // A symlinked folder four levels down (its target inside the root): refused, never followed.
      expect(yield* codeOf(path.join(deep, "s-link", "session.jsonl"))).toBe("SOURCE_SYMLINK")
      expect(yield* codeOf(path.join(linkRoot, "real", "2026", "09", "25", "s-link", "session.jsonl"), [linkRoot])).toBe("SOURCE_SYMLINK")
      expect(yield* codeOf(path.join(deep, "s-link", "session.jsonl"), [linkRoot])).toBe("SOURCE_SYMLINK")
    }))

  it.effect("listDirectory reports symlinks without following them", () =>
    Effect.gen(function*() {
      const entries = yield* Effect.flatMap(SourceAccess, (a) => a.listDirectory(root))
      expect(entries).toEqual([
        { name: "fifo", kind: "other" },
        { name: "link.json", kind: "symlink" },
        { name: "linkdir", kind: "symlink" },
        { name: "out", kind: "symlink" },
        { name: "real", kind: "directory" }
      ])
    }))

  it.scoped("open refuses a file replaced after authorization", () =>
    Effect.gen(function*() {
      const p = path.join(root, "real", "swap.json")
      fs.writeFileSync(p, "{\"a\":1}")
      const f = yield* authorize(p)
      fs.writeFileSync(p + ".new", "{\"b\":2}")
      fs.renameSync(p + ".new", p)
      const e = yield* Effect.flip(Effect.flatMap(SourceAccess, (a) => a.open(f)))
      expect(e.code).toBe("SOURCE_NOT_AUTHORIZED")
    }))

  it.effect("readHead into a scratch buffer: the file's own bytes, as a view of the buffer; a shorter file after a longer one shows nothing of it", () =>
    Effect.gen(function*() {
      const access = yield* SourceAccess
      const long = path.join(root, "real", "long.txt")
      const short = path.join(root, "real", "short.txt")
      fs.writeFileSync(long, "L".repeat(5000))
      fs.writeFileSync(short, "short")
      const scratch = Buffer.alloc(8192)
      const a = yield* access.readHead(yield* authorize(long), 8192, scratch)
      expect(Buffer.from(a.bytes).toString()).toBe("L".repeat(5000))
      expect(a.bytes.buffer).toBe(scratch.buffer)
      const b = yield* access.readHead(yield* authorize(short), 8192, scratch)
      expect(Buffer.from(b.bytes).toString()).toBe("short")
      expect(b.statAtOpen.size).toBe(5)
      // a scratch buffer smaller than the read: a buffer of its own
      const c = yield* access.readHead(yield* authorize(long), 8192, Buffer.alloc(16))
      expect(c.bytes.length).toBe(5000)
      expect(c.bytes.buffer).not.toBe(scratch.buffer)
    }))
  it.effect("probeAll answers per path, in order, what probe answers: a file's kind and lstat, a folder, a symlink not followed, nothing, an error of its own", () =>
    Effect.gen(function*() {
      const access = yield* SourceAccess
      const file = path.join(root, "real", "a.json")
      const paths = [file, path.join(root, "real"), path.join(root, "link.json"), path.join(root, "missing"), path.join(file, "below-a-file"), path.join(root, "fifo")]
      const all = yield* access.probeAll(paths)
      expect(all.length).toBe(paths.length)
      const [f, d, l, none, notDir, fifo] = all
      const st = fs.lstatSync(file)
      expect(Either.getOrThrow(f)).toEqual(Option.some({ kind: "file", stat: expect.objectContaining({ size: 2, ino: st.ino, dev: st.dev, mtimeMs: st.mtimeMs }) }))
      expect(Option.getOrThrow(Either.getOrThrow(d)).kind).toBe("directory")
      expect(Option.getOrThrow(Either.getOrThrow(l)).kind).toBe("symlink")
      expect(Either.getOrThrow(none)).toEqual(Option.none())
      expect(Option.getOrThrow(Either.getOrThrow(fifo)).kind).toBe("other")
      // A path below a file: an error for that path alone (the others answered), as probe fails with it.
      expect(Either.isLeft(notDir)).toBe(true)
      const one = yield* Effect.either(access.probe(path.join(file, "below-a-file")))
      expect(Either.isLeft(one) && Either.isLeft(notDir) ? notDir.left.code : "none").toBe(Either.isLeft(one) ? one.left.code : "probe answered")
      // Each answer is what probe answers for that path.
      for (let i = 0; i < paths.length; i++) {
        if (i === 4) continue
        expect(Either.getOrThrow(all[i])).toEqual(yield* access.probe(paths[i]))
      }
    }))

  it.effect("readHeads reads each head in order into the scratch, hands it on before the next read, and stops where onHead says", () =>
    Effect.gen(function*() {
      const access = yield* SourceAccess
      const dir = path.join(root, "heads")
      fs.mkdirSync(dir, { recursive: true })
      const texts = ["first head\n", "second, a longer head\n", "third\n", "fourth\n"]
      const files: Array<AuthorizedFile> = []
      for (let i = 0; i < texts.length; i++) {
        fs.writeFileSync(path.join(dir, `h${i}.jsonl`), texts[i])
        files.push(yield* access.authorizeFile(path.join(dir, `h${i}.jsonl`), [root]))
      }
      // The third one replaced after its authorization (a new file renamed over it: another inode): its error, for it alone.
      fs.writeFileSync(path.join(dir, "h2.new"), texts[2])
      fs.renameSync(path.join(dir, "h2.new"), path.join(dir, "h2.jsonl"))
      const scratch = Buffer.alloc(64)
      const seen: Array<string> = []
      const next = yield* access.readHeads(0, files.length, (i) => ({ file: files[i], length: 64 }), scratch, (i, head) => {
        seen.push(Either.isRight(head) ? `${i}:${Buffer.from(head.right.bytes).toString()}:${head.right.statAtOpen.size}` : `${i}:${head.left.code}`)
        if (Either.isRight(head)) expect(head.right.bytes.buffer).toBe(scratch.buffer)
        return true
      })
      expect(next).toBe(4)
      const replaced = yield* Effect.flip(access.readHead(files[2], 64))
      expect(seen).toEqual([
        `0:${texts[0]}:${texts[0].length}`,
        `1:${texts[1]}:${texts[1].length}`,
        `2:${replaced.code}`,
        `3:${texts[3]}:${texts[3].length}`
      ])
      // From an index, up to another, stopped by onHead: answers the index after the last head read.
      const from: Array<number> = []
      expect(yield* access.readHeads(1, 4, (i) => ({ file: files[i], length: 4 }), scratch, (i) => (from.push(i), i < 3))).toBe(4)
      const stopped: Array<number> = []
      expect(yield* access.readHeads(0, 4, (i) => ({ file: files[i], length: 4 }), scratch, (i) => (stopped.push(i), i !== 1))).toBe(2)
      expect([from, stopped]).toEqual([[1, 2, 3], [0, 1]])
    }))

  it.effect("readHeads of a layer made with another readHead asks that readHead for each head", () =>
    Effect.gen(function*() {
      const asked: Array<[string, number]> = []
      const wrapped: SourceAccessShape = {
        ...SourceAccessNode.sourceAccessNode,
        readHead: (f, n, scratch) => (asked.push([f.path, n]), SourceAccessNode.sourceAccessNode.readHead(f, n, scratch))
      }
      const a = yield* wrapped.authorizeFile(path.join(root, "real", "a.json"), [root])
      const got: Array<string> = []
      const next = yield* wrapped.readHeads(0, 2, (i) => ({ file: a, length: i + 1 }), Buffer.alloc(8), (_, head) => {
        got.push(Either.isRight(head) ? Buffer.from(head.right.bytes).toString() : "error")
        return true
      })
      expect([next, asked, got]).toEqual([2, [[a.path, 1], [a.path, 2]], ["{", "{}"]])
    }))

  it.effect("probeAll of a layer made with another probe asks that probe for each path", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const wrapped: SourceAccessShape = {
        ...SourceAccessNode.sourceAccessNode,
        probe: (p) => (asked.push(p), p.endsWith("missing") ? Effect.succeed(Option.some({ kind: "file" as const, stat: { size: 7, mtimeMs: 0, birthtimeMs: 0, ctimeMs: 0, dev: 0, ino: 0 } })) : SourceAccessNode.sourceAccessNode.probe(p))
      }
      const paths = [path.join(root, "real", "a.json"), path.join(root, "missing")]
      const all = yield* wrapped.probeAll(paths)
      expect(asked).toEqual(paths)
      expect(Option.getOrThrow(Either.getOrThrow(all[1])).stat.size).toBe(7)
    }))
})
