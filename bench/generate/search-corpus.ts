/**
 * The synthetic corpus of the search figure (g): normalized events of coding
 * sessions (prompts, thinking, Bash/Edit/Read calls with their inputs, tool
 * output, answers) with words drawn from a Zipf distribution, identifiers
 * (paths, snake_case and dotted names, camelCase, ENOENT) and rare planted
 * ones (UUIDs, git SHAs), and the 100 queries of mixed kinds run over it.
 * Deterministic (fixed seed).
 */
import { CONTRACT_VERSION, type ProviderId, type SessionEvent } from "../../src/domain/model.js"
import type { SearchFilter } from "../../src/services/Index.js"

const mulberry32 = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const COMMON = [
  "the", "file", "error", "test", "function", "return", "config", "build", "import", "update", "value", "change", "run",
  "check", "fix", "add", "remove", "type", "module", "output", "request", "response", "server", "client", "index", "query",
  "cache", "token", "session", "event"
]
const SYL = ["ka", "lo", "mi", "ner", "tos", "vu", "pre", "gan", "dul", "shi", "ro", "bex", "ta", "quin", "zor", "fa", "ple", "dri"]

/** The vocabulary: common English words of code first, then pseudo-words, 4,000 in all, most frequent first. */
export const VOCAB: ReadonlyArray<string> = (() => {
  const rnd = mulberry32(7)
  const out = [...COMMON]
  const seen = new Set(out)
  while (out.length < 4000) {
    const n = 2 + Math.floor(rnd() * 3)
    let w = ""
    for (let i = 0; i < n; i++) w += SYL[Math.floor(rnd() * SYL.length)]
    if (!seen.has(w)) {
      seen.add(w)
      out.push(w)
    }
  }
  return out
})()

const CUMULATIVE = (() => {
  const c: Array<number> = []
  let s = 0
  for (let r = 0; r < VOCAB.length; r++) c.push(s += 1 / (r + 1))
  return c.map((x) => x / s)
})()

const zipf = (rnd: () => number): string => {
  const x = rnd()
  let lo = 0, hi = CUMULATIVE.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (CUMULATIVE[mid] < x) lo = mid + 1
    else hi = mid
  }
  return VOCAB[lo]
}

const words = (rnd: () => number, n: number) => Array.from({ length: n }, () => zipf(rnd)).join(" ")
const hex = (i: number, len: number) => {
  let s = ""
  let x = (i * 2654435761) >>> 0
  while (s.length < len) {
    x = (Math.imul(x ^ (x >>> 13), 1274126177) + 12345) >>> 0
    s += x.toString(16).padStart(8, "0")
  }
  return s.slice(0, len)
}

/** The planted UUID of event `i` (every 9,973rd event holds one). */
export const uuidOf = (i: number) => {
  const h = hex(i + 1, 32)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
}
/** The planted git SHA of event `i` (every 10,007th event, from the 5th, holds one). */
export const shaOf = (i: number) => hex(i + 7, 40)
const UUID_EVERY = 9973
const SHA_EVERY = 10007

export const PROVIDERS: ReadonlyArray<ProviderId> = ["claude-code", "muse-agents", "muse-code"] as Array<ProviderId>
/** Events per session. */
export const SESSION_EVENTS = 1000
const T0 = Date.parse("2026-01-01T00:00:00Z")

