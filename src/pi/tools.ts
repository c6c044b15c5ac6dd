import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { Type } from "typebox"
import { ToolName } from "../kernel/protocol.ts"
import { type ToolSpec, toolResult } from "./toolSpec.ts"
import { collisionNotice, collisions } from "./toolCollisions.ts"
import type { PiHost } from "./host.ts"
import type { ApplyNeeds } from "./hooks.ts"
import { historyToolSpecs } from "./historyTools.ts"
import { notesRenderers } from "./notesRenderers.ts"
import { notesToolSpecs } from "./notesTools.ts"

const lifecycleToolSpecs: ReadonlyArray<ToolSpec> = [
  {
    name: ToolName.wipeMemory,
    label: "Wipe memory",
    description: "End this context window and go on in a fresh one that starts from your notes. Write your checkpoint " +
      "(goal, decisions, next step) and the session MAP first.",
    promptSnippet: "end this context window and go on from your notes (write your checkpoint first)",
    parameters: Type.Object({}),
    // The checkpoint check reads the window's notes results from the session: a note written
    // earlier in the same batch must be there before this call runs.
    executionMode: "sequential"
  }
]

const budgetToolSpecs: ReadonlyArray<ToolSpec> = [
  {
    name: ToolName.contextRemaining,
    label: "Context remaining",
    description: "Tokens left in this window before the final warning and before the reset (null while unknown).",
    parameters: Type.Object({})
  }
]

export const allToolSpecs = [...lifecycleToolSpecs, ...notesToolSpecs, ...historyToolSpecs, ...budgetToolSpecs]

/**
 * Registers every pi-context tool; each call runs its Effect handler in the
 * host runtime. At start-up, a name that Pi resolves to another extension's
 * tool is told once, with its owner.
 */
export const registerTools = (pi: ExtensionAPI, load: () => Promise<PiHost>, applyNeeds: ApplyNeeds): void => {
  let collisionsTold = false
  pi.on("session_start", (_event, ctx) => {
    if (collisionsTold || typeof pi.getAllTools !== "function") return
    collisionsTold = true
    try {
      const found = collisions(allToolSpecs, pi.getAllTools())
      if (found.length > 0) ctx.ui.notify(collisionNotice(found), "warning")
    } catch {
      // Pi could not list its tools: nothing to compare against.
    }
  })
  for (const spec of allToolSpecs) {
    pi.registerTool({
      ...spec,
      ...(notesToolSpecs.includes(spec) ? notesRenderers(spec.name) : {}),
      async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
        const { outcome, needs } = await (await load()).tool(spec.name, params, ctx)
        // A lifecycle tool (wipe_memory) may have asked for a boundary at this turn's end.
        if (needs !== undefined) applyNeeds(needs)
        return toolResult(outcome)
      }
    })
  }
}
