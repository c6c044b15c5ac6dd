import type { RawEntry } from "./entries.ts"

/** The message of a `message` entry whose role is `role`; its other fields are still the caller's to check. */
export const messageOfRole = <Shape extends { readonly role?: unknown }>(entry: RawEntry, role: string): Shape | undefined => {
  if (entry.type !== "message" || typeof entry.message !== "object" || entry.message === null) return undefined
  const message = entry.message as Shape
  return message.role === role ? message : undefined
}
