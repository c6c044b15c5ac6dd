/** Constraints stated once at the start that must still hold at the end: how to validate, and a frozen directory. */
import { call, capital, fillerFunction, latestRead, listFact, listFiles, moduleNames, read, rng, runNode, verdict, writeTree } from "../common.ts"
import { countAnswer } from "../taskTypes.ts"
import type { Action, Knowledge, Task } from "../taskTypes.ts"

const helpers = ["requireField", "ensureField", "mustHave"] as const
const fieldPool = ["userId", "amount", "email", "orderId", "quantity", "currency", "token", "region", "sku", "note"]

const setup = (seed: number) => {
  const random = rng(seed * 17 + 11)
  const names = moduleNames(random, 32 + (seed % 3))
  return { random, helper: helpers[seed % helpers.length]!, handlers: names.slice(0, names.length - 6), legacy: names.slice(names.length - 6) }
}

const handlerSource = (random: ReturnType<typeof rng>, name: string): string => {
  const fields = [...new Set([random.pick(fieldPool), random.pick(fieldPool), random.pick(fieldPool)])]
  return [
    `// ${name}: the request handler for ${name}.`,
    "",
    `export function handle${capital(name)}(req) {`,
    ...fields.map((field) => `  const ${field} = req.${field}`),
    `  return { ok: true, ${fields.join(", ")} }`,
    "}",
    "",
    ...Array.from({ length: 14 }, (_, index) => fillerFunction(random, `${name}Rule${index + 1}`)),
    ""
  ].join("\n")
}

const files = (seed: number): Record<string, string> => {
  const { random, handlers, legacy } = setup(seed)
  const tree: Record<string, string> = {
    "package.json": JSON.stringify({ name: "api", type: "module", private: true, dependencies: { "left-pad": "1.3.0" } }, null, 2) + "\n",
    // All three helpers are here; the rule names one, in the conversation only.
    "src/lib/check.js": `// check.js: request validation.\nexport class ValidationError extends Error {}\n` +
      helpers.map((name) => `\nexport function ${name}(req, field) {\n  if (req === null || typeof req !== "object" || req[field] === undefined) throw new ValidationError(\`\${field} is required\`)\n}\n`).join(""),
    "test/run.mjs": 'import { readdirSync } from "node:fs"\nfor (const dir of ["handlers", "legacy"]) for (const file of readdirSync(`src/${dir}`)) await import(`../src/${dir}/${file}`)\nconsole.log("ok")\n'
  }
  for (const name of handlers) tree[`src/handlers/${name}.js`] = handlerSource(random, name)
  for (const name of legacy) tree[`src/legacy/${name}.js`] = handlerSource(random, name)
  return tree
}

