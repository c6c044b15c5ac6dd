import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { redactRemote, redactText } from "../../src/kernel/redact.ts"

/** What git and its helpers print about a remote, in the forms seen in the wild. */
const gitSays = (url: string, user: string, password: string): ReadonlyArray<string> => [
  `fatal: Authentication failed for '${url}/'`,
  `fatal: unable to access '${url}/': Could not resolve host: example.com`,
  `remote: Invalid username or password.\nfatal: Authentication failed for 'https://${user}:${password}@example.com/notes.git/'`,
  `To ${url}\n ! [rejected]        main -> main (fetch first)`,
  `http.https://example.com/.extraheader=AUTHORIZATION: basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
  `> Authorization: Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
  `> Authorization: Bearer ${password}`,
  `Private-Token: ${password}`,
  `fatal: repository '${url}' not found`,
  `fetching ${url}?access_token=${encodeURIComponent(password)}`
]

describe("redaction of remote credentials", () => {
  it("hides a URL's user:password and a token given as its user, and keeps ssh logins and scp-like remotes", () => {
    assert.strictEqual(redactRemote("https://user:pass@host/x"), "https://***@host/x")
    assert.strictEqual(redactRemote("https://ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/me/notes.git"), "https://***@github.com/me/notes.git")
    assert.strictEqual(redactRemote("https://oauth2:glpat-abc%40def@gitlab.com/x.git"), "https://***@gitlab.com/x.git")
    assert.strictEqual(redactRemote("https://us@er:p@ss@host/x"), "https://***@host/x")
    assert.strictEqual(redactRemote("ssh://git@github.com/me/notes.git"), "ssh://git@github.com/me/notes.git")
    assert.strictEqual(redactRemote("ssh://git:pw@github.com/me/notes.git"), "ssh://***@github.com/me/notes.git")
    assert.strictEqual(redactRemote("git@github.com:me/notes.git"), "git@github.com:me/notes.git")
    assert.strictEqual(redactRemote("user:secret@host:notes.git"), "***@host:notes.git")
    assert.strictEqual(redactRemote("/srv/git/notes.git"), "/srv/git/notes.git")
    assert.strictEqual(redactRemote("https://host/x.git?private_token=abc123"), "https://host/x.git?private_token=***")
    assert.strictEqual(redactRemote("https://host/x.git"), "https://host/x.git")
  })

  it("scrubs git's words of every credential: in URLs, decoded, in headers and in http.extraHeader", () => {
    const url = "https://alice:p%40ss%3Aw0rd@example.com/notes.git"
    const text = [
      `fatal: Authentication failed for 'https://alice:p@ss:w0rd@example.com/notes.git/'`,
      `fatal: unable to access '${url}/'`,
      "http.extraheader=Authorization: Basic YWxpY2U6cEBzczp3MHJk",
      "password p@ss:w0rd was refused"
    ].join("\n")
    const scrubbed = redactText(text, [url])
    for (const secret of ["p@ss:w0rd", "p%40ss%3Aw0rd", "YWxpY2U6cEBzczp3MHJk", "alice"]) assert.notInclude(scrubbed, secret)
    assert.include(scrubbed, "https://***@example.com/notes.git")
    // Text without credentials is left as it was.
    assert.strictEqual(redactText("fatal: 'origin' does not appear to be a git repository", [url]), "fatal: 'origin' does not appear to be a git repository")
  })

  it("leaves no random credential in anything git could print about the remote", () => {
    const credential = fc.string({ minLength: 6, maxLength: 40, unit: fc.constantFrom(..."abcXYZ0189-_.~!$&'()*+,;=:@%/? éü€".split("")) })
    fc.assert(
      fc.property(credential, credential, (user, password) => {
        const url = `https://${encodeURIComponent(user)}:${encodeURIComponent(password)}@example.com/notes.git`
        const said = gitSays(url, user, password)
        const secrets = [user, password, encodeURIComponent(user), encodeURIComponent(password), Buffer.from(`${user}:${password}`).toString("base64")]
        // A credential that is part of git's own fixed words is no leak to look for.
        const fixedWords = gitSays("https://example.com/notes.git", "", "").join("\n")
        fc.pre(secrets.every((secret) => !fixedWords.includes(secret)))
        for (const line of said) {
          const scrubbed = redactText(line, [url])
          if (secrets.some((secret) => scrubbed.includes(secret))) return false
        }
        return !secrets.some((secret) => redactRemote(url).includes(secret))
      }),
      { numRuns: 300 }
    )
  })
})
