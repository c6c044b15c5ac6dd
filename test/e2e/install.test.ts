import { execFileSync, spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleIsCurrent } from "../../src/extension.ts"
import { bundleCodeCaches, fauxPromptArgs, jsonEvents, piDirsIn, piEnv, repoRoot, runPi } from "./fixtures/piCli.ts"

/**
 * The install paths Pi's package manager takes (dist/core/package-manager.js
 * in pi-coding-agent): `pi install git:…` clones and runs `npm install
 * --omit=dev --legacy-peer-deps --no-audit --no-fund` in the clone, which runs
 * `prepare`; `pi install <path>` runs nothing; an npm install unpacks the
 * published tarball. Each must end with the bundle Pi loads. Offline: npm
 * installs from its local cache (filled by the `npm ci` that made
 * node_modules), never the network.
 */
const fauxExtension = join(import.meta.dirname, "fixtures", "fauxNotesScript.ts")
const installTimeoutMs = 120_000

/** npm as the test runs under it (`npm test`, `npx vitest`), on the Node of node_modules. */
const npm = (cwd: string, args: ReadonlyArray<string>) => {
  const cli = process.env.npm_execpath
  const [command, prefix] = cli !== undefined && cli.endsWith(".js") ? [process.execPath, [cli]] : ["npm", []]
  return spawnSync(command, [...prefix, ...args], {
    cwd,
    encoding: "utf8",
    timeout: installTimeoutMs,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, npm_config_offline: "true" }
  })
}

describe("pi install git:… gets the prebuilt bundle", () => {
  let root: string
  let clone: string
  let dirs: ReturnType<typeof piDirsIn>
  let install: ReturnType<typeof npm>

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "pi-context-git-install-"))
    clone = join(root, "clone")
    dirs = piDirsIn(root)
    mkdirSync(clone, { recursive: true })
    // What `git clone` gives: the checkout's files (as they are now, committed or not), every one freshly written.
    const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: repoRoot, encoding: "utf8" })
      .split("\0")
      .filter((file) => file !== "" && existsSync(join(repoRoot, file)))
    for (const file of files) {
      mkdirSync(dirname(join(clone, file)), { recursive: true })
      copyFileSync(join(repoRoot, file), join(clone, file))
    }
    install = npm(clone, ["install", "--omit=dev", "--legacy-peer-deps", "--no-audit", "--no-fund"])
  }, installTimeoutMs)

  afterAll(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true })
  })

  it("npm install --omit=dev installs the bundler (an optional dependency) and prepare builds the bundle, without Pi's packages", () => {
    expect(install.status, `${install.stdout}\n${install.stderr}`).toBe(0)
    expect(install.stdout).toMatch(/pi-context: built dist\/ in \d+ ms/)
    expect(existsSync(join(clone, "node_modules", "rolldown"))).toBe(true)
    expect(existsSync(join(clone, "node_modules", "@earendil-works"))).toBe(false)
    expect(bundleIsCurrent(clone)).toBe(true)
  })

  it("Pi loads that bundle, never the TypeScript source behind it", async () => {
    const result = await runPi(dirs.project, { ...piEnv(dirs), JITI_DEBUG: "1" }, fauxPromptArgs("write a note, then list the notes", [clone, fauxExtension]))
    expect(result.code, result.stderr).toBe(0)
    expect(bundleCodeCaches(root)).toContainEqual(expect.stringMatching(/pi-context\.cjs-[0-9a-f]{16}\.v8$/))
    expect(result.stderr).not.toContain("src/main.ts")
    const tools = jsonEvents(result.stdout).filter((event) => event.type === "tool_execution_end")
    expect(tools.map((event) => [event.toolName, event.isError])).toEqual([["notes_write", false], ["notes_list", false]])
  })

  it("an npm package carries the bundle: npm pack puts dist/ in the tarball beside the Pi entry, and the README with the docs it links", () => {
    const packed = npm(repoRoot, ["pack", "--dry-run", "--json", "--ignore-scripts"])
    expect(packed.status, packed.stderr).toBe(0)
    const files = (JSON.parse(packed.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path)
    expect(files).toEqual(expect.arrayContaining(["dist/pi-context.cjs", "dist/built.json", "src/extension.ts", "package.json", "README.md", "docs/settings.md", "docs/eval.md"]))
  })
})
