/** A feature built in steps from a specification given only at the start: a ledger module in three stages. */
import { call, fillerFunction, moduleNames, rng, runNode, verdict, writeTree } from "../common.ts"
import { literally } from "../taskTypes.ts"
import type { Action, Knowledge, Task } from "../taskTypes.ts"

const amountErrors = ["amount must be whole cents", "cents must be an integer", "not an amount in cents"]
const fundsErrors = ["insufficient funds", "balance too low", "not enough money"]
const currencies = ["EUR", "CHF", "SEK", "NZD"]

const setup = (seed: number) => {
  const random = rng(seed * 31 + 7)
  return {
    random,
    modules: moduleNames(random, 20),
    errAmount: random.pick(amountErrors),
    errFunds: random.pick(fundsErrors),
    currency: random.pick(currencies)
  }
}

const conventions = "# Conventions\n\n" + Array.from({ length: 24 }, (_, index) =>
  `${index + 1}. Modules export named functions or classes only, keep state inside instances, and document any rule that callers rely on; errors are classes that extend Error.`).join("\n") + "\n"

const files = (seed: number): Record<string, string> => {
  const { random, modules } = setup(seed)
  const tree: Record<string, string> = { "package.json": '{ "name": "books", "type": "module", "private": true }\n', "docs/CONVENTIONS.md": conventions }
  for (const name of modules) tree[`src/${name}.js`] = `// ${name}.js\n\n${Array.from({ length: 11 }, (_, index) => fillerFunction(random, `${name}Task${index + 1}`)).join("\n")}`
  return tree
}

/** The ledger as far as `stage`, with the rules the facts still hold (a forgotten rule is simply not there). */
export const ledgerSource = (stage: number, facts: ReadonlyMap<string, string>): string => {
  const errAmount = facts.get("spec.errAmount")
  const errFunds = facts.get("spec.errFunds")
  const currency = facts.get("spec.currency")
  const lower = facts.has("spec.caseInsensitive") ? ".toLowerCase()" : ""
  return [
    "// ledger.js: accounts in integer cents.",
    "export class LedgerError extends Error {}",
    "",
    "export class Ledger {",
    "  balances = new Map()",
    "  history = []",
    "  check(cents) {",
    errAmount === undefined ? "" : `    if (!Number.isInteger(cents)) throw new LedgerError(${JSON.stringify(errAmount)})`,
    "  }",
    "  move(op, account, cents, date) {",
    `    const name = account${lower}`,
    "    this.balances.set(name, (this.balances.get(name) ?? 0) + (op === \"withdraw\" || op === \"out\" ? -cents : cents))",
    facts.has("spec.history") ? "    this.history.push({ op, account: name, cents, date })" : "",
    "  }",
    "  deposit(account, cents, date) {\n    this.check(cents)\n    this.move(\"deposit\", account, cents, date)\n  }",
    "  withdraw(account, cents, date) {\n    this.check(cents)\n    this.move(\"withdraw\", account, cents, date)\n  }",
    `  balance(account) {\n    return this.balances.get(account${lower}) ?? 0\n  }`,
    stage < 2 ? "" : [
      "  transfer(from, to, cents, date) {",
      "    this.check(cents)",
      errFunds === undefined ? "" : `    if (this.balance(from) < cents) throw new LedgerError(${JSON.stringify(errFunds)})`,
      "    this.move(\"out\", from, cents, date)",
      "    this.move(\"in\", to, cents, date)",
      "  }"
    ].join("\n"),
    stage < 3 ? "" : [
      "  report(month) {",
      "    const moved = new Map()",
      "    for (const entry of this.history) {",
      "      if (!String(entry.date).startsWith(month)) continue",
      "      const sign = entry.op === \"withdraw\" || entry.op === \"out\" ? -1 : 1",
      "      moved.set(entry.account, (moved.get(entry.account) ?? 0) + sign * entry.cents)",
      "    }",
      "    const names = [...moved.keys()].sort()",
      "    const total = names.reduce((sum, name) => sum + moved.get(name), 0)",
      `    return [\`Report \${month} (${currency ?? "?"})\`, ...names.map((name) => \`\${name}: \${moved.get(name)}\`), \`total: \${total}\`]`,
      "  }"
    ].join("\n"),
    "}",
    ""
  ].filter((line) => line !== "").join("\n")
}

