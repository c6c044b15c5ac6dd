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
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as TypeBox from "typebox"
import { type BundleLoad, defaultCodeCacheDir, loadBundle } from "./bundleLoader.ts"

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

/**
 * Whether the bundle in `root`/dist is there and built from the source as it
 * is now: no file of src/ (nor package.json) changed since the build began.
 * An npm tarball gives every file one fixed time, so an installed package's
 * bundle is current; a checkout's is current only after `npm run build`
 * (`npm ci` and `npm test` run it).
 */
export const bundleIsCurrent = (root: string): boolean => {
  let builtAt: number
  try {
    builtAt = (JSON.parse(readFileSync(join(root, "dist", "built.json"), "utf8")) as { builtAt: number }).builtAt
    statSync(join(root, "dist", bundleEntry))
  } catch {
    return false
  }
  return typeof builtAt === "number" && newestSourceMtimeMs(root) <= builtAt
}

const loadFactory = async (): Promise<ExtensionFactory> => {
  if (!bundleIsCurrent(packageRoot)) return (await import("./main.ts")).default
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
    bundle = loadBundle(entry, defaultCodeCacheDir())
    loaded.set(entry, bundle)
    // At exit the chunks have run start-up and the prompts: their cache holds what those compiled.
    process.once("exit", bundle.saveCodeCache)
  }
  return (bundle.exports as { readonly default: ExtensionFactory }).default
}

export default async function piContext(pi: ExtensionAPI): Promise<void> {
  const factory = await loadFactory()
  await factory(pi)
}
