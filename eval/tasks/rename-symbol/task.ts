/** A rename across many files: one function, its definition, every import and call, the test and the docs. */
import { call, capital, fillerFunction, latestRead, listFact, listFiles, moduleNames, read, rng, runNode, verdict, writeTree } from "../common.ts"
import { countAnswer, literally } from "../taskTypes.ts"
import type { Action, Knowledge, Task } from "../taskTypes.ts"

const pairs = [["getUserRecord", "fetchAccount"], ["loadCustomer", "readClient"], ["findMember", "lookupPerson"]] as const

const setup = (seed: number) => {
  const random = rng(seed)
  const [from, to] = pairs[seed % pairs.length]!
  const modules = moduleNames(random, 34 + (seed % 4))
  return { random, from, to, modules }
}

const moduleSource = (random: ReturnType<typeof rng>, name: string, from: string): string =>
  [
    `// ${name}.js: helpers for ${name} records.`,
    `import { ${from} } from "./users.js"`,
    "",
    `export function describe${capital(name)}(id) {`,
    `  const user = ${from}(id)`,
    `  return \`${name}:\${user.id}:\${user.name}\``,
    "}",
    "",
    ...Array.from({ length: 11 }, (_, index) => fillerFunction(random, `${name}Step${index + 1}`)),
    `export function audit${capital(name)}(ids) {`,
    `  return ids.map((id) => ${from}(id).name).join(",")`,
    "}",
    ""
  ].join("\n")

const files = (seed: number): Record<string, string> => {
  const { random, from, modules } = setup(seed)
  const tree: Record<string, string> = {
    "package.json": JSON.stringify({ name: "records", type: "module", private: true }, null, 2) + "\n",
    "src/users.js": `// users.js: the user store.\nconst names = ["Ada", "Grace", "Linus", "Barbara"]\n\nexport function ${from}(id) {\n  return { id, name: names[id % names.length] }\n}\n`,
    "docs/api.md": `# API\n\n\`${from}(id)\` returns the user with that id as \`{ id, name }\`. Every module's \`describe*\` function calls ${from}.\n`,
    "test/run.mjs": [
      'import { readdirSync } from "node:fs"',
      'import * as users from "../src/users.js"',
      `if (typeof users.${from} !== "function") throw new Error("users.js must export ${from}")`,
      'const files = readdirSync(new URL("../src/", import.meta.url)).filter((file) => file.endsWith(".js") && file !== "users.js")',
      "for (const file of files) {",
      "  const mod = await import(`../src/${file}`)",
      '  const describe = Object.entries(mod).find(([key]) => key.startsWith("describe"))',
      "  if (describe === undefined) throw new Error(`${file} has no describe function`)",
      "  describe[1](7)",
      "}",
      "console.log(`ok: ${files.length} modules`)",
      ""
    ].join("\n")
  }
  for (const name of modules) tree[`src/${name}.js`] = moduleSource(random, name, from)
  return tree
}

const holding = (dir: string, word: string) => listFiles(dir).filter((path) => new RegExp(`\\b${word}\\b`).test(read(dir, path) ?? ""))

export const renameSymbol: Task = {
  name: "rename-symbol",
  kind: "a rename across many files",
  generate: (dir, seed) => writeTree(dir, files(seed)),
  messages: (seed) => {
    const { from, to } = setup(seed)
    const changed = Object.values(files(seed)).filter((content) => content.includes(from)).length
    return [
      {
        id: "rename",
        when: "start",
        text: `Rename the function \`${from}\` to \`${to}\` everywhere in this repository: its definition, every import and call, the tests and the docs. ` +
          "Behaviour must not change. When you are done, run `node test/run.mjs`; it must pass."
      },
      { id: "count", when: "progress", afterWorkCalls: 30, text: "When you finish, tell me how many files you changed.", answer: countAnswer(changed), mustAnswer: true }
    ]
  },
  verify: (dir, seed) => {
    const { from, to } = setup(seed)
    const expected = Object.entries(files(seed)).filter(([, content]) => content.includes(from)).map(([path]) => path).sort()
    const failures: Array<string> = []
    const left = holding(dir, from)
    if (left.length > 0) failures.push(`${from} is still in ${left.join(", ")}`)
    const missing = expected.filter((path) => !new RegExp(`\\b${to}\\b`).test(read(dir, path) ?? ""))
    if (missing.length > 0) failures.push(`${to} is missing from ${missing.join(", ")}`)
    const test = runNode(dir, ["test/run.mjs"])
    if (!test.ok) failures.push(`node test/run.mjs failed: ${test.output.slice(0, 300)}`)
    return verdict(failures)
  },
  solve: (dir, seed) => {
    const { from, to } = setup(seed)
    writeTree(dir, Object.fromEntries(Object.entries(files(seed)).map(([path, content]) => [path, content.replaceAll(from, to)])))
  },
  facts: (seed) => {
    const { from, to } = setup(seed)
    const others = pairs.flat().filter((name) => name !== from && name !== to).map((name) => literally(name))
    return [
      { name: "the old name", question: "Which function are you renaming (its old name)?", pattern: literally(from), wrong: others, source: "said once", key: "rename.from" },
      { name: "the new name", question: "What is its new name?", pattern: literally(to), wrong: others, source: "said once", key: "rename.to" }
    ]
  },
  solver: {
    learn: (text, facts, made) => {
      const goal = /Rename the function `(\w+)` to `(\w+)`/.exec(text)
      if (goal !== null) {
        facts.set("rename.from", goal[1]!)
        facts.set("rename.to", goal[2]!)
      }
      if (/how many files you changed/.test(text)) facts.set("rename.countAsked", "yes")
      if (made?.name === "bash" && String(made.args.command).startsWith("grep -rl")) {
        facts.set("rename.files", text.split("\n").map((line) => line.trim().replace(/^\.\//, "")).filter((line) => /\.(js|mjs|md)$/.test(line)).join(","))
      }
    },
    next: (knowledge): Action => {
      const from = knowledge.facts.get("rename.from")
      const to = knowledge.facts.get("rename.to")
      if (from === undefined || to === undefined) return { kind: "reply", steps: [], text: "I do not know what to rename: please tell me the task again." }
      const targets = listFact(knowledge, "rename.files")
      if (targets === undefined) return { kind: "call", steps: [], calls: [call("bash", { command: `grep -rl ${from} . --include=*.js --include=*.mjs --include=*.md | sort` })] }
      for (const path of targets) {
        if (knowledge.done.has(`write:${path}`)) continue
        const content = latestRead(knowledge, path)
        if (content === undefined) return { kind: "call", steps: [], calls: [call("read", { path })] }
        return { kind: "call", steps: [`write:${path}`], calls: [call("write", { path, content: content.replaceAll(from, to) })] }
      }
      return finish(knowledge, [...knowledge.done].filter((step) => step.startsWith("write:")).length, from, to)
    }
  }
}

const finish = (knowledge: Knowledge, count: number, from: string, to: string): Action => {
  const test = knowledge.results.findLast((result) => result.tool === "bash" && result.args.command === "node test/run.mjs")
  if (test === undefined && !knowledge.done.has("test")) return { kind: "call", steps: ["test"], calls: [call("bash", { command: "node test/run.mjs" })] }
  if (test?.isError === true) return { kind: "reply", steps: [], text: `I am blocked: node test/run.mjs fails after the rename:\n${test.text.slice(0, 400)}` }
  const counted = knowledge.facts.has("rename.countAsked") ? ` I changed ${count} files.` : ""
  return { kind: "reply", steps: ["done"], text: `Renamed ${from} to ${to} everywhere; node test/run.mjs passes.${counted}` }
}
