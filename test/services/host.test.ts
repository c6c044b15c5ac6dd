import { writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ExtensionAPI, ExtensionContext, SessionEntry } from "@earendil-works/pi-coding-agent"
import { Option } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { makePiHost } from "../../src/pi/host.ts"
import { partialOf } from "../support/partial.ts"
import { tempDir } from "../support/tempDirs.ts"

describe("the host runtime", () => {
  let dispose: (() => Promise<void>) | undefined
  afterEach(async () => dispose?.())

  it("answers a failing hook with its neutral result and tells the user once", async () => {
    process.env.PI_CODING_AGENT_DIR = tempDir("pi-context-host-")
    const notices: Array<string> = []
    const pi = partialOf<ExtensionAPI>({ getSettings: () => ({}) })
    const broken = () => {
      throw new Error("session store unreadable")
    }
    const ctx = partialOf<ExtensionContext>({
      cwd: tmpdir(),
      ui: { notify: (message: string) => void notices.push(message), setStatus: () => {} },
      sessionManager: {
        getSessionId: () => "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000",
        getHeader: () => null,
        getLeafEntry: broken,
        getBranch: broken,
        getEntries: broken
      },
      model: undefined,
      getContextUsage: () => undefined,
      isProjectTrusted: () => false
    })
    const host = makePiHost(pi)
    dispose = host.dispose
    const messages = [{ role: "user", content: "hi", timestamp: 0 }] as never
    // Pi's own request is sent, and both boundary hooks stay live rather than miss a boundary.
    const neutral = {
      messages: undefined,
      reminders: [],
      closeOut: Option.none(),
      windowId: "",
      needs: { turnEnd: true, beforeSettle: true }
    }
    expect(await host.project(messages, ctx)).toEqual(neutral)
    expect(await host.project(messages, ctx)).toEqual(neutral)
    expect(notices).toEqual(["pi-context: context_with_system failed; Pi continues without it. See /pi-context trace."])
  })

  it("a reply whose shape Pi's overflow test cannot read (no usage) counts as no overflow, and the hook still answers", async () => {
    process.env.PI_CODING_AGENT_DIR = tempDir("pi-context-host-")
    const notices: Array<string> = []
    const entries: Array<SessionEntry> = []
    const pi = partialOf<ExtensionAPI>({ getSettings: () => ({}), appendEntry: () => {}, sendMessage: () => {} })
    const ctx = partialOf<ExtensionContext>({
      cwd: tmpdir(),
      ui: { notify: (message: string) => void notices.push(message), setStatus: () => {} },
      sessionManager: {
        getSessionId: () => "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000",
        getHeader: () => null,
        getLeafEntry: () => entries.at(-1),
        getLeafId: () => entries.at(-1)?.id ?? null,
        getEntry: () => undefined,
        getBranch: () => entries,
        getEntries: () => entries
      },
      model: { provider: "other", id: "m", contextWindow: 1000, maxTokens: 100 },
      getContextUsage: () => undefined,
      isProjectTrusted: () => false
    })
    const host = makePiHost(pi)
    dispose = host.dispose
    // "stop" with a context window makes Pi's test read usage.input, which this reply lacks.
    const reply = { role: "assistant", content: [], stopReason: "stop", timestamp: 0 } as never
    // No overflow recovery is armed for it.
    expect(await host.replyFinished(reply, ctx)).toMatchObject({ beforeSettle: false })
    expect(notices.filter((n) => n.includes("failed"))).toEqual([])
  })

  it("tells once, first, that the notes root cannot be written: the root boot that could read no home finds it, and the later check does not repeat it", async () => {
    const root = tempDir("pi-context-host-")
    process.env.PI_CODING_AGENT_DIR = join(root, "agent")
    const previousRoot = process.env.PI_CONTEXT_NOTES_ROOT
    process.env.PI_CONTEXT_NOTES_ROOT = join(root, "notes")
    writeFileSync(join(root, "notes"), "a file where the notes root belongs")
    const notices: Array<string> = []
    const pi = partialOf<ExtensionAPI>({ getSettings: () => ({}), appendEntry: () => {}, sendMessage: () => {} })
    const ctx = partialOf<ExtensionContext>({
      cwd: root,
      ui: { notify: (message: string) => void notices.push(message), setStatus: () => {} },
      sessionManager: {
        getSessionId: () => "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001",
        getHeader: () => null,
        getLeafEntry: () => undefined,
        getLeafId: () => null,
        getEntry: () => undefined,
        getBranch: () => [],
        getEntries: () => []
      },
      model: undefined,
      getContextUsage: () => undefined,
      isProjectTrusted: () => false
    })
    const host = makePiHost(pi)
    dispose = async () => {
      await host.dispose()
      if (previousRoot === undefined) delete process.env.PI_CONTEXT_NOTES_ROOT
      else process.env.PI_CONTEXT_NOTES_ROOT = previousRoot
    }
    await host.sessionStart("startup", ctx)
    // Start-up checks the root only when its boot could read no home (a healthy root is checked after start-up, by the
    // hooks): the real cause is told before anything else, and not "notes index incomplete".
    const told = [
      "pi-context cannot write notes: the notes root is a file, not a folder. " +
      "Point pi-context.notesRoot (or PI_CONTEXT_NOTES_ROOT) at a folder you can write, or fix its permissions; /pi-context doctor shows where it is."
    ]
    expect(notices.filter((notice) => notice.includes("cannot write notes"))).toEqual(told)
    expect(notices.filter((notice) => notice.includes("index incomplete"))).toEqual([])
    await host.notesWritability(ctx)
    expect(notices.filter((notice) => notice.includes("cannot write notes"))).toEqual([
      "pi-context cannot write notes: the notes root is a file, not a folder. " +
      "Point pi-context.notesRoot (or PI_CONTEXT_NOTES_ROOT) at a folder you can write, or fix its permissions; /pi-context doctor shows where it is."
    ])
    expect(notices.filter((notice) => notice.includes("failed"))).toEqual([])
  })
})
