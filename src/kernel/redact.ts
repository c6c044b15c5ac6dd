/**
 * Credentials kept out of everything pi-context shows: a sync remote's URL may
 * hold `user:password@` (or a token as the user), and git's own words may
 * repeat it, decoded or not, or print an `Authorization` header. Pure.
 */

export const Hidden = "***"

/** `scheme://userinfo@` up to the authority's end; the last `@` before it ends the userinfo (a raw `@` in a password). */
const urlWithUserinfo = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#'"<>]*)@/gi

/** The same in one remote as written, where quotes and spaces are the user's own characters. */
const remoteUserinfo = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i

/** Schemes whose user is a login name, not a secret: `ssh://git@host/x` is fine to show. */
const namedUserSchemes = new Set(["ssh://", "git+ssh://", "ssh+git://"])

/** A login name as ssh users are: short, no password, nothing token-like. */
const plainLogin = /^[a-z_][a-z0-9._-]{0,31}$/i

const shownUserinfo = (scheme: string, userinfo: string): string =>
  namedUserSchemes.has(scheme.toLowerCase()) && plainLogin.test(userinfo) ? userinfo : Hidden

/** Query values that are secrets by name (`?access_token=…`). */
const secretQuery = /([?&](?:[a-z0-9_-]*(?:token|key|secret|password|passwd|auth|sig|signature|credential)[a-z0-9_-]*)=)[^&#\s'"]+/gi

/** Header lines that carry a credential however git or a trace prints them (`http.extraHeader=…`, `> Authorization: Basic …`). */
const secretHeaders: ReadonlyArray<RegExp> = [
  /(extraheader\s*[=:]?\s*)[^\r\n]+/gi,
  /((?:proxy-)?authorization\s*:\s*(?:(?:basic|bearer|token|digest|negotiate)\s+)?)[^\s'"]+/gi,
  /((?:private|job|deploy)-token\s*:\s*)[^\s'"]+/gi
]

const redactUrls = (text: string): string =>
  text
    .replace(urlWithUserinfo, (_match, scheme: string, userinfo: string) => `${scheme}${shownUserinfo(scheme, userinfo)}@`)
    .replace(secretQuery, `$1${Hidden}`)

/**
 * A remote as it may be shown: `https://user:pass@host/x` is `https://***@host/x`,
 * and so is a token given as the user; `ssh://git@host/x` and scp-like
 * `git@host:path` keep their login name.
 */
export const redactRemote = (remote: string): string => {
  const redacted = redactUrls(
    remote.replace(remoteUserinfo, (_match, scheme: string, userinfo: string) => `${scheme}${shownUserinfo(scheme, userinfo)}@`)
  )
  // scp-like `user:secret@host:path` is no URL, but what precedes its `@` is still no one's to see.
  const scp = /^[^/@:\s]+:[^/@\s]*@/.exec(redacted)
  return scp !== null && !redacted.includes("://") ? `${Hidden}@${redacted.slice(scp[0].length)}` : redacted
}

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** A remote's user and password, when they are secret: as written, decoded, encoded, and as a Basic header carries them. */
const credentialsOf = (remote: string): ReadonlyArray<string> => {
  const match = remoteUserinfo.exec(remote.trim())
  if (match === null) return []
  const [, scheme = "", userinfo = ""] = match
  if (shownUserinfo(scheme, userinfo) === userinfo) return []
  const colon = userinfo.indexOf(":")
  const user = colon < 0 ? userinfo : userinfo.slice(0, colon)
  const password = colon < 0 ? "" : userinfo.slice(colon + 1)
  const forms = [userinfo, user, password].flatMap((part) => [part, decoded(part), encodeURIComponent(decoded(part))])
  return [...forms, Buffer.from(`${decoded(user)}:${decoded(password)}`).toString("base64")]
}

const queryValuesOf = (remote: string): ReadonlyArray<string> =>
  [...remote.matchAll(secretQuery)].flatMap((match) => {
    const value = match[0].slice(match[1]!.length)
    return [value, decoded(value)]
  })

/** Every form a remote's credentials could take in someone else's words, longest first. */
const secretsOf = (remote: string): ReadonlyArray<string> =>
  // A one- or two-letter user would scrub every such letter from the text: those are only hidden inside URLs.
  [...new Set([...credentialsOf(remote), ...queryValuesOf(remote)])].filter((secret) => secret.length >= 3).sort((a, b) => b.length - a.length)

/**
 * Any text (git's stderr, a trace line, a notice) with every credential
 * scrubbed: those of the configured `remotes` in any form, and any URL's or
 * header's credentials.
 */
export const redactText = (text: string, remotes: ReadonlyArray<string>): string => {
  let scrubbed = text
  for (const secret of remotes.flatMap(secretsOf)) scrubbed = scrubbed.split(secret).join(Hidden)
  for (const header of secretHeaders) scrubbed = scrubbed.replace(header, `$1${Hidden}`)
  return redactUrls(scrubbed)
}
