/**
 * Builds dist/, the prebuilt bundle Pi loads (through src/extension.ts): the
 * source's ~150 TypeScript files and Effect's ~300 modules as a few
 * CommonJS chunks (src/bundleLoader.ts loads them), so a Pi start no longer
 * transpiles, resolves and links them one by one (bench/load.ts). Run by `prepare` (npm ci / npm install in a checkout,
 * npm pack) and `pretest`.
 *
 * Pi's own packages and TypeBox are not bundled: the bundle must use the
 * instances of the Pi that loads it, which Pi's loader hands only to
 * TypeScript files it transpiles. So each import of them becomes a read of
 * the modules src/extension.ts puts on globalThis before it imports the
 * bundle, by the names the source imports: the build needs none of Pi's
 * packages, so `pi install git:…` (`npm install --omit=dev`, which installs
 * rolldown as an optional dependency and runs `prepare`) builds it too.
 *
 * Without the bundler (an install with optional dependencies omitted, or a
 * platform rolldown has no binary for) it builds nothing and says so;
 * src/extension.ts then loads the source.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..")
const distDir = join(repoRoot, "dist")
/** The key src/extension.ts stores Pi's modules under; the same string is in src/extension.ts. */
const hostModulesKey = "pi-context.hostModules"
const hostPackage = /^(@earendil-works\/pi-[a-z-]+|typebox)(\/.*)?$/
const virtualPrefix = "\0pi-host:"

let rolldown
let parseAst
try {
  rolldown = await import("rolldown")
  ;({ parseAst } = await import("rolldown/parseAst"))
} catch {
  console.log("pi-context: no bundler installed (rolldown, an optional dependency, is missing), so no dist/ bundle; Pi loads the TypeScript source.")
  process.exit(0)
}

/** Calls `visit` on every node of an AST. */
const walk = (node, visit) => {
  if (Array.isArray(node)) return node.forEach((child) => walk(child, visit))
  if (node === null || typeof node !== "object") return
  if (typeof node.type === "string") visit(node)
  for (const key of Object.keys(node)) if (key !== "type") walk(node[key], visit)
}

/**
 * The names src/ reads of each host module: its named value imports, and
 * for a namespace import (`import * as PiTui`) the members read off it.
 */
const hostNamesOfSource = () => {
  const names = new Map()
  const add = (specifier, name) => names.set(specifier, (names.get(specifier) ?? new Set()).add(name))
  const sourceDir = join(repoRoot, "src")
  for (const file of readdirSync(sourceDir, { recursive: true })) {
    if (!file.endsWith(".ts")) continue
    const program = parseAst(readFileSync(join(sourceDir, file), "utf8"), { lang: "ts", sourceType: "module" }, file)
    const namespaces = new Map()
    walk(program.body, (node) => {
      if (node.type !== "ImportDeclaration" || node.importKind === "type" || !hostPackage.test(node.source.value)) return
      for (const specifier of node.specifiers) {
        if (specifier.type === "ImportSpecifier" && specifier.importKind !== "type") add(node.source.value, specifier.imported.name ?? specifier.imported.value)
        else if (specifier.type === "ImportDefaultSpecifier") add(node.source.value, "default")
        else if (specifier.type === "ImportNamespaceSpecifier") namespaces.set(specifier.local.name, node.source.value)
      }
    })
    if (namespaces.size === 0) continue
    walk(program.body, (node) => {
      if (node.type === "MemberExpression" && !node.computed && node.object.type === "Identifier" && namespaces.has(node.object.name)) {
        add(namespaces.get(node.object.name), node.property.name)
      }
    })
  }
  return names
}

const hostNames = hostNamesOfSource()

/** Each host module becomes the names the source reads of it, read off the object src/extension.ts stored. */
const hostModules = {
  name: "pi-host-modules",
  resolveId(source) {
    return hostPackage.test(source) ? { id: `${virtualPrefix}${source}`, moduleSideEffects: false } : null
  },
  load(id) {
    if (!id.startsWith(virtualPrefix)) return null
    const specifier = id.slice(virtualPrefix.length)
    const names = [...(hostNames.get(specifier) ?? [])].filter((name) => name !== "default" && /^[A-Za-z_$][\w$]*$/.test(name))
    const read = `globalThis[globalThis.Symbol.for(${JSON.stringify(hostModulesKey)})]?.[${JSON.stringify(specifier)}]`
    return [
      `const m = ${read};`,
      `if (m === undefined) throw new Error(${JSON.stringify(`pi-context's bundle was imported without ${specifier} from its host (load it through src/extension.ts)`)});`,
      ...names.map((name) => `export const ${name} = m.${name};`),
      "export default m.default;"
    ].join("\n")
  }
}

const started = performance.now()
// Taken before the source is read: a file saved while the build runs counts as newer than the bundle.
const builtAt = Date.now()
rmSync(distDir, { recursive: true, force: true })
await rolldown.build({
  input: { "pi-context": join(repoRoot, "src", "main.ts") },
  platform: "node",
  external: [/^node:/],
  plugins: [hostModules],
  // Reading a name off a host module has no side effect: names the bundle never uses are dropped.
  treeshake: { propertyReadSideEffects: false },
  checks: { pluginTimings: false },
  output: {
    dir: distDir,
    // CommonJS, so src/bundleLoader.ts can compile each chunk itself, with a code cache taken after it ran.
    format: "cjs",
    exports: "named",
    entryFileNames: "[name].cjs",
    chunkFileNames: "[name]-[hash].cjs",
    sourcemap: true,
    minify: true
  }
})
mkdirSync(distDir, { recursive: true })
// The time the bundle was built from the source: src/extension.ts loads the source instead when any source file is newer.
// And each chunk's size: a chunk missing or cut short (a broken copy of dist/) also makes it load the source.
const chunks = Object.fromEntries(readdirSync(distDir).filter((name) => name.endsWith(".cjs")).sort().map((name) => [name, statSync(join(distDir, name)).size]))
writeFileSync(join(distDir, "built.json"), `${JSON.stringify({ builtAt, chunks })}\n`)
console.log(`pi-context: built dist/ in ${Math.round(performance.now() - started)} ms`)
