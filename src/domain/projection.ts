import { CustomType } from "./protocol.ts"

/** The fields of a Pi agent message that the projection reads. */
export interface ProjectableMessage {
  readonly role: string
  readonly customType?: unknown
  readonly details?: unknown
}

export type Projection<M> =
  /** Send the request as Pi built it. */
  | { readonly _tag: "Unchanged" }
  | { readonly _tag: "Projected"; readonly messages: ReadonlyArray<M> }
  /** A reset window without its boot: send only the system prompt and stop. */
  | { readonly _tag: "MissingBoot"; readonly safeHead: ReadonlyArray<M> }

const bootWindowId = (message: ProjectableMessage): string | undefined => {
  if (message.role !== "custom" || message.customType !== CustomType.boot) return undefined
  const details = message.details
  if (typeof details !== "object" || details === null) return undefined
  const windowId = (details as { windowId?: unknown }).windowId
  return typeof windowId === "string" && windowId.length > 0 ? windowId : undefined
}

const isBoot = (message: ProjectableMessage): boolean => message.role === "custom" && message.customType === CustomType.boot

/**
 * The provider request for the active window. A reset window starts at its
 * boot (found by `details.windowId`, scanning back from the end, so the cost
 * is the window's length); of what came before only the newest system prompt
 * survives. The root window keeps its history but only its own boot: a boot
 * copied from a parent session by a fork is replaced by this session's.
 */
export const projectRequest = <M extends ProjectableMessage>(
  messages: ReadonlyArray<M>,
  window: { readonly id: string; readonly isRoot: boolean }
): Projection<M> => {
  if (window.isRoot) return projectRoot(messages, window.id)
  let bootIndex = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (bootWindowId(messages[i]!) === window.id) {
      bootIndex = i
      break
    }
  }
  let system: M | undefined
  for (let i = (bootIndex === -1 ? messages.length : bootIndex) - 1; i >= 0; i--) {
    if (messages[i]!.role === "system") {
      system = messages[i]
      break
    }
  }
  const head = system === undefined ? [] : [system]
  if (bootIndex === -1) return { _tag: "MissingBoot", safeHead: head }
  if (bootIndex === 0 || (bootIndex === 1 && system === messages[0])) return { _tag: "Unchanged" }
  return { _tag: "Projected", messages: [...head, ...messages.slice(bootIndex)] }
}

const projectRoot = <M extends ProjectableMessage>(messages: ReadonlyArray<M>, rootId: string): Projection<M> => {
  let firstBoot = -1
  let latestOwn: M | undefined
  let boots = 0
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (!isBoot(message)) continue
    boots++
    if (firstBoot === -1) firstBoot = i
    if (bootWindowId(message) === rootId) latestOwn = message
  }
  if (boots === 0) return { _tag: "Unchanged" }
  if (boots === 1 && latestOwn !== undefined && messages[firstBoot] === latestOwn) return { _tag: "Unchanged" }
  const kept: Array<M> = []
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    if (i === firstBoot && latestOwn !== undefined) kept.push(latestOwn)
    if (!isBoot(message)) kept.push(message)
  }
  return { _tag: "Projected", messages: kept }
}
