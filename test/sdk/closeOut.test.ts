import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai/compat"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { conversation, kinds, ofCustomType } from "../support/entries.ts"
import { boundaryViolation, dirsWith, filler, lostPendingRequest, markerIndexes } from "../support/invariants.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { call, checkpointAndWipe, say } from "../support/steps.ts"
import { estimateTokens } from "../../src/kernel/tokenCount.ts"

/**
 * A 10,000-token window with the hard line at 2,000 tokens left: a prompt of
 * 5,800 tokens after a short first exchange leaves about 1,700, so the tool
 * turn it starts ends past the hard line.
 */
const contextWindow = 10_000
const lines = { guidanceLine: 6_000, warningLine: 4_000, hardLine: 2_000 }
const CLOSE_OUT = "[pi-context] Close-out:"

const occurrences = (request: { readonly messages: ReadonlyArray<unknown> }, needle: string) =>
  conversation(request).join("\n").split(needle).length - 1

const closeOutRequests = (h: Harness) => h.requests.flatMap((request, index) => (occurrences(request, CLOSE_OUT) > 0 ? [index] : []))

const continuation = (h: Harness) => (ofCustomType(h.entries(), "pi-context/continuation").at(-1) as { content: string }).content

/** A crossing run: a short exchange, then a big prompt whose first turn runs a tool and ends past the hard line. */
const crossWithToolTurn = async (h: Harness, closeOutReply: Parameters<Harness["script"]>[0][number], after: ReadonlyArray<Parameters<Harness["script"]>[0][number]> = []) => {
  h.script([say("ok"), call("context_remaining", {}), closeOutReply, ...after])
  await h.prompt("hello")
  await h.prompt(filler(5_800, "BIG-TASK"))
}

describe("one close-out before an automatic reset mid-run", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  it("the model obeys: exactly one close-out request, then the boundary its wipe_memory asked for", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    await crossWithToolTurn(h, checkpointAndWipe(), [say("fresh window")])
    // No reset at the tool turn that crossed the line: the next request carries the close-out, once.
    expect(closeOutRequests(h)).toEqual([2])
    expect(conversation(h.requests[2]!).at(-1)).toMatch(/^user: \[pi-context\] Close-out:.*notes_write.*wipe_memory/s)
    // It names the hard line and the last turn; no request tells the model "about 0 tokens remain".
    expect(conversation(h.requests[2]!).at(-1)).toContain("past its hard line, which is at 2,000 tokens left, so this is its last turn")
    for (const request of h.requests) expect(conversation(request).join("\n")).not.toMatch(/\b0 tokens/)
    const all = kinds(h.entries())
    const markers = markerIndexes(h.entries())
    expect(markers).toHaveLength(1)
    expect(all.slice(markers[0]! - 3, markers[0]!)).toEqual(["message:assistant", "message:toolResult", "message:toolResult"])
    // The close-out is hidden and never written to the session.
    expect(JSON.stringify(h.entries())).not.toContain(CLOSE_OUT)
    // The model asked for this reset: the continuation carries the pending request, not a digest.
    expect(h.requests).toHaveLength(4)
    expect(conversation(h.requests[3]!)[0]).toMatch(/^user: ## Context window/)
    expect(continuation(h)).not.toContain("This reset was automatic")
    expect(continuation(h)).toContain("BIG-TASK")
    expect(boundaryViolation(h.entries())).toBeUndefined()
    // The boot says how the window ended, and when the notes were last updated.
    expect(conversation(h.requests[3]!)[0]).toContain("The previous window ended with a checkpoint: notes updated in window w1.")
    expect(conversation(h.requests[3]!)[0]).toContain("notes were last updated in window w1, just now (checkpoint.md).")
  })

  it("the model ignores it with another tool turn: the boundary follows that turn anyway, with the digest", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    await crossWithToolTurn(h, call("context_remaining", {}), [say("fresh window")])
    expect(closeOutRequests(h)).toEqual([2])
    const markers = markerIndexes(h.entries())
    expect(markers).toHaveLength(1)
    expect(kinds(h.entries()).slice(markers[0]! - 2, markers[0]!)).toEqual(["message:assistant", "message:toolResult"])
    expect(h.requests).toHaveLength(4)
    const fresh = conversation(h.requests[3]!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    expect(fresh[1]).toContain("This reset was automatic")
    expect(fresh[1]).toMatch(/pending request[^\n]*\n> BIG-TASK/)
    expect(lostPendingRequest(h.entries())).toBeUndefined()
    expect(fresh[0]).toContain("w1 ended without a checkpoint")
  })

  it("the model ignores it with a final reply: the boundary is committed with no further model call", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    await crossWithToolTurn(h, say("I am done here"))
    expect(closeOutRequests(h)).toEqual([2])
    expect(h.requests).toHaveLength(3)
    expect(markerIndexes(h.entries())).toHaveLength(1)
    expect(kinds(h.entries()).at(-1)).toBe("custom_message:pi-context/continuation")
  })

  it("an abort drops the close-out; the window never gets a second one, and the next tool turn past the line resets", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    const abortNow = () => {
      void h.session.abort()
      return say("cut off")
    }
    h.script([say("ok"), call("context_remaining", {}), abortNow])
    await h.prompt("hello")
    await h.prompt(filler(5_800, "BIG-TASK")).catch(() => undefined)
    await h.waitForIdle()
    expect(closeOutRequests(h)).toEqual([2])
    expect(markerIndexes(h.entries())).toHaveLength(0)
    h.script([call("context_remaining", {}), say("fresh window")])
    await h.prompt("go on (NEXT)")
    // Still one close-out: the tool turn past the line resets at its end.
    expect(closeOutRequests(h)).toEqual([2])
    expect(markerIndexes(h.entries())).toHaveLength(1)
    expect(conversation(h.requests.at(-1)!)[0]).toMatch(/^user: ## Context window/)
    expect(continuation(h)).toContain("go on (NEXT)")
  })

  it("an overflow during the close-out is recovered once, as any overflow", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
    const overflow = fauxAssistantMessage("", { stopReason: "error", errorMessage: "prompt is too long: 12000 tokens > 10000 maximum" })
    await crossWithToolTurn(h, overflow, [say("fresh window")])
    expect(closeOutRequests(h)).toEqual([2])
    expect(markerIndexes(h.entries())).toHaveLength(1)
    expect(h.requests).toHaveLength(4)
    expect(conversation(h.requests[3]!)[0]).toMatch(/^user: ## Context window/)
    expect(occurrences(h.requests[3]!, CLOSE_OUT)).toBe(0)
  })
})

