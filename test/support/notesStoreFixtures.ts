import type { NotesIdentity } from "../../src/notes/identity.ts"
import * as NotesHomesLive from "../../src/notes/NotesHomesLive.ts"
import * as Platform from "../../src/kernel/platform.ts"

/** Node's file system and paths, for stores and tests on real temp directories. */
export const nodeLayer = Platform.layer

/** The live notes store on Node's file system, with this session's homes on it and the file system too. */
export const liveNotesLayer = NotesHomesLive.layerTest

/** A fixed notes identity under `root`. */
export const identityAt = (root: string): NotesIdentity => ({
  root,
  sessionId: "sess-1",
  projectKey: "repo-0000abcd",
  agentName: "pi",
  modelSlug: "test-model"
})
