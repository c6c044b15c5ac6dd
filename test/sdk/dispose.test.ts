import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { JsonObject } from "@earendil-works/pi-ai"
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { describe, expect, it } from "vitest"
import { createHarness, makeDirs } from "../support/sdkHarness.ts"
import { removeTempDir } from "../support/tempDirs.ts"

const call = (name: string, args: JsonObject) => fauxAssistantMessage([fauxToolCall(name, args)], { stopReason: "toolUse" })
const git = (cwd: string, ...args: ReadonlyArray<string>) => execFileSync("git", [...args], { cwd, encoding: "utf8" })
const traceEvents = (agentDir: string) => {
  const traces = join(agentDir, "pi-context", "traces")
  return readdirSync(traces).flatMap((file) => readFileSync(join(traces, file), "utf8").trim().split("\n").map((line) => (JSON.parse(line) as { event: string }).event))
}

describe("the SDK harness's dispose", () => {
  it("ends the session as Pi's quit does: the reset's notes commit and its trace line are written when it returns, so nothing writes into the folder once it is removed", async () => {
    // Folders the harness keeps, to see what the session had written when dispose returned.
    const dirs = makeDirs()
    const h = await createHarness({ dirs })
    h.script([call("notes_write", { address: "@project/decisions", content: "# Decisions\nuse sqlite\n" }), call("wipe_memory", {}), fauxAssistantMessage("fresh window")])
    // The run settles before the reset's commit does: the faux model answers faster than git commits.
    await h.prompt("decide, then wipe")
    await h.dispose()
    expect(git(dirs.notesRoot, "log", "--format=%s").trim().split("\n")).toEqual([expect.stringMatching(/^w1 of session /)])
    expect(traceEvents(dirs.agentDir).at(-1)).toBe("history.commit")
    expect(h.errors).toEqual([])
    removeTempDir(dirs.root)
    expect(existsSync(dirs.root)).toBe(false)
  })
})
