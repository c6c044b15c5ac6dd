import { Effect, Result } from "effect"
import { parseAddress } from "../address.ts"
import { historyHomes, homePathspecs, isCommitRef, type HistoryLayout, notePaths } from "./versions.ts"
import { type GitRunner, VersionsUnavailable } from "./NotesVersions.ts"
import { hidePaths, type Ready } from "./repo.ts"
import { inProjectHome, noSuchCommit, notACommit, notAnAddressOrHome } from "./versionsView.ts"
import { type NoteAddress, parseHome } from "../../kernel/homes.ts"

/**
 * What a history command names (a note, a home, every home, a commit), as
 * the pathspecs and places git reads, or the sentence saying why not.
 */

export const unavailable = (message: string) => new VersionsUnavailable({ message })

const literal = (path: string) => `:(literal)${path}`

export interface HistoryScope {
  readonly title: string
  readonly specs: ReadonlyArray<string>
  /** For one note: where it lives and where it is when retired. */
  readonly places?: { readonly live: string; readonly retired: string }
  readonly address?: NoteAddress
}

/** Pathspecs of an address (its home and wastebasket places) or a home; every home when absent. */
export const scopeOf = (layout: HistoryLayout, target: string | undefined): Effect.Effect<HistoryScope, VersionsUnavailable> =>
  Effect.suspend(() => {
    const identity = layout.identity
    if (target === undefined) return Effect.succeed({ title: "Note versions", specs: homePathspecs(layout, historyHomes(identity)) })
    const home = target.startsWith("@") && !target.slice(1).includes("/") || target === "session" ? parseHome(target) : undefined
    const projectInside = (h: string) => h === "project" && identity.projectDir !== undefined
    if (home !== undefined) {
      if (projectInside(home)) return Effect.fail(unavailable(inProjectHome))
      return Effect.succeed({ title: `Versions of ${home === "session" ? "this session's notes" : `@${home}`}`, specs: homePathspecs(layout, [home]) })
    }
    const parsed = parseAddress(target)
    if (Result.isFailure(parsed)) return Effect.fail(unavailable(notAnAddressOrHome(target, parsed.failure.reason)))
    if (projectInside(parsed.success.home)) return Effect.fail(unavailable(inProjectHome))
    const places = notePaths(layout, parsed.success.home, parsed.success.path)
    return Effect.succeed({ title: `Versions of ${target}`, specs: [literal(places.live), literal(places.retired)], places, address: parsed.success })
  })

/** A commit the user named, as its full hash, after checking it is a plain revision (never an option or a range). */
export const resolveCommit = (
  run: (args: ReadonlyArray<string>) => Effect.Effect<{ readonly stdout: string }, VersionsUnavailable>,
  commit: string
): Effect.Effect<string, VersionsUnavailable> =>
  isCommitRef(commit)
    ? run(["rev-parse", "--verify", "--quiet", `${commit}^{commit}`]).pipe(
      Effect.map(({ stdout }) => stdout.trim()),
      Effect.mapError(() => unavailable(noSuchCommit(commit)))
    )
    : Effect.fail(unavailable(notACommit(commit)))

/** A git command in the versions' repository, its failure worded for the user (paths of the root hidden). */
export const gitIn = (git: GitRunner, repo: Ready, args: ReadonlyArray<string>, stdin?: string) =>
  git(repo.toplevel, args, stdin).pipe(Effect.mapError((error) => unavailable(`pi-context: ${hidePaths(error.message, repo.toplevel)}`)))

/** The short hash of HEAD. */
export const headOf = (git: GitRunner, repo: Ready) =>
  Effect.map(gitIn(git, repo, ["rev-parse", "--short", "HEAD"]), ({ stdout }) => stdout.trim())
