/**
 * Loads the prebuilt bundle (CommonJS chunks in dist/, scripts/build.mjs)
 * with a V8 code cache taken after it ran, not after it compiled.
 *
 * Node's own compile cache (which Pi's CLI enables) stores a module's code as
 * compiled at load: V8 compiles a function only when it is first called, so
 * every start compiled again each function start-up and the first prompt run
 * (Effect's runtime, the layers, the boot): 10–20 ms of the first prompt in
 * bench/load.ts. A cache made once the chunks have run holds those
 * functions compiled. It is written when the process exits, in a folder of
 * its own under Node's compile cache, and named by the chunk's content: a
 * rebuilt chunk never meets an old cache, and V8 refuses one made by another
 * V8 (the chunk then compiles as without a cache, and its cache is made again).
 * Each build leaves caches of its own (about 1 MB), so the folder is pruned
 * at exit: a cache neither written nor used for 30 days is removed, and a
 * cache in use has its time refreshed once a day so it never ages out.
 */
import { createHash } from "node:crypto"
import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { createRequire, getCompileCacheDir } from "node:module"
import { basename, dirname, join } from "node:path"
import { Script } from "node:vm"

export interface BundleLoad {
  /** The entry chunk's exports. */
  readonly exports: unknown
  /** The chunks whose code came from a cache V8 accepted, by file name. */
  readonly cached: ReadonlyArray<string>
  /**
   * Writes the cache of each chunk that had none (or a refused one), or whose
   * code compiled since is well beyond its cache's, then prunes the folder:
   * what `exit` does (it takes no arguments: `exit` passes its listeners the exit code).
   */
  readonly saveCodeCache: () => void
}

/** The code cache folder: pi-context's own, under Node's compile cache when the host enabled one. */
export const defaultCodeCacheDir = (): string | undefined => {
  const nodeCache = getCompileCacheDir()
  return nodeCache === undefined ? undefined : join(nodeCache, "pi-context")
}

/**
 * Loads `entry` and the chunks it requires (relative specifiers, in its
 * folder); anything else (Node's built-ins) comes from Node's `require`.
 * Without `cacheDir` every chunk compiles as Node would compile it.
 */
export const loadBundle = (entry: string, cacheDir: string | undefined): BundleLoad => {
  const chunks = new Map<string, { exports: unknown }>()
  const cached: Array<string> = []
  /** Each chunk's script, its cache file, and the size of the cache it was compiled from (0: none). */
  const scripts: Array<{ readonly file: string; readonly script: Script; readonly fromBytes: number }> = []
  const nodeRequire = createRequire(entry)

  const load = (path: string): unknown => {
    const known = chunks.get(path)
    if (known !== undefined) return known.exports
    const bytes = readRegularBytes(path)
    if (bytes === undefined) throw new Error(`${basename(path)} is missing or not a regular file`)
    const source = bytes.toString("utf8")
    const cacheFile = cacheDir === undefined
      ? undefined
      : join(cacheDir, `${basename(path)}-${createHash("sha256").update(source).digest("hex").slice(0, 16)}.v8`)
    const cachedData = cacheFile === undefined ? undefined : readRegularBytes(cacheFile)
    const script = new Script(`${wrapperHead}${source}\n})`, {
      filename: path,
      // Positions as in the file, so stack traces and profiles match it and its source map.
      columnOffset: -wrapperHead.length,
      ...(cachedData === undefined ? {} : { cachedData })
    })
    const accepted = cachedData !== undefined && !script.cachedDataRejected
    if (accepted) cached.push(basename(path))
    if (cacheFile !== undefined) scripts.push({ file: cacheFile, script, fromBytes: accepted ? cachedData.byteLength : 0 })
    const module = { exports: {} as unknown }
    // Registered before it runs, as Node does: a chunk that requires one still running gets its exports so far.
    chunks.set(path, module)
    const requireChunk = (specifier: string): unknown =>
      specifier.startsWith("./") ? load(join(dirname(path), specifier)) : nodeRequire(specifier)
    const wrapper = script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void
    wrapper.call(module.exports, module.exports, requireChunk, module, path, dirname(path))
    return module.exports
  }

  const saveCodeCache = (): void => {
    if (cacheDir === undefined || scripts.length === 0) return
    const nowMs = Date.now()
    // A cache is only a shortcut: one that cannot be written is left out.
    quietly(() => mkdirSync(cacheDir, { recursive: true }))
    const inUse = new Set<string>()
    for (const { file, script, fromBytes } of scripts.splice(0)) {
      inUse.add(basename(file))
      const data = script.createCachedData()
      // A first start that ended early cached little; a later one that ran more replaces it.
      if (data.byteLength > fromBytes * GrowthWorthRewriting) quietly(() => writeWhole(file, data))
      else quietly(() => keepFresh(file, nowMs))
    }
    quietly(() => prune(cacheDir, inUse, nowMs))
  }

  return { exports: load(entry), cached, saveCodeCache }
}

/** The wrapper Node puts around a CommonJS file: the chunks read these five names. */
const wrapperHead = "(function (exports, require, module, __filename, __dirname) {"

/** How much more compiled code than its cache holds makes a chunk's cache worth writing again. */
const GrowthWorthRewriting = 1.1

const DayMs = 24 * 60 * 60 * 1000

/** A cache neither written nor used for this long belongs to a build nobody runs any more. */
const UnusedFor = 30 * DayMs

/** A half-written cache of a process that died before its rename, left this long, is removed. */
const TornAfter = DayMs

/** A cache this start read: its time is refreshed when it is a day old, so a cache in use is never pruned. */
const keepFresh = (file: string, nowMs: number): void => {
  if (nowMs - statSync(file).mtimeMs < DayMs) return
  const now = new Date(nowMs)
  utimesSync(file, now, now)
}

/**
 * Removes the caches of builds no start has used for 30 days, and torn
 * writes. Another install of pi-context (a checkout beside the installed
 * package) shares the folder: its caches stay while it is used.
 */
const prune = (cacheDir: string, inUse: ReadonlySet<string>, nowMs: number): void => {
  for (const name of readdirSync(cacheDir)) {
    if (inUse.has(name)) continue
    const torn = /\.v8\.tmp-\d+$/.test(name)
    if (!torn && !name.endsWith(".v8")) continue
    const file = join(cacheDir, name)
    quietly(() => {
      if (nowMs - statSync(file).mtimeMs > (torn ? TornAfter : UnusedFor)) rmSync(file, { force: true })
    })
  }
}

/**
 * How a chunk's cache or stamp is opened: never waiting on a FIFO put at its
 * name (a read of one blocks until a writer comes, and Pi would hang at start),
 * never through a symbolic link.
 */
const RegularReadFlags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0)

/** The bytes of the regular file at `file`; undefined when it is missing, or not a regular file. */
const readRegularBytes = (file: string): Buffer | undefined => {
  let fd: number | undefined
  try {
    fd = openSync(file, RegularReadFlags)
    return fstatSync(fd).isFile() ? readFileSync(fd) : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** The text of the regular file at `file`, as `readRegularBytes` opens it. */
export const readIfRegular = (file: string): string | undefined => readRegularBytes(file)?.toString("utf8")

/** Written beside it, then renamed into place: two Pi processes exiting together never leave a torn cache. */
const writeWhole = (file: string, data: Buffer): void => {
  const temporary = `${file}.tmp-${process.pid}`
  try {
    writeFileSync(temporary, data)
    renameSync(temporary, file)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

const quietly = (write: () => void): void => {
  try {
    write()
  } catch {
    // The next start compiles that chunk again and tries once more.
  }
}
