/**
 * Chained requests: four changes asked one at a time in one session, each
 * with a ticket number said only in the conversation, one value found only in
 * a command's one-time output, and a last request that needs every ticket.
 * Each change asks for a survey of the modules first, so the window turns
 * over several times before the last request: what it needs is nowhere in
 * the repository to be found again.
 */
import { call, fillerFunction, listFact, moduleNames, read, rng, verdict, writeTree } from "../common.ts"
import { literally } from "../taskTypes.ts"
import type { Action, Knowledge, Task } from "../taskTypes.ts"

const base = { rateLimit: 100, tenantHeader: "X-Tenant", retentionDays: 30, region: "eu-west" }

const setup = (seed: number) => {
  const random = rng(seed * 37 + 3)
  const ticket = () => `OPS-${random.int(1000, 9999)}`
  return {
    random,
    modules: moduleNames(random, 22),
    rateLimit: random.int(20, 90),
    tenantHeader: `X-${random.pick(["Org", "Account", "Workspace", "Team"])}-${random.int(10, 99)}`,
    codeName: `${random.pick(["amber", "cobalt", "juniper", "saffron", "tundra"])}-${random.pick(["falcon", "otter", "heron", "lynx", "marten"])}`,
    tickets: [ticket(), ticket(), ticket()] as const
  }
}

const codenameScript = `// Prints this release's code name, once: it is issued, not stored.
import { existsSync, readFileSync, rmSync } from "node:fs"
const file = ".release/codename"
if (!existsSync(file)) {
  console.error("the code name was already issued; it is printed only once")
  process.exit(1)
}
console.log("release code name: " + readFileSync(file, "utf8").trim())
rmSync(file)
`

const files = (seed: number): Record<string, string> => {
  const { random, modules, codeName } = setup(seed)
  const tree: Record<string, string> = {
    "package.json": '{ "name": "gateway", "type": "module", "private": true }\n',
    "config/service.json": `${JSON.stringify(base, null, 2)}\n`,
    "scripts/codename.mjs": codenameScript,
    ".release/codename": `${codeName}\n`
  }
  for (const name of modules) tree[`src/${name}.js`] = `// ${name}.js\n\n${Array.from({ length: 10 }, (_, index) => fillerFunction(random, `${name}Step${index + 1}`)).join("\n")}`
  return tree
}

const requests = (seed: number) => {
  const { rateLimit, tenantHeader, tickets } = setup(seed)
  return [
    "We will make a few changes to this gateway, one at a time; I will ask for each. Before each change, read every module in src/ so it fits in. " +
    `Change 1 (ticket ${tickets[0]}): set rateLimit in config/service.json to ${rateLimit}.`,
    `Change 2 (ticket ${tickets[1]}): the tenant header is now ${tenantHeader}; set tenantHeader in config/service.json. Read the modules first, as before.`,
    `Change 3 (ticket ${tickets[2]}): run \`node scripts/codename.mjs\` once (it prints this release's code name only once) and set codeName in config/service.json to it. Read the modules first, as before.`,
    "Last: write CHANGES.md with one line per change you made in this session: its ticket number, the setting and its new value."
  ]
}