const verifier = (errAmount: string, errFunds: string, currency: string) => `
import { Ledger, LedgerError } from "./src/ledger.js"
const fail = (why) => { console.error(why); process.exit(1) }
const l = new Ledger()
l.deposit("Alice", 1000, "2026-03-02")
if (l.balance("alice") !== 1000) fail("names are not case-insensitive")
try { l.deposit("bob", 1.5, "2026-03-02"); fail("a fractional amount was accepted") } catch (e) { if (!(e instanceof LedgerError) || e.message !== ${JSON.stringify(errAmount)}) fail("wrong error for a fractional amount: " + e.message) }
try { l.transfer("bob", "alice", 5, "2026-03-03"); fail("an overdraft was accepted") } catch (e) { if (!(e instanceof LedgerError) || e.message !== ${JSON.stringify(errFunds)}) fail("wrong error for an overdraft: " + e.message) }
l.transfer("ALICE", "Bob", 300, "2026-03-04")
l.withdraw("bob", 100, "2026-04-01")
if (l.history.length !== 4) fail("history has " + l.history.length + " entries, not 4")
const report = l.report("2026-03").join("|")
if (report !== "Report 2026-03 (${currency})|alice: 700|bob: 300|total: 1000") fail("report: " + report)
console.log("ok")
`

const stageText = ["", "Stage 1", "Stage 2 now: add transfer(from, to, cents, date).", 'Stage 3 now: add report(month), with month given as "YYYY-MM".']

