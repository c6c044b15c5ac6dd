import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { Layer } from "effect"

/** Node's file system and paths, for the layers that read and write files. */
export const layer = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)