export const chainedRequests: Task = {
  name: "chained-requests",
  kind: "chained requests whose tickets and findings come only in conversation",
  generate: (dir, seed) => writeTree(dir, files(seed)),
  messages: (seed) => {
    const [first, ...rest] = requests(seed)
    return [
      { id: "change1", when: "start", text: first! },
      ...rest.map((text, index) => ({ id: index === rest.length - 1 ? "changes" : `change${index + 2}`, when: "idle" as const, text })),
      { id: "ticket", when: "progress", afterWorkCalls: 40, text: "Quick question while you work: which ticket was the rate limit change for? Answer me, then carry on.", answer: literally(setup(seed).tickets[0]), mustAnswer: true }
    ]
  },
  verify: (dir, seed) => {
    const { rateLimit, tenantHeader, codeName, tickets } = setup(seed)
    const failures: Array<string> = []
    let config: Record<string, unknown> = {}
    try {
      config = JSON.parse(read(dir, "config/service.json") ?? "{}") as Record<string, unknown>
    } catch {
      failures.push("config/service.json is no JSON")
    }
    const expected: Record<string, unknown> = { ...base, rateLimit, tenantHeader, codeName }
    for (const [key, value] of Object.entries(expected)) if (config[key] !== value) failures.push(`config/service.json: ${key} is ${JSON.stringify(config[key])}, not ${JSON.stringify(value)}`)
    const changes = read(dir, "CHANGES.md") ?? ""
    if (changes === "") failures.push("CHANGES.md is missing")
    else {
      const lines = changes.split("\n")
      ;[[tickets[0], String(rateLimit)], [tickets[1], tenantHeader], [tickets[2], codeName]].forEach(([ticket, value]) => {
        if (!lines.some((line) => line.includes(ticket!) && line.includes(value!))) failures.push(`CHANGES.md has no line with ${ticket} and ${value}`)
      })
    }
    return verdict(failures)
  },
  solve: (dir, seed) => {
    const { rateLimit, tenantHeader, codeName, tickets } = setup(seed)
    writeTree(dir, {
      "config/service.json": `${JSON.stringify({ ...base, rateLimit, tenantHeader, codeName }, null, 2)}\n`,
      "CHANGES.md": `- ${tickets[0]}: rateLimit = ${rateLimit}\n- ${tickets[1]}: tenantHeader = ${tenantHeader}\n- ${tickets[2]}: codeName = ${codeName}\n`
    })
  },
  facts: (seed) => {
    const { tickets, tenantHeader, rateLimit } = setup(seed)
    const besides = (ticket: string) => tickets.filter((other) => other !== ticket).map((other) => literally(other))
    return [
      { name: "the first ticket", question: "Which ticket was the rate limit change (change 1) for?", pattern: literally(tickets[0]), wrong: besides(tickets[0]), source: "said once", key: "chain.ticket1" },
      { name: "the second ticket", question: "Which ticket was the tenant header change (change 2) for?", pattern: literally(tickets[1]), wrong: besides(tickets[1]), source: "said once", key: "chain.ticket2" },
      // The config's own values are the ones the user's changes replace.
      { name: "the new tenant header", question: "What is the tenant header now?", pattern: literally(tenantHeader), wrong: [literally(base.tenantHeader)], source: "said once", key: "chain.value2" },
      { name: "the new rate limit", question: "What is the rate limit now?", pattern: new RegExp(`(?<!\\d)${rateLimit}(?!\\d)`), revealedBy: /set rateLimit in config\/service\.json to \d+/, wrong: [new RegExp(`(?<!\\d)${base.rateLimit}(?!\\d)`)], source: "said once", key: "chain.value1" }
    ]
  },
  solver: {
    learn: (text, facts, made) => {
      if (text.includes("We will make a few changes to this gateway")) facts.set("chain.goal", "changes to config/service.json, one at a time, tickets in CHANGES.md")
      for (const match of text.matchAll(/Change (\d) \(ticket (OPS-\d+)\)/g)) {
        if (made !== undefined) continue
        facts.set(`chain.ticket${match[1]}`, match[2]!)
        if (Number(match[1]) > Number(facts.get("chain.current") ?? "0")) facts.set("chain.current", match[1]!)
      }
      const rate = /set rateLimit in config\/service\.json to (\d+)/.exec(text)
      if (rate !== null && made === undefined) facts.set("chain.value1", rate[1]!)
      const header = /the tenant header is now (\S+);/.exec(text)
      if (header !== null && made === undefined) facts.set("chain.value2", header[1]!)
      const name = /release code name: (\S+)/.exec(text)
      if (name !== null) facts.set("chain.value3", name[1]!)
      if (made === undefined && text.includes("Last: write CHANGES.md")) facts.set("chain.final", "yes")
      if (made === undefined && text.includes("which ticket was the rate limit change for?")) facts.set("chain.asked", "yes")
      if (made?.name === "bash" && made.args.command === "ls src") facts.set("chain.modules", text.split("\n").map((line) => line.trim()).filter((line) => line.endsWith(".js")).map((line) => `src/${line}`).join(","))
    },
    next: (knowledge): Action => {
      const work = chainNext(knowledge)
      if (!knowledge.facts.has("chain.asked") || knowledge.done.has("answer:ticket")) return work
      const answer = `To your question: the rate limit change was ticket ${knowledge.facts.get("chain.ticket1") ?? "(I no longer have it)"}.`
      return work.kind === "reply"
        ? { kind: "reply", steps: ["answer:ticket", ...work.steps], text: `${answer}\n${work.text}` }
        : { ...work, steps: ["answer:ticket", ...work.steps], say: answer }
    }
  }
}

const settingOf = ["", "rateLimit", "tenantHeader", "codeName"] as const

const chainNext = (knowledge: Knowledge): Action => {
  const facts = knowledge.facts
  if (!facts.has("chain.goal")) return { kind: "reply", steps: [], text: "I do not know the task: please tell me again." }
  const current = Number(facts.get("chain.current") ?? "1")
  if (facts.has("chain.final") && knowledge.done.has(`apply:${current}`)) {
    if (knowledge.done.has("changes")) return { kind: "reply", steps: [], text: "CHANGES.md lists every change of this session." }
    const lines = [1, 2, 3].filter((n) => knowledge.done.has(`apply:${n}`))
      .map((n) => `- ${facts.get(`chain.ticket${n}`) ?? "(ticket unknown)"}: ${settingOf[n]} = ${facts.get(`chain.value${n}`) ?? "(value unknown)"}`)
    return { kind: "call", steps: ["changes"], calls: [call("write", { path: "CHANGES.md", content: `${lines.join("\n")}\n` })] }
  }
  if (knowledge.done.has(`apply:${current}`)) return { kind: "reply", steps: [], text: `Change ${current} is done.` }
  const modules = listFact(knowledge, "chain.modules")
  if (modules === undefined) return { kind: "call", steps: [], calls: [call("bash", { command: "ls src" })] }
  for (const path of modules) {
    if (!knowledge.done.has(`survey${current}:${path}`)) return { kind: "call", steps: [`survey${current}:${path}`], calls: [call("read", { path })] }
  }
  if (current === 3 && !facts.has("chain.value3")) return { kind: "call", steps: [], calls: [call("bash", { command: "node scripts/codename.mjs" })] }
  // The config as it is now: a read older than this session's last write of it is stale.
  const lastWrite = knowledge.results.findLastIndex((result) => (result.tool === "write" || result.tool === "edit") && result.args.path === "config/service.json")
  const lastRead = knowledge.results.findLastIndex((result) => result.tool === "read" && result.args.path === "config/service.json" && !result.isError)
  const config = lastRead > lastWrite ? knowledge.results[lastRead]!.text : undefined
  if (config === undefined) return { kind: "call", steps: [], calls: [call("read", { path: "config/service.json" })] }
  let parsed: Record<string, unknown>
  try {
    parsed = JSON.parse(config) as Record<string, unknown>
  } catch {
    return { kind: "call", steps: [], calls: [call("read", { path: "config/service.json" })] }
  }
  const value = facts.get(`chain.value${current}`)
  parsed[settingOf[current]!] = current === 1 ? Number(value) : value
  return { kind: "call", steps: [`apply:${current}`], calls: [call("write", { path: "config/service.json", content: `${JSON.stringify(parsed, null, 2)}\n` })] }
}
