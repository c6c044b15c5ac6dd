import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Layer } from "effect"
import type { NotesIdentity } from "../../src/domain/notes/identity.ts"
import * as NotesHomesLive from "../../src/layers/NotesHomesLive.ts"
import { layerWithoutDependencies as notesLayer } from "../../src/layers/NotesStoreLive.ts"

/** Node's file system and paths, for stores and tests on real temp directories. */
export const nodeLayer = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)

/** The live notes store on Node's file system, with this session's homes on it and the file system too. */
export const liveNotesLayer = NotesHomesLive.layerWithoutDependencies.pipe(Layer.provideMerge(notesLayer), Layer.provideMerge(nodeLayer))

/** A fixed notes identity under `root`. */
export const identityAt = (root: string): NotesIdentity => ({
  root,
  sessionId: "sess-1",
  projectKey: "repo-0000abcd",
  agentName: "pi",
  modelSlug: "test-model"
})
