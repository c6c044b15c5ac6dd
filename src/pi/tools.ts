import type { ExtensionAPI } from "@earendil-works/pi-coding-agent"
import { truncateUtf8 } from "../kernel/toolOutcome.ts"
import { collisionNotice, collisions } from "./toolCollisions.ts"
import type { PiHost } from "./host.ts"
import type { ApplyNeeds } from "./hooks.ts"
import { budgetToolSpecs } from "./budgetTools.ts"
import { historyToolSpecs } from "./historyTools.ts"
import { lifecycleToolSpecs } from "./lifecycleTools.ts"
import { notesRenderers, notesToolNames } from "./notesRenderers.ts"
import { notesToolSpecs } from "./notesTools.ts"

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
      name: spec.name,
      label: spec.label,
      description: spec.description,
      ...(spec.promptSnippet === undefined ? {} : { promptSnippet: spec.promptSnippet }),
      ...(spec.promptGuidelines === undefined ? {} : { promptGuidelines: [...spec.promptGuidelines] }),
      parameters: spec.parameters,
      ...(spec.executionMode === undefined ? {} : { executionMode: spec.executionMode }),
      ...(notesToolNames.has(spec.name) ? notesRenderers(spec.name) : {}),
      async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
        const { outcome, needs } = await (await load()).tool(spec.name, params, ctx)
        // A lifecycle tool (wipe_memory) may have asked for a boundary at this turn's end.
        if (needs !== undefined) applyNeeds(needs)
        const { text } = truncateUtf8(outcome.text)
        return outcome._tag === "Ok"
          ? { content: [{ type: "text", text }], details: outcome.details ?? {}, ...(outcome.terminate ? { terminate: true } : {}) }
          : { content: [{ type: "text", text }], details: { code: outcome.code }, isError: true }
      }
    })
  }
}
