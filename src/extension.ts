/**
 * The Pi entry, as listed in package.json's `pi.extensions`: it loads the
 * prebuilt bundle in dist/ (scripts/build.mjs) when it is there and no source
 * file is newer, else the TypeScript source (src/main.ts). The bundle is a few
 * ES modules Node loads as they are; the source is ~150 files Pi's loader
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
import { fileURLToPath, pathToFileURL } from "node:url"
import * as TypeBox from "typebox"

/** The key scripts/build.mjs reads Pi's modules from. */
const hostModulesKey = Symbol.for("pi-context.hostModules")

const packageRoot = fileURLToPath(new URL("..", import.meta.url))

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
    statSync(join(root, "dist", "pi-context.js"))
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
  const bundle = (await import(pathToFileURL(join(packageRoot, "dist", "pi-context.js")).href)) as { readonly default: ExtensionFactory }
  return bundle.default
}

export default async function piContext(pi: ExtensionAPI): Promise<void> {
  const factory = await loadFactory()
  await factory(pi)
}
