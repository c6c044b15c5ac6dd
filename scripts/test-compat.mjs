// `npm run test:compat`: runs the Pi SDK tests (test/sdk) against each supported
// Pi minor. Each version is installed into its own scratch folder (all four Pi
// packages at that exact version), and vitest resolves the Pi packages from
// there (scripts/vitest.compat.config.ts); a setup file refuses to run when the
// Pi it loaded is not the version asked for. Needs the npm registry, so it is
// not part of `npm test`.
//
//   npm run test:compat                 the newest release of every minor in package.json's peer range
//   npm run test:compat -- 1.4.0 1.6.0  only these versions
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const piPackages = ["pi-coding-agent", "pi-ai", "pi-agent-core", "pi-tui"].map((name) => `@earendil-works/${name}`)
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const scratchRoot = process.env.PI_CONTEXT_COMPAT_DIR ?? join(tmpdir(), "pi-context-compat")

const npm = (args, cwd, stdio = "inherit") => {
  // Under `npm run`, npm_execpath is the npm that runs us; call it with this Node.
  const execPath = process.env.npm_execpath
  const [command, prefix] = execPath !== undefined && execPath.endsWith(".js") ? [process.execPath, [execPath]] : ["npm", []]
  return spawnSync(command, [...prefix, ...args], { cwd, stdio, encoding: "utf8" })
}

/** The newest published release of each Pi minor inside package.json's peer range (`>=1.3.0 <2`). */
const supportedVersions = () => {
  const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"))
  const range = manifest.peerDependencies[piPackages[0]]
  const bounds = /^>=(\d+)\.(\d+)\.(\d+) <(\d+)$/.exec(range ?? "")
  if (bounds === null) throw new Error(`test:compat reads a peer range like ">=1.3.0 <2", not ${JSON.stringify(range)}`)
  const [floor, ceilingMajor] = [bounds.slice(1, 4).map(Number), Number(bounds[4])]
  const listed = npm(["view", piPackages[0], "versions", "--json"], repoRoot, ["ignore", "pipe", "inherit"])
  if (listed.status !== 0) throw new Error(`npm view ${piPackages[0]} versions failed (exit ${listed.status})`)
  const newestPerMinor = new Map()
  for (const version of JSON.parse(listed.stdout)) {
    const parts = /^(\d+)\.(\d+)\.(\d+)$/.exec(version)?.slice(1).map(Number)
    if (parts === undefined || parts[0] >= ceilingMajor) continue
    const atLeastFloor = parts[0] !== floor[0] ? parts[0] > floor[0] : parts[1] !== floor[1] ? parts[1] > floor[1] : parts[2] >= floor[2]
    if (!atLeastFloor) continue
    const minor = `${parts[0]}.${parts[1]}`
    const known = newestPerMinor.get(minor)
    if (known === undefined || known[2] < parts[2]) newestPerMinor.set(minor, parts)
  }
  return [...newestPerMinor.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((parts) => parts.join("."))
}

const installedVersion = (root, name) => {
  const file = join(root, "node_modules", name, "package.json")
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).version : undefined
}

/** Every copy of a Pi package below `root`, so a nested copy of another version cannot hide. */
const nestedCopies = (root) => {
  const found = []
  const walk = (modules) => {
    if (!existsSync(modules)) return
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith("@")) {
        for (const name of readdirSync(join(modules, entry))) visit(join(modules, entry, name), `${entry}/${name}`)
      } else visit(join(modules, entry), entry)
    }
  }
  const visit = (dir, name) => {
    if (piPackages.includes(name)) found.push({ name, version: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version, dir })
    walk(join(dir, "node_modules"))
  }
  walk(join(root, "node_modules"))
  return found
}

/** Installs the four Pi packages at `version` into their scratch folder, or reuses a complete earlier install. */
const prepare = (version) => {
  const root = join(scratchRoot, version)
  mkdirSync(root, { recursive: true })
  const manifest = {
    name: `pi-context-compat-${version.replaceAll(".", "-")}`,
    private: true,
    dependencies: Object.fromEntries(piPackages.map((name) => [name, version]))
  }
  writeFileSync(join(root, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`)
  if (piPackages.some((name) => installedVersion(root, name) !== version)) {
    console.log(`\n[compat] installing Pi ${version} into ${root}`)
    const result = npm(["install", "--no-audit", "--no-fund", "--loglevel=error"], root)
    if (result.status !== 0) return { root, problem: `npm install failed (exit ${result.status})` }
  }
  const wrong = nestedCopies(root).filter((copy) => copy.version !== version)
  if (wrong.length > 0) {
    return { root, problem: `mixed Pi versions: ${wrong.map((copy) => `${copy.name}@${copy.version}`).join(", ")}` }
  }
  return { root }
}

const runSdkTests = (version, root) => {
  const vitest = join(repoRoot, "node_modules", "vitest", "vitest.mjs")
  const result = spawnSync(process.execPath, [vitest, "run", "--config", join(repoRoot, "scripts", "vitest.compat.config.ts")], {
    cwd: repoRoot,
    stdio: "inherit",
    env: { ...process.env, PI_COMPAT_ROOT: root, PI_COMPAT_VERSION: version }
  })
  return result.status === 0
}

const versions = process.argv.slice(2).length > 0 ? process.argv.slice(2) : supportedVersions()
console.log(`[compat] Pi versions under test: ${versions.join(", ")}`)
const results = []
for (const version of versions) {
  const { root, problem } = prepare(version)
  if (problem !== undefined) {
    results.push({ version, ok: false, detail: problem })
    continue
  }
  console.log(`\n[compat] Pi ${version}: test/sdk with the Pi packages from ${root}`)
  const ok = runSdkTests(version, root)
  results.push({ version, ok, detail: ok ? "test/sdk passed" : "test/sdk failed" })
}

console.log("\n[compat] summary")
for (const { version, ok, detail } of results) console.log(`  Pi ${version.padEnd(7)} ${ok ? "pass" : "FAIL"}  ${detail}`)
process.exit(results.every((result) => result.ok) ? 0 : 1)
