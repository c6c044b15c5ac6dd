import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { loadBundle } from "../../src/bundleLoader.ts"

/**
 * A bundle laid out as scripts/build.mjs writes one: an entry chunk that
 * requires a shared chunk and a Node built-in, and reads its own file name.
 */
const withBundle = (check: (dist: string, cacheDir: string) => void): void => {
  const root = mkdtempSync(join(tmpdir(), "pi-context-bundle-loader-"))
  const dist = join(root, "dist")
  mkdirSync(dist)
  writeFileSync(join(dist, "shared-abc.cjs"), "exports.count = 0; exports.twice = (n) => (exports.count++, n * 2);\n")
  writeFileSync(
    join(dist, "entry.cjs"),
    [
      "const shared = require(\"./shared-abc.cjs\");",
      "const { basename } = require(\"node:path\");",
      "exports.default = (n) => shared.twice(n) + 1;",
      "exports.file = basename(__filename);",
      "exports.shared = shared;"
    ].join("\n")
  )
  try {
    check(dist, join(root, "cache"))
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

const loaderPath = join(import.meta.dirname, "..", "..", "src", "bundleLoader.ts")

/**
 * One start in its own process, as Pi's are: V8 keeps what it compiled in
 * memory, so a second load in this process would never read the cache.
 * Loads the bundle, calls it, saves its cache; says which chunks came from a cache.
 */
const startInChild = (dist: string, cacheDir: string, timeoutMs?: number): { readonly cached: ReadonlyArray<string>; readonly value: number } => {
  const script = [
    `import { loadBundle } from ${JSON.stringify(loaderPath)}`,
    `const bundle = loadBundle(${JSON.stringify(join(dist, "entry.cjs"))}, ${JSON.stringify(cacheDir)})`,
    "const value = bundle.exports.default(2)",
    // As src/extension.ts saves it: Node hands an exit listener the exit code.
    "process.once(\"exit\", bundle.saveCodeCache)",
    "console.log(JSON.stringify({ cached: [...bundle.cached].sort(), value }))"
  ].join("\n")
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }) })
  assert.strictEqual(child.status, 0, child.stderr)
  return JSON.parse(child.stdout) as { cached: ReadonlyArray<string>; value: number }
}

interface Entry {
  readonly default: (n: number) => number
  readonly file: string
  readonly shared: { readonly count: number }
}

