import { Layer } from "effect"
import * as BootsLive from "../../src/layers/BootsLive.ts"
import * as BudgetLive from "../../src/layers/BudgetLive.ts"
import * as LifecycleLive from "../../src/layers/LifecycleLive.ts"
import * as WindowLive from "../../src/layers/WindowLive.ts"
import type { NotesStore } from "../../src/services/NotesStore.ts"

/**
 * The lifecycle over the test layers of what it orchestrates (one policy and
 * one trace, shared: layers are built once per reference), with the notes
 * store the test gives. Its place is beside LifecycleLive's live layer once
 * that file's rework has landed.
 */
export const lifecycleTest = (notes: Layer.Layer<NotesStore>) =>
  LifecycleLive.layerWithoutDependencies.pipe(
    Layer.provideMerge(Layer.mergeAll(BootsLive.layerTest, BudgetLive.layerTest, WindowLive.layer)),
    Layer.provideMerge(notes)
  )
