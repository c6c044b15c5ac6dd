/**
 * The desk: a task family's environment that reveals its facts step by step.
 *
 * The repository holds a script (`scripts/<desk>.mjs`) and one sealed file per
 * step. `open <code>` unseals the next step with the code the previous step
 * printed (the first code is said once by the user), but only once the
 * previous step's change is in place; it prints the step (a long log, so the
 * window fills, with the change to make, a receipt and the next code buried in
 * it among voided and superseded look-alikes), deletes the sealed file and
 * appends to the desk's log. `close <code> <sign-off> <receipts…>` ends the
 * chain: it needs the last code, the user's sign-off and every receipt.
 *
 * Nothing in the repository gives a printed step back: its sealed file is gone
 * and the others cannot be read without the codes. The verifier judges the
 * log the desk wrote (every step opened in order, then a close it accepted)
 * and the repository, so a short cut (a change made without its step, a step
 * skipped, a guessed close) fails instead of being forbidden in prose.
 *
 * A family may span two sessions: the first opens some steps, the user ends
 * the session, and the second (a fresh session in the same project, agent dir
 * and notes root) must finish the chain from what the first kept.
 */
import { createCipheriv, createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { call, type Rng, read, rng, runNode, verdict, writeTree } from "./common.ts"
import { literally } from "./taskTypes.ts"
import type { Action, Knowledge, Task, TaskFact, UserMessageSpec } from "./taskTypes.ts"

/** One line of a file the family's steps change, before and after. */
export interface DeskChange {
  readonly before: string
  readonly after: string
}

export interface DeskFamily {
  readonly name: string
  readonly kind: string
  /** The script's name under scripts/ (without .mjs) and the word the user calls it by. */
  readonly desk: string
  /** The file the steps change, and its lines (the changed ones among them). */
  readonly file: string
  readonly lines: (random: Rng) => ReadonlyArray<string>
  /** Step `index`'s change: a line of `lines` and what it becomes. */
  readonly change: (random: Rng, lines: ReadonlyArray<string>, index: number) => DeskChange
  /** One line of the log a step prints around its facts. */
  readonly noise: (random: Rng) => string
  readonly steps: number
  /** Lines of log around each step's facts: how much of the window one step fills. */
  readonly noiseLines: number
  /** Two sessions: the first opens this many steps, the second finishes. */
  readonly handover?: { readonly afterSteps: number; readonly home: "@project" | "@user" }
  readonly salt: number
}

const words = ["amber", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kestrel", "lumen", "marble", "nectar", "onyx", "pylon", "quartz", "raven", "sierra", "tundra"]

const code = (random: Rng) => `${random.pick(words)}-${random.int(100, 999)}`
const receipt = (random: Rng, prefix: string) => `${prefix}-${random.int(10_000, 99_999)}`

interface Step {
  readonly change: DeskChange
  readonly receipt: string
  /** The voided receipt printed beside it: a probe answer that gives it is wrong. */
  readonly voided: string
  readonly next: string
  readonly text: string
}

export interface DeskPlan {
  readonly start: string
  readonly signoff: string
  readonly lines: ReadonlyArray<string>
  readonly steps: ReadonlyArray<Step>
}

const prefixOf = (family: DeskFamily) => family.desk.slice(0, 3).toUpperCase()

/** Everything a seed decides: the codes, receipts, changes and the printed text of each step. */
export const deskPlan = (family: DeskFamily, seed: number): DeskPlan => {
  const random = rng(seed * 7919 + family.salt)
  const lines = family.lines(random)
  const start = code(random)
  const signoff = `${random.pick(["AK", "BM", "CR", "DL", "EV", "FT"])}${random.int(10, 99)}`
  const steps: Array<Step> = []
  for (let index = 0; index < family.steps; index++) {
    const change = family.change(random, lines, index)
    const own = { receipt: receipt(random, prefixOf(family)), next: code(random) }
    const decoys = { receipt: receipt(random, prefixOf(family)), next: code(random) }
    const facts = [
      `CHANGE ${index + 1}: in ${family.file}, replace the line "${change.before}" with "${change.after}".`,
      `voided receipt (do not use): ${decoys.receipt}`,
      `RECEIPT ${index + 1}: ${own.receipt}`,
      `superseded next code (no longer valid): ${decoys.next}`,
      `NEXT CODE: ${own.next}`
    ]
    const log = Array.from({ length: family.noiseLines }, () => family.noise(random))
    facts.forEach((fact, at) => log.splice(Math.floor(((at + 1) * log.length) / (facts.length + 1)) + at, 0, fact))
    steps.push({ change, ...own, voided: decoys.receipt, text: [`=== ${family.desk} desk: step ${index + 1} of ${family.steps} ===`, ...log, `=== end of step ${index + 1} ===`].join("\n") })
  }
  return { start, signoff, lines, steps }
}

const keyOf = (family: DeskFamily, code: string) => createHash("sha256").update(`${family.name}:${code}`).digest()
const sha = (text: string) => createHash("sha256").update(text).digest("hex")

/** Sealed with the code that opens it; the IV comes from the seed, so the same seed writes the same bytes. */
const seal = (family: DeskFamily, code: string, ivText: string, value: unknown): string => {
  const iv = createHash("sha256").update(ivText).digest().subarray(0, 12)
  const cipher = createCipheriv("aes-256-gcm", keyOf(family, code), iv)
  const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64") + "\n"
}

export const deskDir = ".desk"
export const deskScript = (family: DeskFamily) => `scripts/${family.desk}.mjs`
export const openCommand = (family: DeskFamily, code: string) => `node ${deskScript(family)} open ${code}`
export const closeCommand = (family: DeskFamily, code: string, signoff: string, receipts: ReadonlyArray<string>) =>
  `node ${deskScript(family)} close ${code} ${signoff} ${receipts.join(" ")}`

const script = (family: DeskFamily) => `// The ${family.desk} desk: \`open <code>\` prints the next step once; \`close <code> <sign-off> <receipts...>\` ends the chain.
import { createDecipheriv, createHash } from "node:crypto"
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs"
const dir = ${JSON.stringify(deskDir)}
const [verb, ...args] = process.argv.slice(2)
const log = (line) => appendFileSync(dir + "/log", line + "\\n")
const sha = (text) => createHash("sha256").update(text).digest("hex")
const unseal = (file, code) => {
  try {
    const raw = Buffer.from(readFileSync(file, "utf8"), "base64")
    const key = createHash("sha256").update(${JSON.stringify(family.name)} + ":" + code).digest()
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12))
    decipher.setAuthTag(raw.subarray(12, 28))
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8"))
  } catch {
    return undefined
  }
}
const changed = (check) => check === undefined || (existsSync(check.path) && readFileSync(check.path, "utf8").split("\\n").some((line) => sha(line.trim()) === check.line))
const refuse = (line, why) => {
  log(line)
  console.error(why)
  process.exit(1)
}
const pending = readdirSync(dir).filter((file) => /^step-\\d+\\.sealed$/.test(file)).sort()
if (verb === "open") {
  const file = pending[0]
  if (file === undefined) refuse("refused open: none left", "every step was opened already: close the chain")
  const step = Number(/\\d+/.exec(file)[0])
  const sealed = unseal(dir + "/" + file, args[0] ?? "")
  if (sealed === undefined) refuse("refused open " + step + ": wrong code", "step " + step + " stays sealed: that is not the code it needs")
  if (!changed(sealed.check)) refuse("refused open " + step + ": step " + (step - 1) + " not done", "step " + step + " stays sealed: the change step " + (step - 1) + " asked for is not in place")
  rmSync(dir + "/" + file)
  log("open " + step)
  console.log(sealed.text)
} else if (verb === "close") {
  if (pending.length > 0) refuse("refused close: steps left", "the chain cannot close: " + pending.length + " steps are still sealed")
  const sealed = unseal(dir + "/close.sealed", args[0] ?? "")
  if (sealed === undefined) refuse("refused close: wrong code", "the chain cannot close: that is not the last step's code")
  if (!changed(sealed.check)) refuse("refused close: last step not done", "the chain cannot close: the last step's change is not in place")
  if (sha(args.slice(1).join(" ")) !== sealed.closing) refuse("refused close: wrong sign-off or receipts", "the chain cannot close: the sign-off or a receipt is wrong or out of order")
  rmSync(dir + "/close.sealed")
  log("close ok")
  console.log("chain closed: every step is recorded")
} else {
  console.error("usage: node ${deskScript(family)} open <code> | close <code> <sign-off> <receipts...>")
  process.exit(2)
}
`

const checkOf = (family: DeskFamily, change: DeskChange | undefined) => (change === undefined ? undefined : { path: family.file, line: sha(change.after.trim()) })

const files = (family: DeskFamily, seed: number): Record<string, string> => {
  const plan = deskPlan(family, seed)
  const tree: Record<string, string> = {
    "package.json": `{ "name": "${family.name}", "type": "module", "private": true }\n`,
    [deskScript(family)]: script(family),
    [family.file]: `${plan.lines.join("\n")}\n`,
    [`${deskDir}/log`]: ""
  }
  const codes = [plan.start, ...plan.steps.map((step) => step.next)]
  plan.steps.forEach((step, index) => {
    tree[`${deskDir}/step-${String(index + 1).padStart(2, "0")}.sealed`] = seal(family, codes[index]!, `${family.name}:${seed}:${index}`, { text: step.text, check: checkOf(family, plan.steps[index - 1]?.change) })
  })
  tree[`${deskDir}/close.sealed`] = seal(family, codes.at(-1)!, `${family.name}:${seed}:close`, {
    check: checkOf(family, plan.steps.at(-1)?.change),
    closing: sha([plan.signoff, ...plan.steps.map((step) => step.receipt)].join(" "))
  })
  return tree
}

const startText = (family: DeskFamily, plan: DeskPlan) => {
  const session = family.handover === undefined ? "" : ` We will do the first ${family.handover.afterSteps} steps today and finish in a later session.`
  const signoff = family.handover?.home === "@user"
    ? `My personal sign-off is ${plan.signoff}: I use it in every project, so keep it wherever you keep what you know about me.`
    : `The sign-off for closing is ${plan.signoff}.`
  return `Work through the ${family.desk} desk: run \`node ${deskScript(family)} open ${plan.start}\` to get step 1. ` +
    `Each step names one change to make in ${family.file}, a receipt and the code that opens the next step; a step opens only once the previous change is in place. ` +
    `${signoff} When every step is done, close the chain with \`node ${deskScript(family)} close <last code> <sign-off> <receipt 1> <receipt 2> ...\` (receipts in step order) and tell me the receipts.${session}`
}

const questionText = "Quick question while you work: which receipt did step 1 give? Answer me, then carry on."
const stopText = "We stop here for today. The next session starts fresh, without this conversation: keep what you will need to finish the chain."
const resumeText = (family: DeskFamily) => `Let us finish the ${family.desk} desk chain we started in the last session: open the remaining steps, make their changes, close the chain and tell me the receipts.`

const messages = (family: DeskFamily, seed: number): ReadonlyArray<UserMessageSpec> => {
  const plan = deskPlan(family, seed)
  const receipts = new RegExp(plan.steps.map((step) => step.receipt).join("[\\s\\S]*"))
  const start: UserMessageSpec = { id: "start", when: "start", text: startText(family, plan), ...(family.handover === undefined ? { answer: receipts, mustAnswer: true } : {}) }
  // Steered in once step 4 is open (its open is the seventh call of Pi's tools): step 1's receipt is three long logs back by then.
  const question: UserMessageSpec = { id: "receipt", when: "progress", afterWorkCalls: 7, text: questionText, answer: literally(plan.steps[0]!.receipt), mustAnswer: true }
  if (family.handover === undefined) return [start, question]
  return [start, question, { id: "stop", when: "idle", text: stopText }, { id: "resume", when: "start", session: 2, text: resumeText(family), answer: receipts, mustAnswer: true }]
}

/** What the desk's log shows: the failures of a run that skipped, reordered or guessed. */
export const deskLogFailures = (family: DeskFamily, dir: string): ReadonlyArray<string> => {
  const log = (read(dir, `${deskDir}/log`) ?? "").split("\n").filter((line) => line !== "" && !line.startsWith("refused"))
  const expected = [...Array.from({ length: family.steps }, (_, index) => `open ${index + 1}`), "close ok"]
  if (log.join("|") === expected.join("|")) return []
  const missing = expected.filter((line) => !log.includes(line))
  return [`the desk's log is "${log.join(", ") || "empty"}", not every step opened in order then a close (${missing.length === 0 ? "out of order" : `missing: ${missing.join(", ")}`})`]
}

const verify = (family: DeskFamily) => (dir: string, seed: number) => {
  const plan = deskPlan(family, seed)
  const failures = [...deskLogFailures(family, dir)]
  const text = read(dir, family.file) ?? ""
  const lines = text.split("\n").map((line) => line.trim())
  plan.steps.forEach((step, index) => {
    if (!lines.includes(step.change.after.trim())) failures.push(`${family.file} lacks step ${index + 1}'s line "${step.change.after}"`)
  })
  const untouched = plan.lines.filter((line) => !plan.steps.some((step) => step.change.before === line))
  for (const line of untouched) if (!lines.includes(line.trim())) failures.push(`${family.file} lost the line "${line}", which no step changes`)
  // The desk deletes what it unsealed: a sealed file left behind was never opened by it, whatever the log says.
  const sealed = existsSync(join(dir, deskDir)) ? readdirSync(join(dir, deskDir)).filter((name) => name.endsWith(".sealed")) : []
  if (sealed.length > 0) failures.push(`the chain was never closed: ${sealed.join(", ")} still sealed`)
  return verdict(failures)
}

/** The reference solution: the desk's own commands, in order, as a careful agent runs them. */
const solve = (family: DeskFamily) => (dir: string, seed: number) => {
  const plan = deskPlan(family, seed)
  const codes = [plan.start, ...plan.steps.map((step) => step.next)]
  plan.steps.forEach((step, index) => {
    runNode(dir, [deskScript(family), "open", codes[index]!])
    const path = join(dir, family.file)
    writeTree(dir, { [family.file]: readFileSync(path, "utf8").split("\n").map((line) => (line === step.change.before ? step.change.after : line)).join("\n") })
  })
  runNode(dir, [deskScript(family), "close", codes.at(-1)!, plan.signoff, ...plan.steps.map((step) => step.receipt)])
}

const facts = (family: DeskFamily) => (seed: number): ReadonlyArray<TaskFact> => {
  const plan = deskPlan(family, seed)
  return [
    { name: "the sign-off", question: "What is the user's sign-off for closing the desk chain?", pattern: literally(plan.signoff), source: "said once", key: "desk.signoff" },
    ...plan.steps.slice(0, 2).map((step, index): TaskFact => ({
      name: `receipt ${index + 1}`,
      question: `Which receipt did step ${index + 1} of the desk give?`,
      pattern: literally(step.receipt),
      wrong: [literally(step.voided)],
      source: "tool output",
      key: `desk.receipt${index + 1}`
    }))
  ]
}

/** The scripted agent's way through a desk: open, change, open, … close; its facts in `desk.*`. */
const learn = (family: DeskFamily) => (text: string, known: Map<string, string>, made?: { readonly name: string; readonly args: Record<string, unknown> }) => {
  if (made === undefined) {
    if (text.includes(`Work through the ${family.desk} desk`)) known.set("desk.goal", `work through the ${family.desk} desk, then close it`)
    const start = new RegExp(`${deskScript(family).replace(/[.]/g, "\\.")} open (\\S+)\``).exec(text)
    if (start !== null) known.set("desk.code0", start[1]!)
    const signoff = /(?:sign-off for closing is|My personal sign-off is) (\w+)/.exec(text)
    if (signoff !== null) known.set("desk.signoff", signoff[1]!)
    if (text.includes(stopText)) known.set("desk.stop", "asked")
    if (text.includes(questionText)) known.set("desk.asked", "yes")
    if (text.includes(`Let us finish the ${family.desk} desk chain`)) {
      known.set("desk.goal", `finish the ${family.desk} desk chain, then close it`)
      known.delete("desk.stop")
      known.set("desk.resumed", "yes")
    }
    return
  }
  if (made.name !== "bash" || typeof made.args.command !== "string" || !made.args.command.startsWith(`node ${deskScript(family)} open `)) {
    if (made.name === "bash" && typeof made.args.command === "string" && made.args.command.startsWith(`node ${deskScript(family)} close `) && text.includes("chain closed")) known.set("desk.closed", "yes")
    return
  }
  const step = /=== \S+ desk: step (\d+) of \d+ ===/.exec(text)
  if (step === null) return
  const index = step[1]!
  known.set("desk.opened", index)
  const change = /^CHANGE \d+: in \S+, replace the line "(.*)" with "(.*)"\.$/m.exec(text)
  if (change !== null) known.set(`desk.change${index}`, JSON.stringify([change[1], change[2]]))
  const own = /^RECEIPT \d+: (\S+)$/m.exec(text)
  if (own !== null) known.set(`desk.receipt${index}`, own[1]!)
  const next = /^NEXT CODE: (\S+)$/m.exec(text)
  if (next !== null) known.set(`desk.code${index}`, next[1]!)
}

const handoverCalls = (family: DeskFamily, knowledge: Knowledge) => {
  const home = family.handover?.home ?? "@project"
  const state = [...knowledge.facts].filter(([key]) => key.startsWith("desk.") && !["desk.stop", "desk.goal"].includes(key))
  const lines = (keys: (key: string) => boolean) => state.filter(([key]) => keys(key)).map(([key, value]) => `- fact ${key} = ${JSON.stringify(value)}`)
  const project = ["# Desk handover", `The ${family.desk} desk chain, as far as the last session got.`, ...lines((key) => home === "@project" || key !== "desk.signoff"), `- done ${[...knowledge.done].filter((step) => step.startsWith("desk:")).join(" ")}`, ""].join("\n")
  return [
    call("notes_write", { address: "@project/handover", content: project }),
    call("notes_write", { address: "@project/MAP", content: "# Project notes\n- handover: where the desk chain stopped (codes, receipts, steps done); read it to resume.\n" }),
    ...(home === "@user"
      ? [call("notes_write", { address: "@user/preferences", content: `# Preferences\n${lines((key) => key === "desk.signoff").join("\n")}\n` }),
        call("notes_write", { address: "@user/MAP", content: "# User notes\n- preferences: the user's sign-off.\n" })]
      : [])
  ]
}

/** The work's next action, with the answer to the user's question first while it is unanswered. */
const next = (family: DeskFamily) => (knowledge: Knowledge): Action => {
  const work = nextWork(family)(knowledge)
  if (!knowledge.facts.has("desk.asked") || knowledge.done.has("desk:answer")) return work
  const answer = `To your question: step 1 gave the receipt ${knowledge.facts.get("desk.receipt1") ?? "(I no longer have it)"}.`
  return work.kind === "reply"
    ? { kind: "reply", steps: ["desk:answer", ...work.steps], text: `${answer}\n${work.text}` }
    : { ...work, steps: ["desk:answer", ...work.steps], say: answer }
}

const nextWork = (family: DeskFamily) => (knowledge: Knowledge): Action => {
  const known = knowledge.facts
  if (!known.has("desk.goal")) return { kind: "reply", steps: [], text: "I do not know the task: please tell me again." }
  // A new session after a handover: what the notes kept, read back before anything else.
  if (known.has("desk.resumed") && !(known.has("desk.code0") && known.has("desk.signoff")) && knowledge.tools.includes("notes_read")) {
    const read = (address: string) => knowledge.results.some((result) => result.tool === "notes_read" && result.args.address === address)
    for (const address of ["@project/handover", ...(family.handover?.home === "@user" ? ["@user/preferences"] : [])]) {
      if (!read(address)) return { kind: "call", steps: [], calls: [call("notes_read", { address })] }
    }
  }
  if (known.has("desk.stop")) {
    if (knowledge.done.has("desk:handover") || !knowledge.tools.includes("notes_write")) return { kind: "reply", steps: [], text: "Stopped for today." }
    return { kind: "call", steps: ["desk:handover"], calls: handoverCalls(family, knowledge), say: "Keeping what the next session needs." }
  }
  const opened = Number(known.get("desk.opened") ?? "0")
  const receipts = Array.from({ length: opened }, (_, index) => known.get(`desk.receipt${index + 1}`))
  if (known.has("desk.closed")) return { kind: "reply", steps: [], text: `The chain is closed. The receipts, in step order: ${receipts.join(", ")}.` }
  if (opened > 0 && !knowledge.done.has(`desk:change${opened}`)) {
    const change = known.get(`desk.change${opened}`)
    if (change === undefined) return blocked(`the change step ${opened} asked for`)
    const [before, after] = JSON.parse(change) as [string, string]
    return { kind: "call", steps: [`desk:change${opened}`], calls: [call("edit", { path: family.file, edits: [{ oldText: before, newText: after }] })] }
  }
  const code = known.get(`desk.code${opened}`)
  if (code === undefined) return blocked(opened === 0 ? "the code that opens step 1" : `the code step ${opened} printed`)
  const handoverAt = family.handover?.afterSteps
  if (handoverAt !== undefined && opened >= handoverAt && !known.has("desk.resumed")) return { kind: "reply", steps: [], text: `Steps 1 to ${opened} are done; I will wait for the next session.` }
  if (opened < family.steps) return { kind: "call", steps: [], calls: [call("bash", { command: openCommand(family, code) })] }
  const signoff = known.get("desk.signoff")
  if (signoff === undefined || receipts.some((receipt) => receipt === undefined)) return blocked("the sign-off or a receipt")
  const command = closeCommand(family, code, signoff, receipts as ReadonlyArray<string>)
  if (knowledge.results.some((result) => result.tool === "bash" && result.args.command === command)) return blocked("a close the desk accepts")
  return { kind: "call", steps: [], calls: [call("bash", { command })] }
}

const blocked = (what: string): Action => ({ kind: "reply", steps: [], text: `I am blocked: I no longer have ${what}, and nothing in the repository gives it back.` })

export const deskTask = (family: DeskFamily): Task => ({
  name: family.name,
  kind: family.kind,
  ...(family.handover === undefined ? {} : { sessions: 2 }),
  generate: (dir, seed) => writeTree(dir, files(family, seed)),
  messages: (seed) => messages(family, seed),
  verify: verify(family),
  solve: solve(family),
  facts: facts(family),
  solver: { learn: learn(family), next: next(family) }
})

/** A desk's log line: a time, a source and an event from the family's own vocabulary (about 90 characters). */
export const logLine = (tag: string, sources: ReadonlyArray<string>, events: ReadonlyArray<string>) => (random: Rng): string => {
  const time = [random.int(0, 23), random.int(0, 59), random.int(0, 59)].map((part) => String(part).padStart(2, "0")).join(":")
  return `[${tag} ${time}] ${random.pick(sources)}-${random.int(1, 9)}: ${random.pick(events)} (id ${random.int(100_000, 999_999)}, ${random.int(2, 900)} ms, queue ${random.int(0, 64)})`
}

/** Line `index`'s turn among `count` lines: distinct for every step, so no line is changed twice. */
export const lineFor = (index: number, count: number): number => (index * 5 + 3) % count

/** `count` lines `make(n)` for n = 1…count, numbered two digits wide so no line's text is inside another's. */
export const numbered = (count: number, make: (n: string) => string): ReadonlyArray<string> =>
  Array.from({ length: count }, (_, index) => make(String(index + 1).padStart(2, "0")))
