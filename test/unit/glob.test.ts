import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { compileGlob, hasGlobSyntax } from "../../src/kernel/glob.ts"
import { addressMatcher } from "../../src/notes/paging.ts"
import { resolvePolicy } from "../../src/settings/policy.ts"

// Under a backtracking matcher each `*` multiplies the work: these never finish there.
const starBomb = (stars: string, count: number) => `${`${stars}a`.repeat(count)}!`
const name60 = "a".repeat(60)

describe("globs", () => {
  it("match the whole text: * and ? within a folder, ** across folders", () => {
    const glob = compileGlob("src/*/m?d.ts", { separator: "/" })
    assert.isTrue(glob("src/parser/mod.ts"))
    assert.isFalse(glob("src/a/b/mod.ts"))
    assert.isFalse(glob("src/parser/mod.tsx"))
    assert.isFalse(compileGlob("a?c", { separator: "/" })("a/c"))
    const deep = compileGlob("src/**.ts", { separator: "/" })
    assert.isTrue(deep("src/a/b/c.ts"))
    assert.isTrue(compileGlob("src/***", { separator: "/" })("src/a/b"))
    assert.isTrue(compileGlob("", {})(""))
    assert.isFalse(compileGlob("", {})("x"))
  })

  it("without a separator, * matches anything; case is kept unless told", () => {
    assert.isTrue(compileGlob("anthropic/*")("anthropic/claude/x"))
    assert.isFalse(compileGlob("Claude-*")("claude-sonnet"))
    assert.isTrue(compileGlob("Claude-*", { ignoreCase: true })("claude-sonnet"))
    assert.isTrue(hasGlobSyntax("a?") && hasGlobSyntax("*") && !hasGlobSyntax("plain"))
  })

  it("agree with the backtracking translation they replace, on small inputs", () => {
    // The reference: each token as a regex, as the code before this engine did it.
    const reference = (pattern: string, separator: boolean) =>
      new RegExp(`^${
        pattern.split(/(\*\*+|\*|\?)/).map((part) =>
          part.startsWith("**") ? ".*" : part === "*" ? (separator ? "[^/]*" : ".*") : part === "?" ? (separator ? "[^/]" : ".") : part
        ).join("")
      }$`, "s")
    const pattern = fc.stringMatching(/^[ab/*?]{0,8}$/)
    const text = fc.stringMatching(/^[ab/]{0,10}$/)
    fc.assert(fc.property(pattern, text, fc.boolean(), (p, t, separator) => {
      const glob = compileGlob(p, separator ? { separator: "/" } : {})
      return glob(t) === reference(p, separator).test(t)
    }), { numRuns: 5_000 })
  })

  it("answer a star bomb on a 60-character name without backtracking", () => {
    assert.isFalse(compileGlob(starBomb("**", 7), { separator: "/" })(name60))
    assert.isFalse(compileGlob(starBomb("**", 30), { separator: "/" })(name60))
    assert.isFalse(compileGlob(starBomb("*", 30))(name60))
    assert.isTrue(compileGlob(`${starBomb("*", 30).slice(0, -1)}*`)(name60))
  })
})

describe("notes_list patterns", () => {
  it("glob over the address with .md implied, or match a substring, ignoring case", () => {
    const match = addressMatcher("@project/*/PLAN")
    assert.isTrue(match("@project/docs/plan.md"))
    assert.isFalse(match("@project/docs/old/plan.md"))
    assert.isTrue(addressMatcher("**plan*")("@project/docs/old/plan.md"))
    assert.isTrue(addressMatcher("Docs/")("@project/docs/plan.md"))
    assert.isFalse(addressMatcher("?")("ab.md"))
  })

  it("answer the issue's glob bomb", () => {
    assert.isFalse(addressMatcher(starBomb("**", 7))(`${name60}.md`))
    assert.isFalse(addressMatcher(starBomb("**", 40))(`@project/${name60}.md`))
  })
})

describe("model override patterns", () => {
  it("resolve a policy whose settings hold a star bomb", () => {
    const model = { provider: "p", id: name60, contextWindow: 200_000 }
    const sources = [{ source: "global" as const, settings: { "pi-context": { models: { [starBomb("*", 30)]: { hardLine: 10_000 }, "*": { hardLine: 12_000 } } } } }]
    const policy = resolvePolicy(sources, model)
    assert.deepStrictEqual(policy.modelPatterns, ["*"])
    assert.strictEqual(policy.lines.hard.value, 12_000)
  })
})
