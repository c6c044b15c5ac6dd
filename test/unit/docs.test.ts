import { assert, describe, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { modelKeys, settingsKeys } from "../../src/settings/keys.ts"
import { piContextTools } from "../support/sdkHarness.ts"

/**
 * The README is a guide and docs/ holds the rest: every command, script,
 * path, setting and link they name exists as written. The quick start's
 * commands run in test/e2e/demo.test.ts; the /pi-context commands in
 * test/sdk/docsCommands.test.ts.
 */
const repoRoot = resolve(import.meta.dirname, "..", "..")
const docsDir = join(repoRoot, "docs")
const pages = ["README.md", ...readdirSync(docsDir).filter((name) => name.endsWith(".md")).sort().map((name) => join("docs", name))]
const textOf = (page: string) => readFileSync(join(repoRoot, page), "utf8")
const scripts = Object.keys((JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts)

/** Fenced code blocks with their language, and the inline code spans outside them. */
const codeOf = (text: string) => {
  const blocks = [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({ lang: match[1]!, body: match[2]! }))
  const prose = text.replace(/^```\w*\n[\s\S]*?^```$/gm, "")
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!)
  return { blocks, spans, prose }
}
/** The shell commands a page gives: its sh blocks' lines (comments cut) and, unless `blocksOnly`, its inline spans that start like one. */
const shellCommands = (text: string, blocksOnly = false): ReadonlyArray<string> => {
  const { blocks, spans } = codeOf(text)
  const fromBlocks = blocks.filter((block) => block.lang === "sh").flatMap((block) => block.body.split("\n"))
  return [...fromBlocks, ...(blocksOnly ? [] : spans)].map((line) => line.replace(/\s+#.*$/, "").trim()).filter((line) => /^(npm|npx|node|pi|git) /.test(line))
}
/** GitHub's anchor for a heading. */
const slug = (heading: string) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-")
const anchorsOf = (text: string) => new Set([...text.replace(/^```\w*\n[\s\S]*?^```$/gm, "").matchAll(/^#+ (.+)$/gm)].map((match) => slug(match[1]!)))

describe("the README and docs/", () => {
  it("the README is a guide of at most 250 lines, and each docs page starts with what a reader comes for", () => {
    assert.isAtMost(textOf("README.md").split("\n").length, 250)
    const docs = pages.filter((page) => page !== "README.md")
    assert.includeMembers(docs.map((page) => page.slice("docs/".length)), [
      "settings.md", "resets.md", "versions.md", "sync.md", "safety.md", "eval.md", "architecture.md", "development.md"
    ])
    for (const page of docs) assert.match(textOf(page), /^# .+\n\nYou come here /, page)
  })

  it("every relative link reaches a page that exists, and every #anchor a heading on it", () => {
    let links = 0
    for (const page of pages) {
      const { prose } = codeOf(textOf(page))
      for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        const [path, anchor] = target!.split("#") as [string, string | undefined]
        const file = path === "" ? join(repoRoot, page) : resolve(dirname(join(repoRoot, page)), path)
        assert.isTrue(existsSync(file), `${page}: ${target} names no file`)
        if (anchor !== undefined) assert.isTrue(anchorsOf(readFileSync(file, "utf8")).has(anchor), `${page}: ${target} names no heading`)
        links++
      }
    }
    assert.isAbove(links, 30)
  })

  it("every npm command names a script of package.json or one of npm's own, and every file a command runs exists", () => {
    const npmOwn = new Set(["ci", "test", "install", "exec"])
    const seen = new Set<string>()
    for (const page of pages) {
      for (const command of shellCommands(textOf(page))) {
        const run = /^npm run ([\w:-]+)/.exec(command)
        if (run !== null) assert.include(scripts, run[1], `${page}: ${command}`)
        else if (command.startsWith("npm ")) assert.isTrue(npmOwn.has(command.split(/\s+/)[1]!), `${page}: ${command}`)
        for (const [, file] of command.matchAll(/(?:^|\s)((?:bench|eval|demo|scripts|test)\/[\w./-]+\.ts)\b/g)) assert.isTrue(existsSync(join(repoRoot, file!)), `${page}: ${command}`)
        seen.add(command.replace(/ --.*$/, ""))
      }
    }
    for (const expected of ["npm ci", "npm test", "npm run demo", "npm run eval", "npm run bench", "npm run test:compat", "npm run build"]) assert.isTrue(seen.has(expected), expected)
  })

  it("every path of the repository a page names exists (a placeholder or a glob: its folder)", () => {
    // Folders a run makes: a new eval run without --out.
    const madeByARun = ["eval/results/runs/"]
    let checked = 0
    for (const page of pages) {
      for (const span of codeOf(textOf(page)).spans) {
        for (const [, path] of span.matchAll(/(?:^|[\s(])((?:src|test|bench|eval|demo|scripts|docs)\/[^\s`'",;)]*)/g)) {
          const cut = path!.search(/[<*{]/)
          const exact = (cut < 0 ? path! : path!.slice(0, path!.lastIndexOf("/", cut) + 1)).replace(/[.:]$/, "")
          if (madeByARun.includes(exact)) continue
          assert.isTrue(existsSync(join(repoRoot, exact)), `${page}: ${path} (checked ${exact})`)
          checked++
        }
      }
    }
    assert.isAbove(checked, 40)
  })

  it("every setting a page names is a key of the settings check, in every JSON example and as pi-context.<key>", () => {
    const keys = new Set(settingsKeys)
    const perModel = new Set(modelKeys)
    let examples = 0
    for (const page of pages) {
      const { blocks, spans } = codeOf(textOf(page))
      for (const block of blocks.filter((block) => block.lang === "json")) {
        const section = (JSON.parse(block.body) as Record<string, unknown>)["pi-context"] as Record<string, unknown> | undefined
        if (section === undefined) continue
        examples++
        for (const key of Object.keys(section)) assert.isTrue(keys.has(key), `${page}: "${key}" in a JSON example`)
        for (const override of Object.values((section.models ?? {}) as Record<string, Record<string, unknown>>)) {
          for (const key of Object.keys(override)) assert.isTrue(perModel.has(key), `${page}: models override "${key}"`)
        }
        for (const entry of (section.sync ?? []) as ReadonlyArray<Record<string, unknown>>) {
          for (const key of Object.keys(entry)) assert.include(["homes", "remote", "branch"], key, `${page}: sync entry "${key}"`)
        }
      }
      for (const span of spans) {
        for (const [, key] of span.matchAll(/pi-context\.(\w+)/g)) assert.isTrue(keys.has(key!), `${page}: pi-context.${key}`)
        const quoted = /^"(\w+)":/.exec(span)
        if (quoted !== null) assert.isTrue(keys.has(quoted[1]!), `${page}: ${span}`)
      }
    }
    assert.isAtLeast(examples, 4)
    // The README's table of the settings changed most names keys of the check only.
    const readme = textOf("README.md")
    const table = readme.slice(readme.indexOf("## Settings"), readme.indexOf("\n## ", readme.indexOf("## Settings") + 1))
    const rows = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]!)
    assert.isAtLeast(rows.length, 6)
    for (const key of rows) assert.isTrue(keys.has(key), `README settings: ${key}`)
  })

  it("the README lists exactly the model's tools, and every eval flag docs/eval.md names is one the eval parses", () => {
    const readme = textOf("README.md")
    const tools = readme.slice(readme.indexOf("## The model's tools"), readme.indexOf("\n## ", readme.indexOf("## The model's tools") + 1))
    assert.sameMembers([...tools.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]!), piContextTools)
    const args = readFileSync(join(repoRoot, "eval", "harness", "args.ts"), "utf8")
    const evalCommands = codeOf(textOf("docs/eval.md")).spans.filter((span) => span.startsWith("--") || span.startsWith("npm run eval"))
    const flags = new Set(evalCommands.flatMap((span) => [...span.matchAll(/(?:^|\s)--([a-z][\w-]*)/g)].map((match) => match[1]!)))
    assert.isAbove(flags.size, 10)
    // args.ts reads each flag by its name (values.get("seeds")) or tests it whole ("--help").
    for (const flag of flags) assert.isTrue(args.includes(`"${flag}"`) || args.includes(`"--${flag}"`), `--${flag}`)
  })

  it("the quick start gives the commands a fresh machine needs, with no global pi, and says when a settings edit applies", () => {
    const readme = textOf("README.md")
    const start = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("\n## ", readme.indexOf("## Quick start") + 1))
    assert.deepStrictEqual(shellCommands(start, true), [
      "git clone <this repository> pi-context && cd pi-context",
      "npm ci",
      "npm run demo",
      "npm run demo -- --tui",
      "npx pi install \"$PWD\""
    ])
    assert.notMatch(readme, /^pi install/m)
    assert.include(readme, "applies after Pi's `/reload`")
    const tests = readme.slice(readme.indexOf("## Tests"), readme.indexOf("\n## ", readme.indexOf("## Tests") + 1))
    assert.deepStrictEqual(shellCommands(tests, true), ["npm ci", "npm test"])
  })
})
