/** A bug whose clue appears early in a long log: one config warning near the top, the failure at the very end. */
import { call, latestRead, read, rng, runNode, verdict, writeTree } from "../common.ts"
import { literally } from "../taskTypes.ts"
import type { Action, Knowledge, Task } from "../taskTypes.ts"

const keys = ["retry_limit", "batch_size", "pool_size", "timeout_ms", "max_rows", "flush_every", "page_size", "shard_count", "queue_depth", "backoff_ms", "worker_count", "lease_ms"]
const pageSize = 200

const setup = (seed: number) => {
  const random = rng(seed * 29 + 1)
  const key = keys[seed % keys.length]!
  const value = random.int(2, 9)
  const bad = `${value}${random.pick(["x", " times", "s", "!"])}`
  const job = `export-${random.pick(["orders", "ledger", "metrics", "billing"])}`
  const lines = 3_800 + random.int(0, 200)
  const clueAt = 24 + random.int(0, 10)
  return { random, key, value, bad, job, lines, clueAt }
}

const config = (seed: number, fixed: boolean): string => {
  const { key, value, bad } = setup(seed)
  return keys.map((name, index) => `${name} = ${name === key ? (fixed ? String(value) : bad) : String(10 + index * 7)}`).join("\n") + "\n"
}

const log = (seed: number): string => {
  const { random, key, bad, job, lines, clueAt } = setup(seed)
  const out: Array<string> = []
  for (let index = 1; index <= lines; index++) {
    const time = `2026-11-30T01:${String(Math.floor(index / 60) % 60).padStart(2, "0")}:${String(index % 60).padStart(2, "0")}.${String(index % 1000).padStart(3, "0")}Z`
    if (index === clueAt) out.push(`${time} WARN  config   "${key}" = "${bad}" is not a number; using 0`)
    else if (index === lines) out.push(`${time} ERROR ${job} failed after 0 retries: upstream closed the connection`)
    else out.push(`${time} INFO  worker-${random.int(1, 8)} processed batch ${random.int(10_000, 99_999)} in ${random.int(5, 900)} ms (${random.int(1, 5_000)} rows)`)
  }
  return out.join("\n") + "\n"
}

const checkScript = `// node src/job.mjs --check: says whether config/app.ini is valid.
import { readFileSync } from "node:fs"
const values = readFileSync("config/app.ini", "utf8").split("\\n").filter((line) => line.includes("=")).map((line) => line.split("=")[1].trim())
if (values.every((value) => /^\\d+$/.test(value))) console.log("config ok")
else {
  console.error("config invalid")
  process.exit(1)
}
`

