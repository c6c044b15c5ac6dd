import { assert, describe, it } from "@effect/vitest"
import { checkWipe, windowActivity } from "../../src/window/checkpoint.ts"
import type { RawEntry } from "../../src/kernel/entries.ts"
import { resolvePolicy } from "../../src/settings/policy.ts"

let n = 0
const raw = (message: unknown): RawEntry => ({ type: "message", id: `e${++n}`, parentId: null, timestamp: "", message })
const result = (toolName: string, isError = false) => raw({ role: "toolResult", toolName, toolCallId: "c", content: [], isError })

describe("the checkpoint check", () => {
  it("counts only successful notes_write / notes_update results as a checkpoint", () => {
    assert.deepStrictEqual(windowActivity([result("notes_write")]), { checkpointed: true, sessionCheckpoint: true, wipeCalls: 0, guided: false, warned: false })
    assert.deepStrictEqual(windowActivity([result("notes_update")]), { checkpointed: true, sessionCheckpoint: true, wipeCalls: 0, guided: false, warned: false })
    assert.deepStrictEqual(windowActivity([result("notes_write", true), result("notes_read")]), { checkpointed: false, sessionCheckpoint: false, wipeCalls: 0, guided: false, warned: false })
    assert.deepStrictEqual(windowActivity([result("wipe_memory"), result("wipe_memory")]), { checkpointed: false, sessionCheckpoint: false, wipeCalls: 2, guided: false, warned: false })
  })

  it("calls only a note of this session's home a checkpoint: one written only for @user passes the wipe check, but is no checkpoint to tell", () => {
    const written = (address: string) => raw({ role: "toolResult", toolName: "notes_write", toolCallId: "c", content: [], isError: false, details: { address } })
    assert.deepStrictEqual(windowActivity([written("@user/preferences.md")]), { checkpointed: true, sessionCheckpoint: false, wipeCalls: 0, guided: false, warned: false })
    assert.deepStrictEqual(windowActivity([written("@user/preferences.md"), written("checkpoint.md")]), { checkpointed: true, sessionCheckpoint: true, wipeCalls: 0, guided: false, warned: false })
  })

  it("records whether the window carried pi-context's guidance and its final warning", () => {
    const reminder = (customType: string) => ({ type: "custom_message", id: customType, parentId: null, timestamp: "", customType, content: "", display: false, details: { windowId: "w" } }) as unknown as Parameters<typeof windowActivity>[0][number]
    assert.deepInclude(windowActivity([reminder("pi-context/guidance")]), { guided: true, warned: false })
    assert.deepInclude(windowActivity([reminder("pi-context/guidance"), reminder("pi-context/warning")]), { guided: true, warned: true })
  })

  it("refuses only a window's first wipe_memory without a note, and only while the check is on", () => {
    const refuse = (checkpointed: boolean, wipeCalls: number, checkEnabled = true) =>
      checkWipe({ checkEnabled, activity: { checkpointed, sessionCheckpoint: checkpointed, wipeCalls, guided: false, warned: false } })._tag
    assert.strictEqual(refuse(false, 0), "Refuse")
    assert.strictEqual(refuse(true, 0), "Allow")
    assert.strictEqual(refuse(false, 1), "Allow")
    assert.strictEqual(refuse(false, 0, false), "Allow")
  })
})

describe("the checkpoint check's setting", () => {
  const policy = (settings: Record<string, unknown>) => resolvePolicy([{ source: "global", settings: { "pi-context": settings } }], undefined)

  it("checkpointCheck defaults to true and is validated like the other booleans", () => {
    assert.strictEqual(policy({}).checkpointCheck.value, true)
    assert.strictEqual(policy({ checkpointCheck: false }).checkpointCheck.value, false)
    const bad = policy({ checkpointCheck: "no" })
    assert.strictEqual(bad.checkpointCheck.value, true)
    assert.deepInclude(bad.notices[0]!, { key: "pi-context.checkpointCheck", value: "no", used: true })
  })
})
