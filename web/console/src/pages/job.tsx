// A job's detail: its state read once, then streamed from `ingestionProgress` until it
// reaches a terminal status (the stream then completes); cancel and retry for writers.

import { useEffect, useState } from "preact/hooks";
import { type ApiError, query, subscribe } from "../api";
import { graphql } from "../gql";
import type { ConsoleJobQuery } from "../gql/graphql";
import { ErrorLine, WriteOnly } from "../layout";
import type { PageProps } from "../page";
import { href } from "../route";
import { controlJob } from "./jobControl";

const JobQueryDocument = graphql(`
  query ConsoleJob($jobId: ID!) {
    ingestionStatus(jobId: $jobId) {
      id status stage lane priority position attempts nextAttemptAt lastError
      sourceUrn sourceKind sourceId createdAt updatedAt finishedAt
    }
  }
`);

const JobProgressDocument = graphql(`
  subscription ConsoleJobProgress($jobId: ID!) {
    ingestionProgress(jobId: $jobId) {
      id status stage lane priority position attempts nextAttemptAt lastError
      sourceUrn sourceKind sourceId createdAt updatedAt finishedAt
    }
  }
`);

type Job = NonNullable<ConsoleJobQuery["ingestionStatus"]>;
const TERMINAL = new Set(["INDEXED", "SKIPPED_DUPLICATE", "FAILED", "CANCELLED"]);

function useJob(jobId: string) {
  const [job, setJob] = useState<Job | null | undefined>(undefined);
  const [live, setLive] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    let stopped = false;
    query(JobQueryDocument, { jobId }).then(
      (data) => !stopped && setJob((old) => old ?? data.ingestionStatus),
      (failure: ApiError) => setError(failure),
    );
    setLive(true);
    const stop = subscribe(
      JobProgressDocument,
      { jobId },
      (data) => setJob(data.ingestionProgress),
      (failure) => {
        setError(failure);
        setLive(false);
      },
      () => setLive(false),
    );
    return () => {
      stopped = true;
      stop();
    };
  }, [jobId]);
  return { job, live, error };
}

const FIELDS: [keyof Job, string][] = [
  ["status", "Status"], ["stage", "Stage"], ["lane", "Lane"], ["position", "Position"],
  ["priority", "Priority"], ["attempts", "Attempts"], ["nextAttemptAt", "Next attempt"],
  ["lastError", "Last error"], ["sourceUrn", "Source"], ["sourceKind", "Kind"],
  ["createdAt", "Created"], ["updatedAt", "Updated"], ["finishedAt", "Finished"],
];

export function JobPage(props: PageProps) {
  const jobId = props.params[0] ?? "";
  const { job, live, error } = useJob(jobId);
  const [refusal, setRefusal] = useState<string | null>(null);
  const act = (action: "cancel" | "retry") => {
    setRefusal(null);
    controlJob(jobId, action).then(setRefusal, (failure: unknown) => setRefusal(String(failure)));
  };
  return (
    <div data-testid="job-page">
      <p><a href={href("queue")}>← Queue</a></p>
      <h1>Job {jobId}</h1>
      <p class="hint" data-testid="live">{live ? "Live: streaming progress" : "Not streaming (finished or stopped)"}</p>
      <ErrorLine error={error} />
      <ErrorLine error={refusal} />
      {job === null && <p class="error">No such job, or not visible to this key.</p>}
      {job && (
        <>
          <table data-testid="job">
            <tbody>
              {FIELDS.map(([field, label]) => (
                <tr key={field}>
                  <th>{label}</th>
                  <td data-field={field}>{String(job[field] ?? "—")}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <WriteOnly>
            <p class="actions">
              {!TERMINAL.has(job.status) && <button type="button" onClick={() => act("cancel")}>Cancel</button>}
              {(job.status === "FAILED" || job.status === "CANCELLED") && (
                <button type="button" onClick={() => act("retry")}>Retry</button>
              )}
            </p>
          </WriteOnly>
        </>
      )}
    </div>
  );
}