/** The `j`-th event of session `s` (event number `i = s * SESSION_EVENTS + j` of the corpus). */
export const corpusEvent = (s: number, j: number): SessionEvent => {
  const i = s * SESSION_EVENTS + j
  const rnd = mulberry32(i * 31 + 17)
  const provider = PROVIDERS[s % PROVIDERS.length]
  const mod = zipf(rnd), file = zipf(rnd)
  const path = `src/${mod}/${file}_${zipf(rnd)}.ts`
  let kind = "message"
  let role: SessionEvent["role"] = "assistant"
  let text: string | null = null
  let toolName: string | null = null
  let toolInput: unknown = null
  switch (j % 10) {
    case 0:
      role = "user"
      text = `${words(rnd, 12)} in ${path}?`
      break
    case 1:
      kind = "thinking"
      text = words(rnd, 25)
      break
    case 2:
      kind = "tool-call"
      toolName = "Bash"
      toolInput = { command: `grep -rn ${zipf(rnd)} src/${mod} && npm run ${zipf(rnd)}` }
      break
    case 3:
      kind = "tool-call"
      toolName = "Edit"
      toolInput = { file_path: `/repo/${path}`, old_string: `const ${zipf(rnd)}Value = ${zipf(rnd)}_${zipf(rnd)}(${words(rnd, 3)})`, new_string: words(rnd, 6) }
      break
    case 4:
    case 5:
      kind = "tool-result"
      role = "user"
      text = `${path}:${(i % 400) + 1}: ${words(rnd, 10)}\n${rnd() < 0.05 ? "ENOENT: no such file or directory, open 'app.config.json'" : words(rnd, 8)}`
      break
    default:
      text = words(rnd, 18)
  }
  if (i % UUID_EVERY === 0 && text !== null) text += ` request ${uuidOf(i)}`
  if (i % SHA_EVERY === 5) text = `${text ?? ""} commit ${shaOf(i)}`
  return {
    contractVersion: CONTRACT_VERSION,
    provider,
    sourceId: `sha256:bench-${s}`,
    sessionId: `bench-session-${s}`,
    eventId: `e${j}`,
    sequence: j,
    kind,
    role,
    toolName,
    toolCallId: toolName !== null ? `t${j}` : null,
    model: null,
    occurredAt: new Date(T0 + i * 1000).toISOString(),
    text,
    cursor: `c${j}`,
    rawReference: { locatorClass: "muse-agent-transcript", sequence: j },
    extensions: {},
    toolInput,
    isError: kind === "tool-result" ? false : null,
    compaction: null,
    parent: null,
    child: null,
    usage: null,
    responseId: null,
    costUsd: null
  }
}

/** The title of session `s`. */
export const titleOf = (s: number) => `${VOCAB[(s * 7) % 200]} ${VOCAB[(s * 13) % 300]} ${VOCAB[(s * 3) % 500]}`

/** One query of the figure: its kind, text and filters. */
export interface BenchQuery {
  readonly kind: "rare identifier" | "common word" | "phrase" | "prefix" | "boolean with filters"
  readonly query: string
  readonly filter: SearchFilter
}

/** 100 queries, 20 of each kind, over a corpus of `events` events. */
export const benchQueries = (events: number): Array<BenchQuery> => {
  const rnd = mulberry32(99)
  const out: Array<BenchQuery> = []
  const uuids = Array.from({ length: Math.floor((events - 1) / UUID_EVERY) + 1 }, (_, k) => k * UUID_EVERY).filter((i) => i % 10 === 0 || i % 10 >= 4)
  const shas = Array.from({ length: Math.max(0, Math.floor((events - 6) / SHA_EVERY) + 1) }, (_, k) => k * SHA_EVERY + 5)
  for (let k = 0; k < 20; k++) {
    if (k % 2 === 0 && uuids.length > 0) out.push({ kind: "rare identifier", query: uuidOf(uuids[k % uuids.length]), filter: {} })
    else if (shas.length > 0) out.push({ kind: "rare identifier", query: k % 4 === 1 ? shaOf(shas[k % shas.length]).slice(0, 8) : shaOf(shas[k % shas.length]), filter: {} })
    else out.push({ kind: "rare identifier", query: "app.config.json", filter: {} })
  }
  for (let k = 0; k < 20; k++) out.push({ kind: "common word", query: COMMON[(k * 7) % COMMON.length], filter: {} })
  for (let k = 0; k < 20; k++) {
    out.push({
      kind: "phrase",
      query: k % 4 === 0 ? "\"no such file\"" : `"${VOCAB[Math.floor(rnd() * 30)]} ${VOCAB[Math.floor(rnd() * 30)]}"`,
      filter: {}
    })
  }
  for (let k = 0; k < 20; k++) {
    const w = VOCAB[Math.floor(rnd() * 200)]
    out.push({ kind: "prefix", query: `${w.slice(0, Math.max(3, w.length - 2))}*`, filter: {} })
  }
  const filters: Array<SearchFilter> = [
    { provider: "claude-code" },
    { kind: "tool-result" },
    { role: "user" },
    { since: new Date(T0 + events * 500).toISOString() },
    { provider: "muse-agents", kind: "message" }
  ]
  for (let k = 0; k < 20; k++) {
    const a = VOCAB[Math.floor(rnd() * 100)], b = VOCAB[Math.floor(rnd() * 100)], c = VOCAB[Math.floor(rnd() * 50)]
    out.push({ kind: "boolean with filters", query: k % 2 === 0 ? `(${a} OR ${b}) -${c}` : `${a} AND ${b}`, filter: filters[k % filters.length] })
  }
  return out
}
