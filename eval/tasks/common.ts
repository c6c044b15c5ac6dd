/** Shared by the tasks: a seeded generator, plausible filler code, file helpers, and the solvers' reading of results. */
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import type { Knowledge, Verdict } from "./taskTypes.ts"

/** mulberry32: the same numbers for the same seed on every machine. */
export const rng = (seed: number) => {
  let state = (seed * 0x9e3779b1) >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!
  }
}
export type Rng = ReturnType<typeof rng>

const nouns = ["order", "invoice", "ticket", "shipment", "basket", "profile", "report", "session", "payment", "review", "coupon", "address", "stock", "refund", "quote", "batch", "tenant", "badge", "alert", "route"]
const verbs = ["load", "build", "check", "merge", "format", "scan", "count", "apply", "split", "score", "sort", "group", "trim", "clamp", "rank", "parse"]

/** Distinct module names: `nounVerb`. */
export const moduleNames = (random: Rng, count: number): ReadonlyArray<string> => {
  const names = new Set<string>()
  while (names.size < count) names.add(`${random.pick(nouns)}${capital(random.pick(verbs))}`)
  return [...names]
}

export const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1)

/** A plain function of believable code, about 400 characters, named `name`. */
export const fillerFunction = (random: Rng, name: string, exported = true): string => {
  const field = random.pick(nouns)
  const limit = random.int(3, 90)
  return `${exported ? "export " : ""}function ${name}(items, options = {}) {
  const limit = options.limit ?? ${limit}
  const seen = new Map()
  for (const item of items) {
    const key = String(item.${field}Id ?? item.id)
    if (seen.has(key)) continue
    seen.set(key, { ...item, ${field}: (item.${field} ?? 0) + ${random.int(1, 9)} })
    if (seen.size >= limit) break
  }
  return [...seen.values()].sort((a, b) => (a.${field} ?? 0) - (b.${field} ?? 0))
}
`
}

export const writeTree = (dir: string, files: Readonly<Record<string, string>>): void => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
}

/** Every file under `dir`, as paths relative to `root`, sorted. */
export const listFiles = (root: string, dir = root): ReadonlyArray<string> =>
  readdirSync(dir)
    .flatMap((name) => (statSync(join(dir, name)).isDirectory() ? listFiles(root, join(dir, name)) : [relative(root, join(dir, name))]))
    .sort()

export const read = (dir: string, path: string): string | undefined => {
  try {
    return readFileSync(join(dir, path), "utf8")
  } catch {
    return undefined
  }
}

/** Runs `node` on a script in `dir`; the outcome and its output, never a throw. */
export const runNode = (dir: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): { readonly ok: boolean; readonly output: string } => {
  try {
    const output = execFileSync(process.execPath, args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 20_000, env: { ...process.env, ...env } })
    return { ok: true, output }
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string }
    return { ok: false, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` || failed.message }
  }
}

export const verdict = (failures: ReadonlyArray<string>): Verdict => ({ pass: failures.length === 0, failures })

/** The text of the latest successful `read` of `path` the request still shows. */
export const latestRead = (knowledge: Knowledge, path: string): string | undefined =>
  knowledge.results.findLast((result) => result.tool === "read" && result.args.path === path && !result.isError)?.text

/** A fact holding a list, stored comma-separated. */
export const listFact = (knowledge: Knowledge, key: string): ReadonlyArray<string> | undefined => {
  const value = knowledge.facts.get(key)
  return value === undefined ? undefined : value.split(",").filter((item) => item !== "")
}

export const call = (name: string, args: Record<string, unknown>) => ({ name, args })

/** The first step of `steps` not done yet. */
export const firstOpen = (knowledge: Knowledge, steps: ReadonlyArray<string>): string | undefined => steps.find((step) => !knowledge.done.has(step))
