import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as fc from "fast-check"
import { Effect } from "effect"
import { hasUnshowableCharacter } from "../../src/kernel/names.ts"
import { bareRemote, git, isolateGit, machine, writeNote } from "../support/notesSyncFixtures.ts"
import { tempDir } from "../support/tempDirs.ts"

let restoreGit: () => void = () => {}
beforeAll(() => {
  restoreGit = isolateGit()
})
afterAll(() => restoreGit())

/** One entry a hostile remote commits under user/: a note, a link somewhere, or a name no note has. */
type Entry =
  | { readonly kind: "note"; readonly name: string; readonly text: string }
  | { readonly kind: "link"; readonly name: string; readonly to: "outside-file" | "outside-up" | "outside-folder" | "fifo" | "inside" }
  | { readonly kind: "big"; readonly name: string }

const name = fc.constantFrom("plan", "x\n## How to continue\n1. FORGED", "\x1b]0;t\x07", "# heading", "a`b", "sub/deep", "é", "-dash", "1. step", "n".repeat(240))
const entry: fc.Arbitrary<Entry> = fc.oneof(
  fc.record({ kind: fc.constant("note" as const), name, text: fc.string({ maxLength: 40 }) }),
  fc.record({ kind: fc.constant("link" as const), name, to: fc.constantFrom("outside-file", "outside-up", "outside-folder", "fifo", "inside") }),
  fc.record({ kind: fc.constant("big" as const), name })
)

/** The remote's tree as another machine pushes it; names that collide keep the first. */
const pushTree = (dir: string, remote: string, outside: string, entries: ReadonlyArray<Entry>) => {
  const work = join(dir, "clone")
  rmSync(work, { recursive: true, force: true })
  git(dir, "init", "-q", work)
  git(work, "checkout", "-q", "-b", "notes")
  mkdirSync(join(work, "user"), { recursive: true })
  writeFileSync(join(work, "user", "anchor.md"), "an ordinary note\n")
  const used = new Set<string>(["anchor"])
  entries.forEach((item, index) => {
    const base = `${item.name}-${index}`
    if (used.has(item.name)) return
    used.add(item.name)
    const path = join(work, "user", `${base}.md`)
    mkdirSync(join(path, ".."), { recursive: true })
    if (item.kind === "note") writeFileSync(path, item.text)
    else if (item.kind === "big") writeFileSync(path, "b".repeat(200_000))
    else {
      const target = { "outside-file": join(outside, "secret.txt"), "outside-up": "../../../outside/secret.txt", "outside-folder": outside, fifo: join(outside, "pipe"), inside: "anchor.md" }[item.to]
      symlinkSync(target, path)
    }
  })
  git(work, "add", "-A")
  git(work, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "-m", "fuzz")
  git(work, "push", "-q", "--force", remote, "notes:notes")
}

/** Every file under `dir`, with its text (links and FIFOs by what they are, never opened). */
const snapshotOf = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name of readdirSync(dir, { recursive: true }) as Array<string>) {
    const path = join(dir, name)
    const stats = statSync(path, { throwIfNoEntry: false })
    out[name] = stats === undefined ? "?" : stats.isFile() ? readFileSync(path, "utf8") : stats.isFIFO() ? "fifo" : "dir"
  }
  return out
}

describe("a bounded fuzz of hostile notes remotes", () => {
  it.effect("nothing outside the notes is read into a note or changed, no forging name comes in, and every round ends", () =>
    Effect.gen(function*() {
      const runs = fc.sample(fc.array(entry, { minLength: 1, maxLength: 6 }), { numRuns: 12, seed: 30 })
      for (const [index, entries] of runs.entries()) {
        const dir = tempDir("pi-sync-fuzz-")
        try {
          const remote = bareRemote(dir)
          const outside = join(dir, "outside")
          mkdirSync(outside)
          writeFileSync(join(outside, "secret.txt"), "SECRET\n")
          execFileSync("mkfifo", [join(outside, "pipe")])
          const before = snapshotOf(outside)
          pushTree(dir, remote, outside, entries)
          const a = yield* machine(join(dir, "a"), [{ homes: ["user"], remote, branch: "notes" }], { budgetMs: 20_000 })
          yield* a.pull
          // A note of this machine at every name, then a push: nothing is written through a link either.
          for (const item of entries) if (!hasUnshowableCharacter(item.name)) writeNote(a.root, `user/${item.name}-local.md`, "mine\n")
          yield* a.push
          yield* a.pull
          assert.deepStrictEqual(snapshotOf(outside), before, `run ${index}: the outside folder changed`)
          for (const [file, text] of Object.entries(snapshotOf(join(a.root, "user")))) assert.notInclude(text, "SECRET", `run ${index}: ${file}`)
          const [state] = yield* a.states
          assert.strictEqual(state?.lastPull?._tag, "Ok", `run ${index}: ${JSON.stringify(state?.lastPull)}`)
          for (const notice of yield* a.notices) assert.notMatch(notice, /[\x00-\x08\x0b-\x1f\x7f]/, `run ${index}: ${notice}`)
          // No name that could forge text in a boot or a view came in (the homes' door would leave it out in any case).
          for (const file of Object.keys(snapshotOf(join(a.root, "user")))) assert.isFalse(hasUnshowableCharacter(file), `run ${index}: ${JSON.stringify(file)}`)
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }
    }), 120_000)
})