describe("the digest of an automatic reset", () => {
  let h: Harness
  afterEach(async () => h?.dispose())

  const writeAndFail = () =>
    fauxAssistantMessage([
      fauxToolCall("write", { path: "src/app.ts", content: "export const answer = 42\n" }),
      fauxToolCall("bash", { command: "echo building && exit 3" })
    ], { stopReason: "toolUse" })

  const digestOf = (h: Harness) => {
    const fresh = conversation(h.requests[3]!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    const text = fresh[1]!
    return text.slice(text.indexOf("## Digest"))
  }

  it("names a file the window wrote and a command that failed, in the new window's first request, within its budget", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow, tools: ["write", "bash"] })
    await crossWithToolTurn(h, writeAndFail(), [say("fresh window")])
    expect(markerIndexes(h.entries())).toHaveLength(1)
    const digest = digestOf(h)
    expect(digest).toContain("src/app.ts")
    expect(digest).toContain("echo building && exit 3")
    expect(digest).toMatch(/exit 3/)
    expect(estimateTokens(digest)).toBeLessThanOrEqual(1_500)
  })

  it("lists a command that failed twice on one line with its count, and names a command the user aborted as aborted", async () => {
    h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow, tools: ["bash"] })
    mkdirSync(join(h.dirs.cwd, "test"), { recursive: true })
    writeFileSync(join(h.dirs.cwd, "test", "server.test.ts"), "process.exit(1)\n")
    // Escape while the command runs: the session is aborted once Pi's bash tool has started it.
    const stop = h.session.subscribe((event) => {
      if (event.type === "tool_execution_start" && event.toolName === "bash" && JSON.stringify(event.args).includes("sleep 30")) {
        setTimeout(() => void h.session.abort(), 200)
      }
    })
    h.script([call("bash", { command: "node test/server.test.ts" }), call("bash", { command: "node test/server.test.ts" }), say("the server test fails")])
    await h.prompt("run the server tests")
    h.script([call("bash", { command: "sleep 30" })])
    await h.prompt("watch for changes").catch(() => undefined)
    await h.waitForIdle()
    stop()
    const aborted = h.entries().flatMap((entry) => entry.type === "message" && entry.message.role === "toolResult" ? [JSON.stringify(entry.message.content)] : [])
    expect(aborted.at(-1)).toContain("Command aborted")
    h.script([say("ok"), call("context_remaining", {}), call("context_remaining", {}), say("fresh window")])
    await h.prompt("hello")
    await h.prompt(filler(5_800, "BIG-TASK"))
    expect(markerIndexes(h.entries())).toHaveLength(1)
    const fresh = conversation(h.requests.at(-1)!)
    expect(fresh[0]).toMatch(/^user: ## Context window/)
    const digest = fresh[1]!.slice(fresh[1]!.indexOf("## Digest"))
    expect(digest).toContain("### Commands that failed or were aborted (newest first)\n- `sleep 30`: aborted\n- `node test/server.test.ts`: exit 1 ×2\n")
    expect(digest.split("node test/server.test.ts")).toHaveLength(2)
  })

  it("pi-context.digestTokens bounds the digest, and the digest says what it left out", async () => {
    const digestTokens = 400
    h = await createHarness({ dirs: dirsWith({ "pi-context": { ...lines, digestTokens } }), contextWindow, tools: ["write", "bash"] })
    await crossWithToolTurn(h, writeAndFail(), [say("fresh window")])
    const digest = digestOf(h)
    expect(estimateTokens(digest)).toBeLessThanOrEqual(digestTokens)
    expect(digest).toContain(`Left out to fit the digest budget of ${digestTokens} tokens`)
    expect(digest).toMatch(/pending request[^\n]*\n> BIG-TASK/)
  })
})
