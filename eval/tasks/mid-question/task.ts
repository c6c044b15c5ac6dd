/** A user request that arrives mid-task and must be answered: a question steered in while the agent documents a codebase. */
import { call, fillerFunction, latestRead, listFact, moduleNames, read, rng, verdict, writeTree } from "../common.ts"
import type { Action, Knowledge, Task } from "../taskTypes.ts"

const setup = (seed: number) => {
  const random = rng(seed * 7 + 3)
  const modules = moduleNames(random, 34 + (seed % 3))
  const holder = modules[Math.floor(random.next() * modules.length)]!
  return { random, modules, holder }
}

const files = (seed: number): Record<string, string> => {
  const { random, modules, holder } = setup(seed)
  const tree: Record<string, string> = { "package.json": JSON.stringify({ name: "toolkit", type: "module", private: true }, null, 2) + "\n" }
  for (const name of modules) {
    const body = Array.from({ length: 12 }, (_, index) => fillerFunction(random, `${name}Part${index + 1}`))
    if (name === holder) body.splice(3, 0, "export function computeChecksum(data, seed = 7) {\n  let sum = seed\n  for (const byte of data) sum = (sum * 31 + byte) >>> 0\n  return sum\n}\n")
    tree[`src/${name}.js`] = `// ${name}.js\n\n${body.join("\n")}`
  }
  return tree
}

const exported = /^export function (\w+)\(([^)]*)\)/

/** Adds a JSDoc block above each exported function that has none. */
export const documented = (source: string): string => {
  const lines = source.split("\n")
  const out: Array<string> = []
  for (const line of lines) {
    const match = exported.exec(line)
    if (match !== null && out.at(-1)?.trim() !== "*/") {
      const params = match[2]!.split(",").map((param) => param.split("=")[0]!.trim()).filter((param) => param !== "")
      out.push("/**", ` * ${match[1]}: returns the items it was given, filtered and sorted.`, ...params.map((param) => ` * @param ${param}`), " */")
    }
    out.push(line)
  }
  return out.join("\n")
}

const withoutComments = (source: string) => source.replace(/\/\*\*[\s\S]*?\*\/\n/g, "")

export const midQuestion: Task = {
  name: "mid-question",
  kind: "a user request that arrives mid-task and must be answered",
  generate: (dir, seed) => writeTree(dir, files(seed)),
  messages: (seed) => [
    {
      id: "document",
      when: "start",
      text: "Add a JSDoc comment block directly above every exported function in src/: one line saying what the function does, then one @param line per parameter. Do not change any code."
    },
    {
      id: "question",
      when: "progress",
      afterWorkCalls: 25,
      text: "Quick question while you work on that: which file in src/ defines `computeChecksum`? Answer me, then carry on.",
      // Names the symbol and its file, so mentioning the file while editing it is not an answer.
      answer: new RegExp(`^(?=[\\s\\S]*computeChecksum)[\\s\\S]*\\b${setup(seed).holder}\\.js\\b`),
      mustAnswer: true
    }
  ],
  verify: (dir, seed) => {
    const failures: Array<string> = []
    for (const [path, original] of Object.entries(files(seed))) {
      if (!path.startsWith("src/")) continue
      const now = read(dir, path) ?? ""
      if (withoutComments(now) !== original) failures.push(`${path}: code changed`)
      const lines = now.split("\n")
      lines.forEach((line, index) => {
        const match = exported.exec(line)
        if (match === null) return
        const block = lines.slice(Math.max(0, lines.lastIndexOf("/**", index)), index).join("\n")
        const params = match[2]!.split(",").map((param) => param.split("=")[0]!.trim()).filter((param) => param !== "")
        if (lines[index - 1]?.trim() !== "*/" || params.some((param) => !block.includes(`@param ${param}`))) failures.push(`${path}: ${match[1]} has no JSDoc block with its @param lines`)
      })
    }
    return verdict(failures.slice(0, 20))
  },
  solve: (dir, seed) => writeTree(dir, Object.fromEntries(Object.entries(files(seed)).map(([path, content]) => [path, path.startsWith("src/") ? documented(content) : content]))),
  facts: (seed) => [{
    name: "the file that defines computeChecksum",
    question: "Which file in src/ defines computeChecksum?",
    pattern: new RegExp(`(?<![\\w/])(?:src/)?${setup(seed).holder}\\.js\\b`),
    // Every other module is a wrong answer: a list of src/ names them all.
    wrong: [new RegExp(`(?<![\\w/])(?:src/)?(?!${setup(seed).holder}\\.js\\b)\\w+\\.js\\b`)],
    // Every file list names it: it is given once a read shows the definition.
    revealedBy: /export function computeChecksum\(/,
    source: "tool output",
    key: "question.file"
  }],
  solver: {
    learn: (text, facts, made) => {
      if (text.includes("Add a JSDoc comment block directly above every exported function")) facts.set("docs.goal", "jsdoc above every exported function in src/")
      const question = /which file in src\/ defines `(\w+)`/.exec(text)
      if (question !== null) facts.set("question.symbol", question[1]!)
      if (made?.name === "bash" && made.args.command === "ls src") facts.set("docs.files", text.split("\n").map((line) => line.trim()).filter((line) => line.endsWith(".js")).map((line) => `src/${line}`).join(","))
      const symbol = facts.get("question.symbol") ?? "computeChecksum"
      if (made?.name === "read" && text.includes(`export function ${symbol}(`)) facts.set("question.file", String(made.args.path))
      if (made?.name === "bash" && String(made.args.command).startsWith("grep -rl")) {
        const found = text.split("\n").map((line) => line.trim()).find((line) => line.endsWith(".js"))
        if (found !== undefined) facts.set("question.file", found)
      }
    },
    next: (knowledge): Action => {
      if (!knowledge.facts.has("docs.goal")) return { kind: "reply", steps: [], text: "I do not know what to document: please tell me the task again." }
      const symbol = knowledge.facts.get("question.symbol")
      const work = documentNext(knowledge)
      if (symbol === undefined || knowledge.done.has("answer:question")) return work
      const file = knowledge.facts.get("question.file")
      if (file === undefined) return { kind: "call", steps: [], calls: [call("bash", { command: `grep -rl "export function ${symbol}(" src` })] }
      const answer = `To your question: \`${symbol}\` is defined in ${file}.`
      return work.kind === "reply"
        ? { kind: "reply", steps: ["answer:question", ...work.steps], text: `${answer}\n${work.text}` }
        : { ...work, steps: ["answer:question", ...work.steps], say: answer }
    }
  }
}

const documentNext = (knowledge: Knowledge): Action => {
  const targets = listFact(knowledge, "docs.files")
  if (targets === undefined) return { kind: "call", steps: [], calls: [call("bash", { command: "ls src" })] }
  for (const path of targets) {
    if (knowledge.done.has(`write:${path}`)) continue
    const content = latestRead(knowledge, path)
    if (content === undefined) return { kind: "call", steps: [], calls: [call("read", { path })] }
    return { kind: "call", steps: [`write:${path}`], calls: [call("write", { path, content: documented(content) })] }
  }
  return { kind: "reply", steps: ["done"], text: `Every exported function in src/ has a JSDoc block now (${targets.length} files); no code changed.` }
}
