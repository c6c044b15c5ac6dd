/**
 * The Pi entry, as listed in package.json's `pi.extensions`: it loads the
 * prebuilt bundle in dist/ (scripts/build.mjs) when it is there and no source
 * file is newer, else the TypeScript source (src/main.ts). The bundle is a few
 * CommonJS chunks, loaded with a code cache of their own (src/bundleLoader.ts);
 * the source is ~150 files Pi's loader
 * transpiles and, with Effect's ~300 modules, resolves and links one by one
 * (about 0.3 s before the first prompt, bench/load.ts).
 *
 * Pi hands its own packages (the instances the running Pi uses) only to a
 * TypeScript file its loader transpiles, such as this one; the bundle reads
 * them from here, off globalThis.
 */
import * as PiAi from "@earendil-works/pi-ai"
import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent"
import * as PiCodingAgent from "@earendil-works/pi-coding-agent"
import * as PiTui from "@earendil-works/pi-tui"
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as TypeBox from "typebox"
import { type BundleLoad, defaultCodeCacheDir, loadBundle, readIfRegular } from "./bundleLoader.ts"

/** The key scripts/build.mjs reads Pi's modules from. */
const hostModulesKey = Symbol.for("pi-context.hostModules")
/** The bundles this process loaded, by entry path. */
const loadedBundlesKey = Symbol.for("pi-context.loadedBundles")

const packageRoot = fileURLToPath(new URL("..", import.meta.url))
/** The bundle's entry chunk in dist/. */
export const bundleEntry = "pi-context.cjs"

/** The newest modification time among the files the bundle is built from. */
const newestSourceMtimeMs = (root: string): number => {
  let newest = statSync(join(root, "package.json")).mtimeMs
  for (const entry of readdirSync(join(root, "src"), { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
  }
  return newest
}

/** Whether the bundle in dist/ can be loaded: current, older than the source (silently the source), or broken (the source, told). */
export type BundleState =
  | { readonly _tag: "Current" }
  | { readonly _tag: "Stale" }
  | { readonly _tag: "Broken"; readonly reason: string }

/** dist/built.json, as scripts/build.mjs writes it (read without Effect: this file loads before the bundle, and must stay light). */
interface BuiltStamp {
  readonly builtAt: number
  readonly chunks: Readonly<Record<string, number>>
}

const readBuiltStamp = (file: string): BuiltStamp | undefined => {
  try {
    const stamp = JSON.parse(readIfRegular(file) ?? "") as { builtAt?: unknown; chunks?: unknown }
    if (typeof stamp.builtAt !== "number") return undefined
    const chunks = typeof stamp.chunks === "object" && stamp.chunks !== null ? stamp.chunks as Record<string, unknown> : {}
    return {
      builtAt: stamp.builtAt,
      chunks: Object.fromEntries(Object.entries(chunks).filter((entry): entry is [string, number] => typeof entry[1] === "number"))
    }
  } catch {
    return undefined
  }
}

/** The size of a regular file at `path`, else why it is no chunk. */
const chunkFault = (path: string, bytes: number): string | undefined => {
  const stats = statSync(path, { throwIfNoEntry: false })
  if (stats === undefined) return "is missing"
  if (!stats.isFile()) return "is not a regular file"
  return stats.size === bytes ? undefined : `has ${stats.size} bytes, not the ${bytes} it was built with`
}

/**
 * Whether the bundle in `root`/dist is there, whole, and built from the
 * source as it is now: no file of src/ (nor package.json) changed since the
 * build began. An npm tarball gives every file one fixed time, so an
 * installed package's bundle is current; a checkout's is current only after
 * `npm run build` (`npm ci` and `npm test` run it). A chunk that is missing
 * or cut short makes it broken: Pi then loads the source, and the user is told.
 */
export const bundleState = (root: string): BundleState => {
  const stamp = readBuiltStamp(join(root, "dist", "built.json"))
  if (stamp === undefined || statSync(join(root, "dist", bundleEntry), { throwIfNoEntry: false }) === undefined) return { _tag: "Stale" }
  for (const [name, bytes] of Object.entries(stamp.chunks)) {
    const fault = chunkFault(join(root, "dist", name), bytes)
    if (fault !== undefined) return { _tag: "Broken", reason: `dist/${name} ${fault}` }
  }
  return newestSourceMtimeMs(root) <= stamp.builtAt ? { _tag: "Current" } : { _tag: "Stale" }
}

export const bundleIsCurrent = (root: string): boolean => bundleState(root)._tag === "Current"

/** The notice when a broken bundle made Pi load the source: what is wrong, and the fix. */
export const brokenBundleNotice = (reason: string): string =>
  `pi-context: its prebuilt bundle is broken (${reason}), so Pi loaded its TypeScript source instead; everything works, ` +
  "only the start is slower. Reinstall pi-context, or run npm run build in its folder, to repair the bundle."

/** The extension, from the bundle when it is current and loads, else from the source (with why, when the bundle is broken). */
const loadFactory = async (): Promise<{ readonly factory: ExtensionFactory; readonly broken: string | undefined }> => {
  const fromSource = async (broken: string | undefined) => ({ factory: (await import("./main.ts")).default, broken })
  const state = bundleState(packageRoot)
  if (state._tag !== "Current") return fromSource(state._tag === "Broken" ? state.reason : undefined)
  ;(globalThis as Record<symbol, unknown>)[hostModulesKey] = {
    "@earendil-works/pi-ai": PiAi,
    "@earendil-works/pi-coding-agent": PiCodingAgent,
    "@earendil-works/pi-tui": PiTui,
    typebox: TypeBox
  }
  // Loaded once per process, as Node keeps one instance of an imported module: a reload of the extensions reuses it.
  const loaded = ((globalThis as Record<symbol, unknown>)[loadedBundlesKey] ??= new Map()) as Map<string, BundleLoad>
  const entry = join(packageRoot, "dist", bundleEntry)
  let bundle = loaded.get(entry)
  if (bundle === undefined) {
    try {
      bundle = loadBundle(entry, defaultCodeCacheDir())
    } catch (error) {
      // A chunk that does not compile or run (cut short with its size intact, or overwritten): the source still works.
      return fromSource(`dist/${bundleEntry} did not load: ${String(error instanceof Error ? error.message : error).split("\n")[0]}`)
    }
    loaded.set(entry, bundle)
    // At exit the chunks have run start-up and the prompts: their cache holds what those compiled.
    process.once("exit", bundle.saveCodeCache)
  }
  return { factory: (bundle.exports as { readonly default: ExtensionFactory }).default, broken: undefined }
}

export default async function piContext(pi: ExtensionAPI): Promise<void> {
  const { factory, broken } = await loadFactory()
  if (broken !== undefined) {
    let told = false
    pi.on("session_start", (_event, ctx) => {
      if (told) return
      told = true
      ctx.ui.notify(brokenBundleNotice(broken), "warning")
    })
  }
  await factory(pi)
}
