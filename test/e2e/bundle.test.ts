import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleEntry, bundleIsCurrent } from "../../src/extension.ts"
import { bundleCodeCaches, fauxPromptArgs, jsonEvents, piDirsIn, piEnv, repoRoot, runPi as run } from "./fixtures/piCli.ts"

/**
 * The prebuilt bundle in the real `pi` CLI: pi-context is copied as an npm
 * install lays it out (package.json, src/, dist/) with no node_modules, so
 * Pi's own packages can only come from the Pi that loads it and Effect only
 * from the bundle. Pi's loader, asked to log (JITI_DEBUG), names each file it
 * loads: the bundle, and never the TypeScript source behind it.
 */
const fauxExtension = join(import.meta.dirname, "fixtures", "fauxNotesScript.ts")
describe("the prebuilt bundle in the real pi CLI", () => {
  let root: string
  let installed: string
  let dirs: ReturnType<typeof piDirsIn>

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "pi-context-bundle-e2e-"))
    installed = join(root, "installed", "pi-context")
    dirs = piDirsIn(root)
    mkdirSync(installed, { recursive: true })
    // Times kept, so the copied bundle is as current as the checkout's.
    for (const part of ["package.json", "src", "dist"]) cpSync(join(repoRoot, part), join(installed, part), { recursive: true, preserveTimestamps: true })
  })

  afterAll(() => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true })
  })

  it("the checkout's bundle is built from its source as it is now (npm test builds it first; else `npm run build`)", () => {
    expect(existsSync(join(repoRoot, "dist", bundleEntry))).toBe(true)
    expect(bundleIsCurrent(repoRoot)).toBe(true)
  })

  it("start-up's modules leave out the regex engine: it is a chunk of its own, imported on the first regex", () => {
    const dist = join(repoRoot, "dist")
    const bundled = (chunk: string) => (JSON.parse(readFileSync(join(dist, `${chunk}.map`), "utf8")) as { sources: Array<string> }).sources
    const chunks = readdirSync(dist).filter((name) => name.endsWith(".cjs"))
    const withEngine = chunks.filter((chunk) => bundled(chunk).some((source) => source.includes("node_modules/re2js/")))
    expect(withEngine).toHaveLength(1)
    expect(withEngine[0]).not.toMatch(/^(pi-context|host-)/)
  })

  it("a regex notes_search runs on the bundle, the regex engine's chunk loaded on that first regex", async () => {
    const regexSearch = join(import.meta.dirname, "fixtures", "fauxRegexSearch.ts")
    const result = await run(dirs.project, piEnv(dirs), fauxPromptArgs("write a note, then find it with a regex", [installed, regexSearch]))
    expect(result.code, result.stderr).toBe(0)
    const search = jsonEvents(result.stdout).find((event) => event.type === "tool_execution_end" && event.toolName === "notes_search")
    expect(search?.isError).toBe(false)
    expect(JSON.stringify(search?.result)).toContain("build 4711 passed")
  })

  it("a print run loads the bundle without node_modules, and the model's notes tools run on it", async () => {
    const result = await run(dirs.project, { ...piEnv(dirs), JITI_DEBUG: "1" }, fauxPromptArgs("write a note, then list the notes", [installed, fauxExtension]))
    expect(result.code, result.stderr).toBe(0)
    // The loader's log: the entry, and no source file behind the bundle transpiled.
    expect(result.stderr).toContain("src/extension.ts")
    // The bundle's chunks ran through its loader, which kept their compiled code for the next start.
    expect(bundleCodeCaches(root)).toContainEqual(expect.stringMatching(/pi-context\.cjs-[0-9a-f]{16}\.v8$/))
    expect(bundleCodeCaches(root)).toContainEqual(expect.stringMatching(/host-[\w-]+\.cjs-[0-9a-f]{16}\.v8$/))
    expect(result.stderr).not.toContain("src/main.ts")
    expect(result.stderr).not.toContain("src/pi/")
    const events = jsonEvents(result.stdout)
    expect(events.some((event) => event.type === "message_end" && event.message?.customType === "pi-context/boot")).toBe(true)
    const tools = events.filter((event) => event.type === "tool_execution_end")
    expect(tools.map((event) => [event.toolName, event.isError])).toEqual([["notes_write", false], ["notes_list", false]])
  })

  it("Pi's exit prunes the code cache of a build no start used for 30 days, and keeps the ones in use", async () => {
    const prompt = fauxPromptArgs("write a note, then list the notes", [installed, fauxExtension])
    expect((await run(dirs.project, piEnv(dirs), prompt)).code).toBe(0)
    const inUse = bundleCodeCaches(root)
    expect(inUse).toContainEqual(expect.stringMatching(/pi-context\.cjs-[0-9a-f]{16}\.v8$/))
    const folder = join(root, "node-compile-cache", dirname(inUse[0]!))
    const stale = join(folder, "pi-context.cjs-0123456789abcdef.v8")
    writeFileSync(stale, "a cache of an old build")
    const monthsAgo = new Date(Date.now() - 40 * 24 * 60 * 60 * 1000)
    utimesSync(stale, monthsAgo, monthsAgo)

    expect((await run(dirs.project, piEnv(dirs), prompt)).code).toBe(0)
    expect(existsSync(stale)).toBe(false)
    expect(bundleCodeCaches(root)).toEqual(inUse)
  })

  it("a broken bundle (a chunk missing, or one that does not compile) falls back to the source: tools work, Pi exits 0", async () => {
    const regexSearch = join(import.meta.dirname, "fixtures", "fauxRegexSearch.ts")
    for (const breakIt of [
      // The regex engine's chunk, loaded only on the first regex: gone, every regex search used to fail with ENOENT.
      (dist: string) => rmSync(join(dist, readdirSync(dist).find((name) => name.endsWith(".cjs") && !name.startsWith("pi-context") && !name.startsWith("host-") && readFileSync(join(dist, name), "utf8").includes("re2"))!)),
      // The entry cut in half with its size kept (garbage after the cut): Pi used to exit 1.
      (dist: string) => {
        const entry = readFileSync(join(dist, bundleEntry), "utf8")
        writeFileSync(join(dist, bundleEntry), entry.slice(0, entry.length / 2).padEnd(entry.length, "}"))
      }
    ]) {
      const broken = join(root, "broken", "pi-context")
      rmSync(join(root, "broken"), { recursive: true, force: true })
      mkdirSync(broken, { recursive: true })
      for (const part of ["package.json", "src", "dist"]) cpSync(join(repoRoot, part), join(broken, part), { recursive: true, preserveTimestamps: true })
      // The source needs Effect: an npm install has it beside the package.
      symlinkSync(join(repoRoot, "node_modules"), join(broken, "node_modules"))
      breakIt(join(broken, "dist"))
      const result = await run(dirs.project, { ...piEnv(dirs), JITI_DEBUG: "1" }, fauxPromptArgs("write a note, then find it with a regex", [broken, regexSearch]))
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toContain("src/main.ts")
      const search = jsonEvents(result.stdout).find((event) => event.type === "tool_execution_end" && event.toolName === "notes_search")
      expect(search?.isError).toBe(false)
      expect(JSON.stringify(search?.result)).toContain("build 4711 passed")
    }
  })
})
