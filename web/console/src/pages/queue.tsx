// Queue: counts by lane and status, each lane's queued jobs in claim order with their
// positions, the running jobs with their stage and the recent changes, all live from the
// `queueStatus` subscription; agent and admin keys also prioritize, move, cancel and retry.

import { useState } from "preact/hooks";
import { Degraded, ErrorLine, WriteOnly } from "../layout";
import type { PageProps } from "../page";
import { href } from "../route";
import { type JobAction, controlJob } from "./jobControl";
import { type QueueChange, type QueueSnapshot, useQueueFeed } from "./queueFeed";

const LANES = ["PRIORITY", "BULK"] as const;
const STATUSES = ["QUEUED", "RUNNING", "INDEXED", "SKIPPED_DUPLICATE", "FAILED", "CANCELLED"] as const;
const SHOWN_PER_LANE = 50;

type Act = (jobId: string, action: JobAction) => void;

function useActions(): { act: Act; busy: string | null; refusal: string | null } {
  const [busy, setBusy] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const act: Act = (jobId, action) => {
    setBusy(jobId);
    setRefusal(null);
    controlJob(jobId, action)
      .then((why) => setRefusal(why && `Job ${jobId}: ${why}`))
      .catch((error: unknown) => setRefusal(`Job ${jobId}: ${String(error)}`))
      .finally(() => setBusy(null));
  };
  return { act, busy, refusal };
}