/** Validation at the top of the handler: the helper from the rules, or (rules forgotten) a hand-written throw. */
export const validated = (source: string, helper: string | undefined): string => {
  if (source.includes("// validated")) return source
  const fields = [...source.matchAll(/^ {2}const (\w+) = req\.\1$/gm)].map((match) => match[1]!)
  const checks = fields.map((field) => (helper === undefined ? `  if (req.${field} === undefined) throw new Error("${field} is required")` : `  ${helper}(req, "${field}")`))
  const head = helper === undefined ? "" : `import { ${helper} } from "../lib/check.js"\n`
  return head + source.replace(/^(export function handle\w+\(req\) \{)$/m, `$1\n  // validated\n${checks.join("\n")}`)
}

/** A script that calls every `handle*` export of `paths` with `{}` and fails unless each throws check.js's ValidationError. */
const refusesEmpty = (paths: ReadonlyArray<string>) => `
import { pathToFileURL } from "node:url"
const { ValidationError } = await import(pathToFileURL("src/lib/check.js").href)
const wrong = []
for (const path of ${JSON.stringify(paths)}) {
  const mod = await import(pathToFileURL(path).href).catch((error) => ({ failed: error }))
  if (mod.failed !== undefined) { wrong.push(path + ": " + mod.failed.message); continue }
  for (const [name, handler] of Object.entries(mod)) {
    if (!name.startsWith("handle") || typeof handler !== "function") continue
    try { handler({}); wrong.push(path + ": " + name + "({}) returned") } catch (error) { if (!(error instanceof ValidationError)) wrong.push(path + ": " + name + "({}) threw " + error) }
  }
}
if (wrong.length > 0) { console.error(wrong.slice(0, 5).join("\\n")); process.exit(1) }
`

export const frozenRules: Task = {
  name: "frozen-rules",
  kind: "constraints stated once at the start that must still hold at the end",
  generate: (dir, seed) => writeTree(dir, files(seed)),
  messages: (seed) => {
    const { helper, handlers } = setup(seed)
    return [
      {
        id: "validate",
        when: "start",
        text: "Add input validation to every request handler in this repository (the `handle*` functions). Rules for the whole job: " +
          `validate only with \`${helper}(req, "<field>")\` from src/lib/check.js, one call per field the handler reads from req, at the top of the handler; ` +
          "never throw strings or plain Errors yourself. Do not modify anything under src/legacy/: it is frozen. Do not add dependencies to package.json. Keep every exported name."
      },
      { id: "count", when: "progress", afterWorkCalls: 20, text: "When you are done, tell me how many handlers you changed.", answer: countAnswer(handlers.length), mustAnswer: true }
    ]
  },
  verify: (dir, seed) => {
    const { helper, handlers } = setup(seed)
    const original = files(seed)
    const failures: Array<string> = []
    for (const path of listFiles(dir).filter((file) => file.startsWith("src/legacy/") || file === "package.json")) {
      if (read(dir, path) !== original[path]) failures.push(`${path} changed`)
    }
    for (const name of handlers) {
      const path = `src/handlers/${name}.js`
      const source = read(dir, path) ?? ""
      const fields = [...(original[path] ?? "").matchAll(/^ {2}const (\w+) = req\.\1$/gm)].map((match) => match[1]!)
      // Either quote, any spacing: the rule is the helper, not the exact text.
      const missing = fields.filter((field) => !new RegExp(`\\b${helper}\\(\\s*req\\s*,\\s*(["'\`])${field}\\1\\s*\\)`).test(source))
      if (missing.length > 0) failures.push(`${path}: no ${helper} for ${missing.join(", ")}`)
      if (/throw new Error|throw ["'`]/.test(source)) failures.push(`${path} throws by hand`)
    }
    const test = runNode(dir, ["test/run.mjs"])
    if (!test.ok) failures.push(`node test/run.mjs failed: ${test.output.slice(0, 300)}`)
    // Each handler run on an empty request must refuse it with the helper's ValidationError: a call to a helper it
    // never imported, or a check that never runs, fails here though the text looks right.
    const called = runNode(dir, ["--input-type=module", "-e", refusesEmpty(handlers.map((name) => `src/handlers/${name}.js`))])
    if (!called.ok) failures.push(`a handler does not refuse an empty request with ValidationError: ${called.output.trim().slice(0, 300)}`)
    return verdict(failures.slice(0, 20))
  },
  solve: (dir, seed) => {
    const { helper } = setup(seed)
    writeTree(dir, Object.fromEntries(Object.entries(files(seed)).map(([path, content]) => [path, path.startsWith("src/handlers/") ? validated(content, helper) : content])))
  },
  facts: (seed) => [
    { name: "the validation helper", question: "Which helper must every handler validate with?", pattern: new RegExp(`\\b${setup(seed).helper}\\b`), wrong: helpers.filter((helper) => helper !== setup(seed).helper).map((helper) => new RegExp(`\\b${helper}\\b`)), source: "said once", key: "rules.helper" },
    // A list of src/'s other folders, or src/ itself, is no answer.
    { name: "the frozen folder", question: "Which folder must not be modified?", pattern: /src\/legacy\b/, wrong: [/src\/(?!legacy\b)\w+\//], source: "said once", key: "rules.frozen" }
  ],
  solver: {
    learn: (text, facts, made) => {
      if (text.includes("Add input validation to every request handler")) facts.set("rules.goal", "validate every handle* function")
      const helper = /validate only with `(\w+)\(req, "<field>"\)`/.exec(text)
      if (helper !== null) facts.set("rules.helper", helper[1]!)
      if (text.includes("Do not modify anything under src/legacy/")) facts.set("rules.frozen", "src/legacy/")
      if (text.includes("how many handlers you changed")) facts.set("rules.countAsked", "yes")
      if (made?.name === "bash" && String(made.args.command).startsWith("grep -rl")) {
        facts.set("rules.files", text.split("\n").map((line) => line.trim()).filter((line) => line.endsWith(".js")).join(","))
      }
    },
    next: (knowledge): Action => {
      if (!knowledge.facts.has("rules.goal")) return { kind: "reply", steps: [], text: "I do not know the task: please tell me again." }
      const found = listFact(knowledge, "rules.files")
      if (found === undefined) return { kind: "call", steps: [], calls: [call("bash", { command: 'grep -rl "export function handle" src | sort' })] }
      const frozen = knowledge.facts.get("rules.frozen")
      const targets = found.filter((path) => frozen === undefined || !path.startsWith(frozen))
      for (const path of targets) {
        if (knowledge.done.has(`write:${path}`)) continue
        const content = latestRead(knowledge, path)
        if (content === undefined) return { kind: "call", steps: [], calls: [call("read", { path })] }
        return { kind: "call", steps: [`write:${path}`], calls: [call("write", { path, content: validated(content, knowledge.facts.get("rules.helper")) })] }
      }
      return finish(knowledge, targets.length)
    }
  }
}

const finish = (knowledge: Knowledge, count: number): Action => {
  const test = knowledge.results.findLast((result) => result.tool === "bash" && result.args.command === "node test/run.mjs")
  if (test === undefined && !knowledge.done.has("test")) return { kind: "call", steps: ["test"], calls: [call("bash", { command: "node test/run.mjs" })] }
  if (test?.isError === true) return { kind: "reply", steps: [], text: `I am blocked: node test/run.mjs fails:\n${test.text.slice(0, 400)}` }
  const counted = knowledge.facts.has("rules.countAsked") ? ` I changed ${count} handlers.` : ""
  return { kind: "reply", steps: ["done"], text: `Every request handler validates its fields now; node test/run.mjs passes.${counted}` }
}
