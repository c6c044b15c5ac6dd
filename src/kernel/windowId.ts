/**
 * Window ids are opaque strings. The root id is derived from the session id,
 * so a fork (a new session id) starts under a fresh root identity, while the
 * same session always names its root the same way.
 *
 * Pi's session ids are UUIDv7: the leading hex digits are a timestamp, shared
 * by sessions created in the same minute, so the id keeps the random tail.
 */
const sessionPart = (sessionId: string): string => {
  const hex = sessionId.replace(/[^0-9a-zA-Z]/g, "")
  return (hex.length > 12 ? hex.slice(-12) : hex).toLowerCase() || "session"
}

/** The id of the window that runs from the start of a session to its first reset marker. */
export const rootWindowId = (sessionId: string): string => `pcx:${sessionPart(sessionId)}:root`

/** The id of a window opened by a reset; `random8hex` comes from the caller's `Random`. */
export const newWindowId = (sessionId: string, random8hex: string): string =>
  `pcx:${sessionPart(sessionId)}:${random8hex}`

/**
 * Whether `windowId` names a window a reset in this session could have opened
 * (never the root, which has no marker). A marker with any other id was copied
 * or forged: repair never writes a boot for it.
 */
export const isResetWindowOf = (sessionId: string, windowId: string): boolean => {
  const prefix = `pcx:${sessionPart(sessionId)}:`
  return windowId.startsWith(prefix) && /^[0-9a-f]{8}$/.test(windowId.slice(prefix.length))
}