function Counts(props: { snapshot: QueueSnapshot }) {
  const count = (lane: string, status: string) =>
    props.snapshot.counts.find((c) => c.lane === lane && c.status === status)?.count ?? 0;
  return (
    <table data-testid="counts">
      <thead>
        <tr>
          <th>Lane</th>
          {STATUSES.map((status) => (
            <th key={status} class="num">
              {status.toLowerCase().replace("_", " ")}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {LANES.map((lane) => (
          <tr key={lane} data-lane={lane}>
            <td>{lane.toLowerCase()}</td>
            {STATUSES.map((status) => (
              <td key={status} class="num" data-status={status}>
                {count(lane, status)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function MoveTo(props: { jobId: string; act: Act; disabled: boolean }) {
  const [position, setPosition] = useState("");
  return (
    <form
      class="actions"
      onSubmit={(event) => {
        event.preventDefault();
        const target = Number.parseInt(position, 10);
        if (Number.isInteger(target) && target >= 1) props.act(props.jobId, { moveTo: target });
        setPosition("");
      }}
    >
      <input
        aria-label="position"
        type="number"
        min={1}
        size={3}
        class="position"
        value={position}
        onInput={(event) => setPosition(event.currentTarget.value)}
      />
      <button type="submit" disabled={props.disabled || position === ""}>
        Move
      </button>
    </form>
  );
}

type QueuedJob = QueueSnapshot["queued"][number];

function QueuedRow(props: { job: QueuedJob; last: number; act: Act; busy: boolean }) {
  const { job, act, busy } = props;
  const position = job.position ?? 0;
  return (
    <tr data-job={job.id} data-position={position}>
      <td class="num">{position}</td>
      <td>
        <a href={href("jobs", job.id)}>{job.id}</a>
      </td>
      <td>{job.sourceUrn ?? job.sourceKind ?? "—"}</td>
      <td class="num">{job.priority}</td>
      <td class="num">{job.attempts}</td>
      <WriteOnly>
        <td class="actions">
          <button type="button" title="Move to the front" disabled={busy || position <= 1} onClick={() => act(job.id, "prioritize")}>
            Prioritize
          </button>
          <button type="button" title="Move up one" disabled={busy || position <= 1} onClick={() => act(job.id, { moveTo: position - 1 })}>
            ↑
          </button>
          <button type="button" title="Move down one" disabled={busy || position >= props.last} onClick={() => act(job.id, { moveTo: position + 1 })}>
            ↓
          </button>
          <MoveTo jobId={job.id} act={act} disabled={busy} />
          <button type="button" disabled={busy} onClick={() => act(job.id, "cancel")}>
            Cancel
          </button>
        </td>
      </WriteOnly>
    </tr>
  );
}

function Lane(props: { lane: string; snapshot: QueueSnapshot; act: Act; busy: string | null }) {
  const jobs = props.snapshot.queued
    .filter((job) => job.lane === props.lane)
    .sort((a, b) => (a.position ?? 0) - (b.position ?? 0))
    .slice(0, SHOWN_PER_LANE);
  const waiting =
    props.snapshot.counts.find((c) => c.lane === props.lane && c.status === "QUEUED")?.count ?? 0;
  const last = Math.max(waiting, ...jobs.map((job) => job.position ?? 0));
  return (
    <section data-testid={`lane-${props.lane}`}>
      <h2>
        {props.lane === "PRIORITY" ? "Priority" : "Bulk"} lane · {waiting} queued
      </h2>
      {jobs.length === 0 ? (
        <p class="hint">Nothing queued.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th class="num">#</th><th>Job</th><th>Source</th><th class="num">Priority</th>
              <th class="num">Attempts</th>
              <WriteOnly><th>Steer</th></WriteOnly>
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <QueuedRow key={job.id} job={job} last={last} act={props.act} busy={props.busy === job.id} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Running(props: { snapshot: QueueSnapshot; act: Act; busy: string | null }) {
  const jobs = props.snapshot.running;
  return (
    <section data-testid="running">
      <h2>Running · {jobs.length}</h2>
      {jobs.length === 0 ? (
        <p class="hint">Nothing running.</p>
      ) : (
        <table>
          <thead>
            <tr><th>Job</th><th>Lane</th><th>Stage</th><th>Source</th><th class="num">Attempts</th><WriteOnly><th /></WriteOnly></tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr key={job.id} data-job={job.id}>
                <td><a href={href("jobs", job.id)}>{job.id}</a></td>
                <td>{job.lane.toLowerCase()}</td>
                <td data-testid="stage">{job.stage?.toLowerCase() ?? "starting"}</td>
                <td>{job.sourceUrn ?? job.sourceKind ?? "—"}</td>
                <td class="num">{job.attempts}</td>
                <WriteOnly>
                  <td>
                    <button type="button" disabled={props.busy === job.id} onClick={() => props.act(job.id, "cancel")}>
                      Cancel
                    </button>
                  </td>
                </WriteOnly>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Recent(props: { changes: QueueChange[]; act: Act; busy: string | null }) {
  if (props.changes.length === 0) return null;
  return (
    <section data-testid="recent">
      <h2>Recent changes</h2>
      <table>
        <tbody>
          {props.changes.map((change) => (
            <tr key={`${change.jobId}-${change.at}-${change.status}`} data-job={change.jobId}>
              <td class="mono">{change.at.slice(11, 19)}</td>
              <td><a href={href("jobs", change.jobId)}>{change.jobId}</a></td>
              <td>
                {change.previousStatus ? `${change.previousStatus.toLowerCase()} → ` : ""}
                <b>{change.status.toLowerCase()}</b>
                {change.stage ? ` (${change.stage.toLowerCase()})` : ""}
              </td>
              <WriteOnly>
                <td>
                  {(change.status === "FAILED" || change.status === "CANCELLED") && (
                    <button type="button" disabled={props.busy === change.jobId} onClick={() => props.act(change.jobId, "retry")}>
                      Retry
                    </button>
                  )}
                </td>
              </WriteOnly>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function QueuePage(_props: PageProps) {
  const feed = useQueueFeed(SHOWN_PER_LANE);
  const { act, busy, refusal } = useActions();
  const snapshot = feed.snapshot;
  return (
    <div data-testid="queue-page">
      <h1>Queue</h1>
      <Degraded when={snapshot?.degraded ?? false}>
        Live updates are degraded (Redis is unreachable): the queue is read from the database
        every second and changes are not listed.
      </Degraded>
      <ErrorLine error={feed.error} />
      <ErrorLine error={refusal} />
      {snapshot === null ? (
        <p class="hint">Connecting to the live queue…</p>
      ) : (
        <>
          <p class="hint" data-testid="workers">
            Workers alive: {snapshot.workersAlive ?? "unknown"} · updated {snapshot.at.slice(11, 19)}
          </p>
          <Counts snapshot={snapshot} />
          {LANES.map((lane) => (
            <Lane key={lane} lane={lane} snapshot={snapshot} act={act} busy={busy} />
          ))}
          <Running snapshot={snapshot} act={act} busy={busy} />
          <Recent changes={feed.recent} act={act} busy={busy} />
        </>
      )}
    </div>
  );
}
