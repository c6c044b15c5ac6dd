/** A failing command whose cause must be remembered later: the first build prints, once, the key the final build needs. */
import { call, fillerFunction, latestRead, listFact, moduleNames, read, rng, runNode, verdict, writeTree } from "../common.ts"
import { createHash } from "node:crypto"
import { literally } from "../taskTypes.ts"
import type { Action, Knowledge, Task } from "../taskTypes.ts"

const setup = (seed: number) => {
  const random = rng(seed * 13 + 5)
  const modules = moduleNames(random, 32 + (seed % 3))
  const key = `K-${Math.floor(random.next() * 0xffffff).toString(16).padStart(6, "0")}`
  return { random, modules, key }
}

/**
 * The key is in the repository only until the first build: the script knows its hash, and the one-time hint
 * file is deleted once printed. After that the key is in the conversation alone, where a turnover may lose it.
 */
const hintFile = ".build/first-run-hint"
const keyHash = (key: string) => createHash("sha256").update(key).digest("hex")

const buildScript = (key: string) => `// Checks that every module is an ES module, then writes dist/bundle.txt.
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
const hint = "${hintFile}"
if (createHash("sha256").update(process.env.BUILD_KEY ?? "").digest("hex") !== "${keyHash(key)}") {
  if (existsSync(hint)) {
    console.error(readFileSync(hint, "utf8").trim())
    rmSync(hint)
  } else console.error("build failed: BUILD_KEY is missing or wrong.")
  process.exit(1)
}
const modules = readdirSync("src").filter((file) => file.endsWith(".js"))
const commonjs = modules.filter((file) => /\\brequire\\(|module\\.exports/.test(readFileSync(\`src/\${file}\`, "utf8")))
if (commonjs.length > 0) {
  console.error(\`build failed: \${commonjs.length} modules still use CommonJS: \${commonjs.join(", ")}\`)
  process.exit(1)
}
mkdirSync("dist", { recursive: true })
writeFileSync("dist/bundle.txt", \`built \${modules.length} modules with key \${process.env.BUILD_KEY}\\n\`)
console.log(\`build ok: \${modules.length} modules\`)
`

const files = (seed: number): Record<string, string> => {
  const { random, modules, key } = setup(seed)
  const tree: Record<string, string> = {
    "package.json": JSON.stringify({ name: "widgets", private: true }, null, 2) + "\n",
    "scripts/build.mjs": buildScript(key),
    [hintFile]: `build failed: BUILD_KEY is not set. For this checkout use BUILD_KEY=${key} (this hint is printed only once).\n`,
    "test/run.mjs": 'import { readdirSync } from "node:fs"\nfor (const file of readdirSync("src")) {\n  const mod = await import(`../src/${file}`)\n  if (Object.keys(mod).length === 0) throw new Error(`${file} exports nothing`)\n}\nconsole.log("ok")\n'
  }
  for (const name of modules) {
    const names = Array.from({ length: 12 }, (_, index) => `${name}Op${index + 1}`)
    tree[`src/${name}.js`] = [
      `// ${name}.js`,
      'const path = require("node:path")',
      "",
      ...names.map((fn) => fillerFunction(random, fn, false)),
      `function ${name}Where(file) {\n  return path.basename(file)\n}\n`,
      `module.exports = { ${[...names, `${name}Where`].join(", ")} }`,
      ""
    ].join("\n")
  }
  return tree
}

