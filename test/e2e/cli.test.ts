import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { rootWindowId } from "../../src/kernel/windowId.ts"
import { fauxPromptArgs, jsonEvents, piDirsIn, piEnv, repoRoot, runPi } from "./fixtures/piCli.ts"
import { finalPrefix, noteAddress, noteBody } from "./fixtures/fauxNotesScript.ts"

/**
 * The real `pi` CLI of the pinned dev dependency, offline, in a temp project
 * where pi-context was installed with `pi install <repo root> -l`. Only the
 * faux model comes in through `-e`; pi-context itself must come from the
 * project's `.pi/settings.json`.
 */
const fauxExtension = join(import.meta.dirname, "fixtures", "fauxNotesScript.ts")

type Dirs = ReturnType<typeof piDirsIn>

/** Runs the CLI in the project, with a clean env pointing at temp dirs only. */
const pi = (dirs: Dirs, args: ReadonlyArray<string>) => runPi(dirs.project, piEnv(dirs), args)

const toolResults = (events: ReadonlyArray<Record<string, any>>) =>
  events
    .filter((event) => event.type === "tool_execution_end")
    .map((event) => ({
      toolName: event.toolName as string,
      isError: event.isError as boolean,
      text: (event.result?.content ?? []).map((block: { text?: string }) => block.text ?? "").join("")
    }))

const finalText = (events: ReadonlyArray<Record<string, any>>): string => {
  const last = events.filter((event) => event.type === "message_end" && event.message?.role === "assistant").at(-1)
  return (last?.message.content ?? []).map((block: { text?: string }) => block.text ?? "").join("")
}

const promptArgs = (trust: "--approve" | "--no-approve") => fauxPromptArgs("write a note, then list the notes", [fauxExtension], [trust])

describe("the real pi CLI with pi-context installed in the project", () => {
  let dirs: Dirs

  beforeAll(async () => {
    dirs = piDirsIn(mkdtempSync(join(tmpdir(), "pi-context-e2e-")))
    // A local path is only checked for existence (no npm, no network): the package
    // runs from the repo root and resolves `effect` from its node_modules.
    const install = await pi(dirs, ["install", repoRoot, "-l"])
    expect(install.code, install.stderr).toBe(0)
  })

  afterAll(() => {
    if (dirs !== undefined) rmSync(dirs.root, { recursive: true, force: true })
  })

  it("`pi install <repo> -l` records the package in the project's .pi/settings.json", () => {
    const settingsFile = join(dirs.project, ".pi", "settings.json")
    expect(existsSync(settingsFile)).toBe(true)
    const packages = (JSON.parse(readFileSync(settingsFile, "utf8")) as { packages: Array<string> }).packages
    expect(packages).toHaveLength(1)
    expect(resolve(dirs.project, ".pi", packages[0]!)).toBe(repoRoot)
  })

  it("a print run loads the package, the model's notes_write and notes_list run, and the note is on disk", async () => {
    const run = await pi(dirs, promptArgs("--approve"))
    expect(run.code, run.stderr).toBe(0)
    const events = jsonEvents(run.stdout)
    const header = events[0]!
    expect(header.type).toBe("session")

    const boots = events.filter((event) => event.type === "message_end" && event.message?.customType === "pi-context/boot")
    expect(boots).toHaveLength(1)

    const results = toolResults(events)
    expect(results.map((result) => result.toolName)).toEqual(["notes_write", "notes_list"])
    expect(results.every((result) => !result.isError)).toBe(true)
    expect(results[0]!.text).toMatch(new RegExp(`^Created ${noteAddress}\\.md`))
    expect(results[1]!.text).toContain(`${noteAddress}.md · "E2E check"`)

    // The model saw the tool output: its last reply quotes notes_list's result.
    expect(finalText(events)).toBe(`${finalPrefix} tools=notes_write,notes_list last=${JSON.stringify(results[1]!.text)}`)
    expect(events.at(-1)).toEqual({ type: "agent_settled", aborted: false })

    const noteFile = join(dirs.notesRoot, "sessions", header.id as string, `${noteAddress}.md`)
    expect(existsSync(noteFile)).toBe(true)
    expect(readFileSync(noteFile, "utf8")).toContain(noteBody)
    expect(existsSync(join(dirs.agentDir, "pi-context", "traces", `${header.id as string}.jsonl`))).toBe(true)
  })

  it("when the print run ends, the session's new note is committed to the notes history", async () => {
    const run = await pi(dirs, promptArgs("--approve"))
    expect(run.code, run.stderr).toBe(0)
    const sessionId = jsonEvents(run.stdout)[0]!.id as string
    const short = sessionId.replace(/[^A-Za-z0-9]/g, "").slice(0, 8)
    const log = execFileSync("git", ["log", "--format=%s", "--name-only"], { cwd: dirs.notesRoot, encoding: "utf8" })
    expect(log).toContain(`w1 of session ${short} (shutdown): +1 ~0 −0\n\nsessions/${sessionId}/${noteAddress}.md`)
    // The shutdown commit is keyed by the full session id and the root window's id, not by its subject.
    const keys = execFileSync("git", ["log", "-1", "--format=%(trailers:key=Pi-Context-Session,valueonly,separator=) %(trailers:key=Pi-Context-Window,valueonly,separator=)"], {
      cwd: dirs.notesRoot,
      encoding: "utf8"
    })
    expect(keys.trim()).toBe(`${sessionId} ${rootWindowId(sessionId)}`)
  })

  it("without project trust the installed package does not load (so the run above loaded it from .pi/settings.json)", async () => {
    const run = await pi(dirs, promptArgs("--no-approve"))
    expect(run.code, run.stderr).toBe(0)
    const events = jsonEvents(run.stdout)
    expect(events.some((event) => event.message?.customType === "pi-context/boot")).toBe(false)
    const results = toolResults(events)
    expect(results.map((result) => result.toolName)).toEqual(["notes_write", "notes_list"])
    expect(results.every((result) => result.isError)).toBe(true)
  })
})
