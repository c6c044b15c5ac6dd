import { Effect, Ref } from "effect"
import type { PiSession } from "../services/PiSession.ts"

/** A subscriber to a room's events, run in the publisher's fiber with its Pi session. */
export type Subscriber<Event> = (event: Event) => Effect.Effect<void, never, PiSession>

/**
 * The subscribers of one room's events (the Window room's, the note
 * versions'). `publish` runs every subscriber on an event in the order they
 * subscribed, in the publisher's fiber and with its Pi session, so what
 * follows the event sees their effects; a subscriber's defect is its own,
 * and the next one still runs. A subscription ends with its scope.
 */
export const makeSubscribers = <Event>() =>
  Effect.map(Ref.make<ReadonlyArray<Subscriber<Event>>>([]), (subscribers) => ({
    subscribe: (subscriber: Subscriber<Event>) =>
      Effect.acquireRelease(
        Ref.update(subscribers, (all) => [...all, subscriber]),
        () => Ref.update(subscribers, (all) => all.filter((other) => other !== subscriber))
      ),
    publish: (event: Event) =>
      Effect.gen(function*() {
        for (const subscriber of yield* Ref.get(subscribers)) yield* Effect.exit(subscriber(event))
      })
  }))