export const ledgerStages: Task = {
  name: "ledger-stages",
  kind: "a feature built in steps from a specification given only at the start",
  generate: (dir, seed) => writeTree(dir, files(seed)),
  messages: (seed) => {
    const { errAmount, errFunds, currency } = setup(seed)
    return [
      {
        id: "stage1",
        when: "start",
        text: "We are adding src/ledger.js, in three stages; I will ask for each. The specification, for all stages: " +
          `(1) amounts are integer cents: any other amount throws LedgerError with the message "${errAmount}"; ` +
          "(2) account names are case-insensitive (store them lower-case); " +
          `(3) transfer(from, to, cents, date) never lets an account go below zero: it throws LedgerError("${errFunds}"); ` +
          "(4) every successful operation appends { op, account, cents, date } to ledger.history (a transfer appends two entries, out and in); " +
          `(5) report(month) returns a first line "Report <month> (${currency})", then one line per account that moved in that month, sorted by name, as "<name>: <signed cents>", then "total: <sum>". ` +
          "Stage 1 now: export class Ledger with deposit(account, cents, date), withdraw(account, cents, date) and balance(account), and export class LedgerError. " +
          "Before each stage, read docs/CONVENTIONS.md and every module in src/ so the new code fits in."
      },
      { id: "stage2", when: "idle", text: stageText[2]! },
      { id: "currency", when: "progress", afterWorkCalls: 20, text: "Which currency will the report header show? Tell me when this stage is done.", answer: new RegExp(`\\b${currency}\\b`), mustAnswer: true },
      { id: "stage3", when: "idle", text: stageText[3]! }
    ]
  },
  verify: (dir, seed) => {
    const { errAmount, errFunds, currency } = setup(seed)
    const run = runNode(dir, ["--input-type=module", "-e", verifier(errAmount, errFunds, currency)])
    return verdict(run.ok ? [] : [`the ledger check failed: ${run.output.trim().slice(0, 300)}`])
  },
  solve: (dir, seed) => {
    const { errAmount, errFunds, currency } = setup(seed)
    const facts = new Map([["spec.errAmount", errAmount], ["spec.errFunds", errFunds], ["spec.currency", currency], ["spec.caseInsensitive", "yes"], ["spec.history", "yes"]])
    writeTree(dir, { "src/ledger.js": ledgerSource(3, facts) })
  },
  facts: (seed) => {
    const { errAmount, errFunds, currency } = setup(seed)
    const besides = (all: ReadonlyArray<string>, right: string) => all.filter((value) => value !== right).map((value) => literally(value))
    return [
      { name: "the amount error", question: "What message does LedgerError carry for an amount that is not whole cents?", pattern: literally(errAmount), wrong: besides(amountErrors, errAmount), source: "said once", key: "spec.errAmount" },
      { name: "the funds error", question: "What message does LedgerError carry when the funds are short?", pattern: literally(errFunds), wrong: besides(fundsErrors, errFunds), source: "said once", key: "spec.errFunds" },
      { name: "the currency", question: "Which currency does the report header show?", pattern: literally(currency), wrong: besides(currencies, currency), source: "said once", key: "spec.currency" }
    ]
  },
  solver: {
    learn: (text, facts, made) => {
      if (text.includes("We are adding src/ledger.js, in three stages")) {
        facts.set("spec.goal", "src/ledger.js in three stages")
        facts.set("spec.stage", facts.get("spec.stage") ?? "1")
      }
      const errAmount = /any other amount throws LedgerError with the message "([^"]+)"/.exec(text)
      if (errAmount !== null) facts.set("spec.errAmount", errAmount[1]!)
      const errFunds = /it throws LedgerError\("([^"]+)"\)/.exec(text)
      if (errFunds !== null) facts.set("spec.errFunds", errFunds[1]!)
      const currency = /a first line "Report <month> \((\w+)\)"/.exec(text)
      if (currency !== null) facts.set("spec.currency", currency[1]!)
      if (text.includes("account names are case-insensitive")) facts.set("spec.caseInsensitive", "yes")
      if (text.includes("to ledger.history")) facts.set("spec.history", "yes")
      if (text.includes("Which currency will the report header show?")) facts.set("spec.currencyAsked", "yes")
      const stage = /Stage (\d) now:/.exec(text)
      if (stage !== null && made === undefined && Number(stage[1]) > Number(facts.get("spec.stage") ?? "0")) facts.set("spec.stage", stage[1]!)
      if (made?.name === "bash" && made.args.command === "ls src") facts.set("spec.modules", text.split("\n").map((line) => line.trim()).filter((line) => line.endsWith(".js") && line !== "ledger.js").map((line) => `src/${line}`).join(","))
    },
    next: (knowledge): Action => {
      if (!knowledge.facts.has("spec.goal")) return { kind: "reply", steps: [], text: "I do not know the task: please tell me again." }
      const stage = Number(knowledge.facts.get("spec.stage") ?? "1")
      if (knowledge.done.has(`stage:${stage}`)) return reply(knowledge, stage)
      const modules = knowledge.facts.get("spec.modules")
      if (modules === undefined) return { kind: "call", steps: [], calls: [call("bash", { command: "ls src" })] }
      for (const path of ["docs/CONVENTIONS.md", ...modules.split(",")]) {
        if (!knowledge.done.has(`survey${stage}:${path}`)) return { kind: "call", steps: [`survey${stage}:${path}`], calls: [call("read", { path })] }
      }
      return { kind: "call", steps: [`stage:${stage}`], calls: [call("write", { path: "src/ledger.js", content: ledgerSource(stage, knowledge.facts) })] }
    }
  }
}

const reply = (knowledge: Knowledge, stage: number): Action => {
  const currency = knowledge.facts.get("spec.currency")
  const asked = knowledge.facts.has("spec.currencyAsked") && !knowledge.done.has("answer:currency")
  const answer = asked ? ` The report header will show ${currency ?? "a currency I no longer have"}.` : ""
  return { kind: "reply", steps: asked ? ["answer:currency"] : [], text: `Stage ${stage} of src/ledger.js is done.${answer}` }
}
