import type { FauxResponseStep } from "@earendil-works/pi-ai/compat"
import { fauxAssistantMessage } from "@earendil-works/pi-ai/compat"
import type { SessionEntry } from "@earendil-works/pi-coding-agent"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { conversation, ofCustomType } from "../support/entries.ts"
import { boundaryViolation, dirsWith, filler, leakedTags, lostPendingRequest, requestWindow } from "../support/invariants.ts"
import { createHarness, type Harness } from "../support/sdkHarness.ts"
import { bareWipe, call, checkpointAndWipe, say } from "../support/steps.ts"

/**
 * Random sessions on Pi's real loop: prompts small and big (a 10,000-token
 * window, so the warning, the hard line and close-outs come often), tool turns,
 * notes, wipes, overflows, aborts, steers and /wipe-memory at random moments.
 * After every action the branch and every request sent must keep the reset
 * invariants.
 */
const contextWindow = 10_000
const lines = { guidanceLine: 6_000, warningLine: 4_000, hardLine: 2_000 }
const CLOSE_OUT = "[pi-context] Close-out:"

type Step = "reply" | "tool" | "note" | "wipe" | "checkpointWipe" | "overflow"
type Event = "none" | "abort" | "steer" | "wipeCommand"

interface PromptAction {
  readonly _tag: "Prompt"
  readonly tokens: number
  /** The model's steps for this run, in order; once spent, it replies. */
  readonly steps: ReadonlyArray<Step>
  /** What happens during the model call at `at` (counted from the run's first call). */
  readonly event: Event
  readonly at: number
}
type Action = PromptAction | { readonly _tag: "WipeCommand" }

const stepArb = fc.constantFrom<Step>("reply", "tool", "tool", "tool", "note", "wipe", "checkpointWipe", "overflow")
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.record({
    _tag: fc.constant("Prompt" as const),
    tokens: fc.constantFrom(5, 5, 1_500, 3_000, 4_500, 5_800),
    steps: fc.array(stepArb, { maxLength: 4 }),
    event: fc.constantFrom<Event>("none", "none", "abort", "steer", "wipeCommand"),
    at: fc.nat({ max: 3 })
  }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "WipeCommand" as const }) }
)

const overflow = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: "prompt is too long: 12000 tokens > 10000 maximum" })

const response = (step: Step) => {
  switch (step) {
    case "reply":
      return say("done")
    case "tool":
      return call("context_remaining", {})
    case "note":
      return call("notes_write", { address: "checkpoint", content: "# Checkpoint\nnext: go on" })
    case "wipe":
      return bareWipe()
    case "checkpointWipe":
      return checkpointAndWipe()
    case "overflow":
      return overflow()
  }
}

/** Violations of the invariants on the branch and the requests sent so far. */
const violations = (h: Harness, from: number): Array<string> => {
  const branch = h.branch()
  const found: Array<string> = []
  const boundary = boundaryViolation(branch)
  if (boundary !== undefined) found.push(boundary)
  const lost = lostPendingRequest(branch)
  if (lost !== undefined) found.push(`pending request lost: ${lost}`)
  const rootId = (ofCustomType(h.entries(), "pi-context/boot")[0] as { details: { windowId: string } }).details.windowId
  for (const request of h.requests.slice(from)) {
    const leaked = leakedTags(request, branch, rootId)
    if (leaked.length > 0) found.push(`request carries erased history: ${leaked.join(", ")}`)
    const boots = conversation(request).filter((line) => line.startsWith("user: ## Context window")).length
    if (boots !== 1) found.push(`request carries ${boots} boots`)
  }
  // At most one close-out per window (retries are off, so a request is never sent twice).
  const closeOuts = new Map<string, number>()
  for (const request of h.requests) {
    if (!conversation(request).join("\n").includes(CLOSE_OUT)) continue
    const window = requestWindow(request) ?? "?"
    closeOuts.set(window, (closeOuts.get(window) ?? 0) + 1)
  }
  for (const [window, count] of closeOuts) if (count > 1) found.push(`${count} close-outs in ${window}`)
  const recovered = overflowRecoveriesInOneChain(branch)
  if (recovered !== undefined) found.push(recovered)
  return found
}

const isOverflowReply = (entry: SessionEntry | undefined) =>
  entry?.type === "message" && entry.message.role === "assistant" && entry.message.stopReason === "error"

/** A recovery is a boundary right after an overflowed reply; a second one needs a completed turn or a new prompt in between. */
const overflowRecoveriesInOneChain = (branch: ReadonlyArray<SessionEntry>): string | undefined => {
  let spent = false
  for (let i = 0; i < branch.length; i++) {
    const entry = branch[i]!
    if (entry.type === "message" && (entry.message.role === "user" ||
      (entry.message.role === "assistant" && (entry.message.stopReason === "stop" || entry.message.stopReason === "toolUse")))) spent = false
    if (entry.type !== "custom" || entry.customType !== "pi-context/reset-marker") continue
    let before = i - 1
    while (before >= 0 && branch[before]!.type === "compaction") before--
    if (!isOverflowReply(branch[before])) continue
    if (spent) return `a second overflow recovery in one failure chain (marker at ${i})`
    spent = true
  }
  return undefined
}

describe("continuity over random sessions (Pi's real loop)", () => {
  it("keeps boundaries whole, never splits a tool call from its result, never leaks erased history, one close-out and one recovery per chain, never loses the pending request", async () => {
    let tagCounter = 0
    await fc.assert(
      fc.asyncProperty(fc.array(actionArb, { minLength: 2, maxLength: 8 }), async (actions) => {
        const h = await createHarness({ dirs: dirsWith({ "pi-context": lines }), contextWindow })
        try {
          let plan: Array<Step> = []
          let call = 0
          let event: { readonly kind: Event; readonly at: number } = { kind: "none", at: 0 }
          const dispatcher: FauxResponseStep = () => {
            const index = call++
            if (index === event.at) {
              if (event.kind === "abort") {
                void h.session.abort()
                return say("cut off")
              }
              if (event.kind === "steer") void h.session.steer(`T${++tagCounter} steer`)
              if (event.kind === "wipeCommand") void h.session.prompt("/wipe-memory")
            }
            const step = plan.shift()
            return step === undefined ? say("done") : response(step)
          }
          h.script(Array.from({ length: 200 }, () => dispatcher))
          const log: Array<string> = []
          for (const action of actions) {
            const from = h.requests.length
            if (action._tag === "WipeCommand") {
              log.push("/wipe-memory")
              await h.prompt("/wipe-memory")
            } else {
              plan = [...action.steps]
              call = 0
              event = { kind: action.event, at: action.at }
              const tag = `T${++tagCounter}`
              log.push(`${tag} ${action.tokens}t [${action.steps.join(",")}] ${action.event}@${action.at}`)
              await h.session.prompt(action.tokens > 5 ? filler(action.tokens, tag) : `${tag} go on`).catch(() => undefined)
            }
            await h.waitForIdle()
            const found = violations(h, from)
            if (found.length > 0) throw new Error(`${found.join("; ")}\nafter: ${log.join(" | ")}`)
          }
          expect(h.errors).toEqual([])
        } finally {
          await h.dispose()
        }
      }),
      { numRuns: 40, seed: 20_261_201, endOnFailure: true }
    )
    // 40 whole sessions on Pi's real loop: about 40 s alone on 2 cores, more beside the other SDK files.
  }, 180_000)
})
