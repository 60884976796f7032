// The queue's steering mutations (prioritize, move, cancel, retry) and how their result
// unions read: the job on success, else the error member's message.

import { query } from "../api";
import { graphql } from "../gql";


export const PrioritizeDocument = graphql(`
  mutation ConsolePrioritize($jobId: ID!) {
    prioritizeQueueItem(jobId: $jobId) {
      __typename
      ... on IngestionJob { id status position lane }
      ... on Error { code message field }
    }
  }
`);

export const ReorderDocument = graphql(`
  mutation ConsoleReorder($jobId: ID!, $position: Int!) {
    reorderQueueItem(jobId: $jobId, position: $position) {
      __typename
      ... on IngestionJob { id status position lane }
      ... on Error { code message field }
    }
  }
`);

export const CancelDocument = graphql(`
  mutation ConsoleCancel($jobId: ID!) {
    cancelJob(jobId: $jobId) {
      __typename
      ... on IngestionJob { id status position lane }
      ... on Error { code message field }
    }
  }
`);

export const RetryDocument = graphql(`
  mutation ConsoleRetry($jobId: ID!) {
    retryJob(jobId: $jobId) {
      __typename
      ... on IngestionJob { id status position lane }
      ... on Error { code message field }
    }
  }
`);


type Member = { __typename: "IngestionJob" } | { __typename: string; message?: string };

function refusal(member: Member): string | null {
  if (member.__typename === "IngestionJob") return null;
  return "message" in member && member.message ? member.message : member.__typename;
}

export type JobAction = "prioritize" | "cancel" | "retry" | { moveTo: number };

/** Run one action on a job; null when done, else why the server refused it. */
export async function controlJob(jobId: string, action: JobAction): Promise<string | null> {
  if (action === "prioritize") {
    return refusal((await query(PrioritizeDocument, { jobId })).prioritizeQueueItem);
  }
  if (action === "cancel") return refusal((await query(CancelDocument, { jobId })).cancelJob);
  if (action === "retry") return refusal((await query(RetryDocument, { jobId })).retryJob);
  const position = action.moveTo;
  return refusal((await query(ReorderDocument, { jobId, position })).reorderQueueItem);
}