/** CommonJS to ES modules for the shapes these modules use. */
export const toEsm = (source: string): string =>
  source
    .replace(/^const (\w+) = require\(("[^"]+")\)$/gm, "import $1 from $2")
    .replace(/^const \{ ([^}]+) \} = require\(("[^"]+")\)$/gm, "import { $1 } from $2")
    .replace(/^module\.exports = \{ ([^}]+) \}$/gm, "export { $1 }")

const buildCommand = "node scripts/build.mjs"

export const buildKey: Task = {
  name: "build-key",
  kind: "a failing command whose cause must be remembered later",
  generate: (dir, seed) => writeTree(dir, files(seed)),
  messages: (seed) => [
    {
      id: "convert",
      when: "start",
      text: "Convert every module in src/ from CommonJS (require and module.exports) to ES modules (import and export), and add \"type\": \"module\" to package.json. " +
        `First run \`${buildCommand}\` once to see what the build says now. When all modules are converted, the build must succeed and write dist/bundle.txt.`
    },
    { id: "key", when: "progress", afterWorkCalls: 25, text: "When you are done, tell me what the first build run said about BUILD_KEY.", answer: new RegExp(setup(seed).key), mustAnswer: true }
  ],
  verify: (dir, seed) => {
    const { key, modules } = setup(seed)
    const failures: Array<string> = []
    const left = modules.filter((name) => /\brequire\(|module\.exports/.test(read(dir, `src/${name}.js`) ?? ""))
    if (left.length > 0) failures.push(`still CommonJS: ${left.join(", ")}`)
    if (!(read(dir, "dist/bundle.txt") ?? "").includes(key)) failures.push("dist/bundle.txt was not built with the key")
    if ((JSON.parse(read(dir, "package.json") ?? "{}") as { type?: string }).type !== "module") failures.push('package.json has no "type": "module"')
    const test = runNode(dir, ["test/run.mjs"])
    if (!test.ok) failures.push(`node test/run.mjs failed: ${test.output.slice(0, 300)}`)
    return verdict(failures)
  },
  solve: (dir, seed) => {
    const tree = files(seed)
    writeTree(dir, Object.fromEntries(Object.entries(tree).map(([path, content]) => [path, path.startsWith("src/") ? toEsm(content) : content])))
    writeTree(dir, { "package.json": JSON.stringify({ name: "widgets", private: true, type: "module" }, null, 2) + "\n" })
    runNode(dir, ["scripts/build.mjs"], { BUILD_KEY: setup(seed).key })
  },
  facts: (seed) => [{
    name: "the build key",
    question: "Which BUILD_KEY must the build use?",
    pattern: literally(setup(seed).key),
    // Any other key is a wrong one.
    wrong: [new RegExp(`K-(?!${setup(seed).key.slice(2)}\\b)[0-9a-f]{6}\\b`)],
    source: "tool output",
    key: "build.key"
  }],
  solver: {
    learn: (text, facts, made) => {
      if (text.includes("Convert every module in src/ from CommonJS")) facts.set("esm.goal", "convert src/ to ES modules, then build")
      const key = /use BUILD_KEY=(K-[0-9a-f]+)/.exec(text)
      if (key !== null) facts.set("build.key", key[1]!)
      if (text.includes("what the first build run said about BUILD_KEY")) facts.set("build.keyAsked", "yes")
      if (made?.name === "bash" && made.args.command === buildCommand) facts.set("build.firstRun", "done")
      if (made?.name === "bash" && made.args.command === "ls src") facts.set("esm.files", text.split("\n").map((line) => line.trim()).filter((line) => line.endsWith(".js")).map((line) => `src/${line}`).join(","))
    },
    next: (knowledge): Action => {
      if (!knowledge.facts.has("esm.goal")) return { kind: "reply", steps: [], text: "I do not know the task: please tell me again." }
      if (!knowledge.facts.has("build.firstRun")) return { kind: "call", steps: [], calls: [call("bash", { command: buildCommand })] }
      const targets = listFact(knowledge, "esm.files")
      if (targets === undefined) return { kind: "call", steps: [], calls: [call("bash", { command: "ls src" })] }
      for (const path of [...targets, "package.json"]) {
        if (knowledge.done.has(`write:${path}`)) continue
        const content = latestRead(knowledge, path)
        if (content === undefined) return { kind: "call", steps: [], calls: [call("read", { path })] }
        const converted = path === "package.json" ? JSON.stringify({ ...(JSON.parse(content) as object), type: "module" }, null, 2) + "\n" : toEsm(content)
        return { kind: "call", steps: [`write:${path}`], calls: [call("write", { path, content: converted })] }
      }
      return finalBuild(knowledge)
    }
  }
}

const finalBuild = (knowledge: Knowledge): Action => {
  const key = knowledge.facts.get("build.key")
  if (key === undefined) {
    const searched = knowledge.results.some((result) => result.tool === "history_search")
    if (knowledge.tools.includes("history_search") && !searched) return { kind: "call", steps: [], calls: [call("history_search", { query: "BUILD_KEY=" })] }
    return { kind: "reply", steps: [], text: "I am blocked: the build needs BUILD_KEY. The first build printed the value once, and I no longer have it." }
  }
  const command = `BUILD_KEY=${key} ${buildCommand}`
  const build = knowledge.results.findLast((result) => result.tool === "bash" && result.args.command === command)
  if (build === undefined && !knowledge.done.has("build")) return { kind: "call", steps: ["build"], calls: [call("bash", { command })] }
  if (build?.isError === true) return { kind: "reply", steps: [], text: `I am blocked: the build still fails:\n${build.text.slice(0, 400)}` }
  const said = knowledge.facts.has("build.keyAsked") ? ` The first build said: BUILD_KEY is not set, and to use BUILD_KEY=${key}.` : ""
  return { kind: "reply", steps: ["done"], text: `Converted every module in src/ to ES modules; the build succeeded and wrote dist/bundle.txt.${said}` }
}
