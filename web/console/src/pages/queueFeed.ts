// The live queue: the `queueStatus` subscription's latest snapshot, and the recent changes
// it reported (newest first), for the Queue page.

import { useEffect, useState } from "preact/hooks";
import { type ApiError, subscribe } from "../api";
import { graphql } from "../gql";
import type { ConsoleQueueSubscription } from "../gql/graphql";

export const QueueDocument = graphql(`
  subscription ConsoleQueue($first: Int!) {
    queueStatus(first: $first) {
      at
      counts { lane status count }
      queued { id lane position priority attempts sourceUrn sourceKind createdAt }
      running { id lane stage attempts sourceUrn sourceKind updatedAt }
      workersAlive
      changes { jobId status previousStatus stage lane at }
      changesDropped
      resynced
      degraded
    }
  }
`);

export type QueueSnapshot = ConsoleQueueSubscription["queueStatus"];
export type QueueChange = QueueSnapshot["changes"][number];

const KEPT_CHANGES = 30;

export interface QueueFeed {
  snapshot: QueueSnapshot | null;
  recent: QueueChange[];
  error: ApiError | null;
}

/** Subscribe to `queueStatus(first)` while the component is mounted. */
export function useQueueFeed(first: number): QueueFeed {
  const [feed, setFeed] = useState<QueueFeed>({ snapshot: null, recent: [], error: null });
  useEffect(
    () =>
      subscribe(
        QueueDocument,
        { first },
        (data) =>
          setFeed((old) => ({
            snapshot: data.queueStatus,
            recent: [...[...data.queueStatus.changes].reverse(), ...old.recent].slice(
              0,
              KEPT_CHANGES,
            ),
            error: null,
          })),
        (error) => setFeed((old) => ({ ...old, error })),
      ),
    [first],
  );
  return feed;
}