describe("bundleLoader", () => {
  it("loads the entry and the chunks it requires, each once, with Node's built-ins and the chunk's own file name", () =>
    withBundle((dist) => {
      const bundle = loadBundle(join(dist, "entry.cjs"), undefined)
      const entry = bundle.exports as Entry
      assert.strictEqual(entry.default(20), 41)
      assert.strictEqual(entry.file, "entry.cjs")
      assert.strictEqual(entry.shared.count, 1)
      assert.deepStrictEqual(bundle.cached, [])
    }))

  it("writes each chunk's code cache after it ran, and the next start compiles from it", () =>
    withBundle((dist, cacheDir) => {
      assert.deepStrictEqual(startInChild(dist, cacheDir), { cached: [], value: 5 })
      const written = readdirSync(cacheDir).sort()
      assert.strictEqual(written.length, 2)
      assert.match(written[0]!, /^entry\.cjs-[0-9a-f]{16}\.v8$/)
      assert.match(written[1]!, /^shared-abc\.cjs-[0-9a-f]{16}\.v8$/)
      assert.deepStrictEqual(startInChild(dist, cacheDir), { cached: ["entry.cjs", "shared-abc.cjs"], value: 5 })
    }))

  it("a rebuilt chunk never meets the old chunk's cache, and a cache V8 refuses is made again", () =>
    withBundle((dist, cacheDir) => {
      startInChild(dist, cacheDir)
      // A new build of the shared chunk: its content, so its cache's name, changes.
      writeFileSync(join(dist, "shared-abc.cjs"), "exports.count = 0; exports.twice = (n) => (exports.count++, n * 3);\n")
      // And a damaged cache for the entry.
      const entryCache = readdirSync(cacheDir).find((file) => file.startsWith("entry.cjs-"))!
      writeFileSync(join(cacheDir, entryCache), "not a V8 code cache")
      assert.deepStrictEqual(startInChild(dist, cacheDir), { cached: [], value: 7 })
      assert.deepStrictEqual(startInChild(dist, cacheDir), { cached: ["entry.cjs", "shared-abc.cjs"], value: 7 })
    }))

  it("a start that compiled much more than its cache holds writes the cache again; one that compiled nothing new keeps it", () =>
    withBundle((dist, cacheDir) => {
      // A chunk with a large function the first start never calls.
      const body = Array.from({ length: 400 }, (_, i) => `total += n * ${i} % 7;`).join(" ")
      writeFileSync(join(dist, "shared-abc.cjs"), `exports.twice = (n) => n * 2; exports.big = (n) => { let total = 0; ${body} return total; };\n`)
      writeFileSync(join(dist, "entry.cjs"), "const shared = require(\"./shared-abc.cjs\"); exports.default = (n) => (process.env.CALL_BIG ? shared.big(n) : 0) + shared.twice(n);\n")
      const run = (callBig: boolean) => {
        const script = [
          `import { loadBundle } from ${JSON.stringify(loaderPath)}`,
          `const bundle = loadBundle(${JSON.stringify(join(dist, "entry.cjs"))}, ${JSON.stringify(cacheDir)})`,
          "bundle.exports.default(2)",
          "bundle.saveCodeCache()"
        ].join("\n")
        const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, CALL_BIG: callBig ? "1" : "" } })
        assert.strictEqual(child.status, 0, child.stderr)
      }
      const sharedCache = () => statSync(join(cacheDir, readdirSync(cacheDir).find((file) => file.startsWith("shared-abc.cjs-"))!))
      run(false)
      const small = sharedCache()
      run(false)
      assert.strictEqual(sharedCache().mtimeMs, small.mtimeMs)
      run(true)
      assert.isAbove(sharedCache().size, small.size * 1.1)
    }))

  it("prunes caches no start used for 30 days and torn writes, keeping the ones in use and another install's recent ones", () =>
    withBundle((dist, cacheDir) => {
      startInChild(dist, cacheDir)
      const daysAgo = (file: string, days: number) => {
        const at = new Date(Date.now() - days * 24 * 60 * 60 * 1000)
        utimesSync(join(cacheDir, file), at, at)
      }
      const plant = (file: string, days: number) => {
        writeFileSync(join(cacheDir, file), "x")
        daysAgo(file, days)
      }
      plant("entry.cjs-0123456789abcdef.v8", 40)
      plant("host-Old.cjs-fedcba9876543210.v8", 31)
      plant("host-Other.cjs-00112233aabbccdd.v8", 2)
      plant("entry.cjs-0123456789abcdef.v8.tmp-4242", 2)
      plant("entry.cjs-0123456789abcdef.v8.tmp-4343", 0)
      plant("README", 400)
      const shared = readdirSync(cacheDir).find((file) => file.startsWith("shared-abc.cjs-") && file.endsWith(".v8"))!
      daysAgo(shared, 40)

      assert.deepStrictEqual(startInChild(dist, cacheDir).cached, ["entry.cjs", "shared-abc.cjs"])
      const left = readdirSync(cacheDir).sort()
      assert.notInclude(left, "entry.cjs-0123456789abcdef.v8")
      assert.notInclude(left, "host-Old.cjs-fedcba9876543210.v8")
      assert.notInclude(left, "entry.cjs-0123456789abcdef.v8.tmp-4242")
      assert.include(left, "host-Other.cjs-00112233aabbccdd.v8")
      assert.include(left, "entry.cjs-0123456789abcdef.v8.tmp-4343")
      assert.include(left, "README")
      // Used by this start, so refreshed: it would otherwise be pruned by the next one.
      assert.include(left, shared)
      assert.isBelow(Date.now() - statSync(join(cacheDir, shared)).mtimeMs, 60_000)
    }))

  it("a chunk's stack traces point at its own file's lines and columns", () =>
    withBundle((dist) => {
      writeFileSync(join(dist, "entry.cjs"), "exports.default = () => { throw new Error(\"from the chunk\") };\n")
      const entry = loadBundle(join(dist, "entry.cjs"), undefined).exports as Entry
      const error = (() => {
        try {
          entry.default(0)
        } catch (caught) {
          return caught as Error
        }
      })()
      assert.include(error?.stack ?? "", `${join(dist, "entry.cjs")}:1:33`)
    }))

  it("a FIFO put at a chunk's cache name is not waited on: the chunk compiles without it", () =>
    withBundle((dist, cacheDir) => {
      startInChild(dist, cacheDir)
      const caches = readdirSync(cacheDir).filter((name) => name.startsWith("entry.cjs-"))
      assert.lengthOf(caches, 1)
      rmSync(join(cacheDir, caches[0]!))
      spawnSync("mkfifo", [join(cacheDir, caches[0]!)])
      // startInChild waits for the child: it returns only because the start did not block on the FIFO.
      const { cached, value } = startInChild(dist, cacheDir, 10_000)
      assert.strictEqual(value, 5)
      assert.notInclude(cached, "entry.cjs")
    }))

  it("a cache folder that cannot be written leaves the bundle working", () =>
    withBundle((dist, cacheDir) => {
      // A file where the folder would go.
      writeFileSync(cacheDir, "")
      const bundle = loadBundle(join(dist, "entry.cjs"), cacheDir)
      bundle.saveCodeCache()
      assert.strictEqual((bundle.exports as Entry).default(3), 7)
    }))
})
