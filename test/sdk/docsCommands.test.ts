import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { subcommands } from "../../src/commands/registry.ts"
import { notesSyncUsage } from "../../src/notes/sync/syncCommand.ts"
import { notesVersionsUsage } from "../../src/notes/versions/versionsCommand.ts"
import { createHarness, type Harness, repoRoot } from "../support/sdkHarness.ts"

/**
 * Every `/pi-context` and `/wipe-memory` command the README and docs/ give,
 * run as written in Pi's agent loop (a placeholder replaced by a real value):
 * each answers, and none answers with a usage or "unknown subcommand".
 */
const pages = ["README.md", ...readdirSync(join(repoRoot, "docs")).filter((name) => name.endsWith(".md")).map((name) => join("docs", name))]

/** The commands a page gives: inline code that starts with the command, and the short forms beside it in a table row (`notes boot`). */
const documentedCommands = (text: string): ReadonlyArray<string> =>
  text.split("\n").flatMap((line) => {
    const spans = [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1]!.replaceAll("\\|", "|"))
    const full = spans.filter((span) => /^\/(pi-context|wipe-memory)( |$)/.test(span))
    const inTableRow = line.startsWith("| `/pi-context")
    const short = inTableRow ? spans.filter((span) => /^(notes|report|tidy) /.test(span)).map((span) => `/pi-context ${span}`) : []
    return [...full, ...short]
  })

const placeholders: ReadonlyArray<readonly [RegExp, string]> = [
  [/<address>/g, "plan"],
  [/<commit>/g, "HEAD"],
  [/<(after|before)>/g, "HEAD"],
  [/<@home\|all>/g, "@user"],
  // An optional part is left out.
  [/\[[^\]]*\]/g, ""]
]

/** One runnable command per form: placeholders filled, `a|b|c` alternatives each on their own. */
const runnable = (command: string): ReadonlyArray<string> => {
  const filled = placeholders.reduce((text, [pattern, value]) => text.replace(pattern, value), command).replace(/\s+/g, " ").trim()
  const words = filled.split(" ")
  const choice = words.findIndex((word) => word.includes("|"))
  return choice < 0 ? [filled] : words[choice]!.split("|").flatMap((alternative) => runnable([...words.slice(0, choice), alternative, ...words.slice(choice + 1)].join(" ")))
}

const unknown = [/unknown subcommand/, /unknown argument/]
const usages = [/^pi-context notes: \/pi-context notes \[/, new RegExp(`^${notesVersionsUsage.split("\n")[0]}`), new RegExp(`^${notesSyncUsage.replace(/[()|[\]]/g, "\\$&")}`)]

describe("the commands the README and docs/ give", () => {
  let h: Harness
  const commands = [...new Set(pages.flatMap((page) => documentedCommands(readFileSync(join(repoRoot, page), "utf8"))).flatMap(runnable))]

  beforeAll(async () => {
    h = await createHarness()
    h.script([
      fauxAssistantMessage([fauxToolCall("notes_write", { address: "plan", content: "# Plan\nThe docs' commands.\n" })], { stopReason: "toolUse" }),
      fauxAssistantMessage("Noted.")
    ])
    await h.prompt("write the plan")
  })
  afterAll(async () => h?.dispose())

  it("are many, and each names a subcommand of the registry", () => {
    expect(commands.length).toBeGreaterThan(15)
    const names = new Set(subcommands.map((command) => command.name))
    for (const command of commands.filter((command) => command.startsWith("/pi-context "))) expect(names, command).toContain(command.split(" ")[1])
  })

  it("each answers, and none with a usage or an unknown subcommand", async () => {
    // tidy runs a model pass of its own: its words are checked above and by test/sdk/tidy.test.ts. A form
    // ending in "…" (notes versions|diff|restore …) stands for the full forms given elsewhere, which run.
    const runs = commands.filter((command) => !command.startsWith("/pi-context tidy") && !command.endsWith("…"))
    // A command named in a sentence without its arguments (`/pi-context notes restore` first commits…) is a name:
    // its usage is its answer, and its full form, given too, runs.
    const isName = (command: string) => commands.some((other) => other.startsWith(`${command} `) && !other.endsWith("…"))
    for (const command of runs) {
      const before = h.notices.length
      await h.prompt(command)
      const answers = h.notices.slice(before).map((notice) => notice.message)
      expect(answers.length, command).toBeGreaterThan(0)
      const refusals = isName(command) ? unknown : [...unknown, ...usages]
      for (const answer of answers) for (const refusal of refusals) expect(answer, `${command} → ${answer}`).not.toMatch(refusal)
    }
    expect(runs).toEqual(expect.arrayContaining(["/pi-context status", "/wipe-memory", "/pi-context notes boot", "/pi-context notes read plan", "/pi-context notes diff HEAD", "/pi-context notes sync now", "/pi-context report --json"]))
    expect(h.errors).toEqual([])
  })
})