export const logClue: Task = {
  name: "log-clue",
  kind: "a bug whose clue appears early in a long log",
  generate: (dir, seed) => writeTree(dir, { "logs/nightly.log": log(seed), "config/app.ini": config(seed, false), "src/job.mjs": checkScript, "package.json": '{ "name": "nightly", "type": "module", "private": true }\n' }),
  messages: (seed) => [
    {
      id: "diagnose",
      when: "start",
      text: `The nightly job fails: the end of logs/nightly.log shows it. Read the log from the beginning in pages of ${pageSize} lines (it is long; do not grep it), ` +
        "find the root cause, fix config/app.ini, and tell me which setting was wrong. `node src/job.mjs --check` must print `config ok` afterwards."
    },
    { id: "job", when: "progress", afterWorkCalls: 8, text: "Also tell me the name of the job that failed, when you report back.", answer: new RegExp(setup(seed).job), mustAnswer: true }
  ],
  verify: (dir, seed) => {
    const failures: Array<string> = []
    // The setting fixed to a whole number, however the model read its bad value ("9s" as 9 or as 9000 ms); every other one as it was.
    const { key } = setup(seed)
    const settings = (text: string) => new Map(text.split("\n").filter((line) => line.includes("=")).map((line) => [line.split("=")[0]!.trim(), line.slice(line.indexOf("=") + 1).trim()] as const))
    const now = settings(read(dir, "config/app.ini") ?? "")
    const before = settings(config(seed, false))
    const changed = [...before.keys()].filter((name) => name !== key && now.get(name) !== before.get(name))
    if (changed.length > 0) failures.push(`config/app.ini changed ${changed.join(", ")}, which were right`)
    if (!/^[1-9]\d*$/.test(now.get(key) ?? "")) failures.push(`${key} in config/app.ini is not fixed to a whole number (${now.get(key) ?? "missing"})`)
    if (now.size !== before.size) failures.push("config/app.ini gained or lost settings")
    if (read(dir, "logs/nightly.log") !== log(seed)) failures.push("the log was changed")
    const check = runNode(dir, ["src/job.mjs", "--check"])
    if (!check.ok) failures.push("node src/job.mjs --check fails")
    return verdict(failures)
  },
  solve: (dir, seed) => writeTree(dir, { "config/app.ini": config(seed, true) }),
  facts: (seed) => {
    const { key, bad } = setup(seed)
    // The config's other settings are there to be mistaken for it.
    return [
      { name: "the wrong setting", question: "Which setting in config/app.ini does the log show is wrong?", pattern: new RegExp(`\\b${key}\\b`), revealedBy: new RegExp(`"${key}" = "`), wrong: keys.filter((name) => name !== key).map((name) => new RegExp(`\\b${name}\\b`)), source: "tool output", key: "log.clueKey" },
      { name: "its bad value", question: "What bad value does that setting have now?", pattern: literally(bad), source: "tool output", key: "log.clueValue" }
    ]
  },
  solver: {
    learn: (text, facts) => {
      if (text.includes("Read the log from the beginning in pages of")) facts.set("log.goal", "find the cause in logs/nightly.log, fix config/app.ini")
      // How long the log is, from whichever of Pi's read notes this result carries: a paged read says how many
      // lines follow (Pi 1.6), a truncated one how many there are, and a read past the end says so.
      const remaining = /\[(\d+) more lines in file\. Use offset=(\d+) to continue\.\]/.exec(text)
      if (remaining !== null) facts.set("log.lines", String(Number(remaining[2]) - 1 + Number(remaining[1])))
      const total = /\[Showing lines \d+-\d+ of (\d+)[ .]/.exec(text) ?? /is beyond end of file \((\d+) lines total\)/.exec(text)
      if (total !== null) facts.set("log.lines", total[1]!)
      const clue = /WARN {2}config {3}"(\w+)" = "([^"]*)" is not a number/.exec(text)
      if (clue !== null) {
        facts.set("log.clueKey", clue[1]!)
        facts.set("log.clueValue", clue[2]!)
      }
      const job = /ERROR (\S+) failed after/.exec(text)
      if (job !== null) facts.set("log.job", job[1]!)
      if (text.includes("name of the job that failed")) facts.set("log.jobAsked", "yes")
    },
    next: (knowledge): Action => {
      if (!knowledge.facts.has("log.goal")) return { kind: "reply", steps: [], text: "I do not know the task: please tell me again." }
      const total = Number(knowledge.facts.get("log.lines") ?? Number.POSITIVE_INFINITY)
      for (let offset = 1; offset <= total; offset += pageSize) {
        if (knowledge.done.has(`page:${offset}`)) continue
        // The last page has no "[Showing lines …]" footer: a page shorter than asked ends the log.
        const last = knowledge.results.findLast((result) => result.tool === "read" && result.args.offset === offset - pageSize)
        if (offset > 1 && last !== undefined && !last.text.includes("Use offset=")) break
        return { kind: "call", steps: [`page:${offset}`], calls: [call("read", { path: "logs/nightly.log", offset, limit: pageSize })] }
      }
      return fix(knowledge)
    }
  }
}

const fix = (knowledge: Knowledge): Action => {
  const key = knowledge.facts.get("log.clueKey")
  const bad = knowledge.facts.get("log.clueValue")
  if (key === undefined || bad === undefined) {
    const searched = knowledge.results.some((result) => result.tool === "history_search")
    if (knowledge.tools.includes("history_search") && !searched) return { kind: "call", steps: [], calls: [call("history_search", { query: "not a number" })] }
    return { kind: "reply", steps: [], text: "I am blocked: I read the whole log but no longer have the warning that explains the failure." }
  }
  if (!knowledge.done.has("write:config/app.ini")) {
    const content = latestRead(knowledge, "config/app.ini")
    if (content === undefined) return { kind: "call", steps: [], calls: [call("read", { path: "config/app.ini" })] }
    const fixed = content.replace(`${key} = ${bad}`, `${key} = ${bad.replace(/\D+/g, "")}`)
    return { kind: "call", steps: ["write:config/app.ini"], calls: [call("write", { path: "config/app.ini", content: fixed })] }
  }
  const check = knowledge.results.findLast((result) => result.tool === "bash" && result.args.command === "node src/job.mjs --check")
  if (check === undefined && !knowledge.done.has("check")) return { kind: "call", steps: ["check"], calls: [call("bash", { command: "node src/job.mjs --check" })] }
  if (check?.isError === true) return { kind: "reply", steps: [], text: `I am blocked: the check still fails:\n${check.text.slice(0, 300)}` }
  const job = knowledge.facts.get("log.job")
  const named = knowledge.facts.has("log.jobAsked") && job !== undefined ? ` The job that failed is ${job}.` : ""
  return { kind: "reply", steps: ["done"], text: `The wrong setting was ${key}: "${bad}" is not a number, so it fell back to 0. I set it to ${bad.replace(/\D+/g, "")}; the check prints config ok.${named}` }
}
