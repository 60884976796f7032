// Router: whether each model Kenning uses can answer (`health.models`), the model router's
// backends (health, breaker, the set each holds, load), its model sets, leases and queues
// from `routerStatus`, and the live `routerEvents` stream. The status is read again on each
// event and every few seconds.

import { useEffect, useState } from "preact/hooks";
import { type ApiError, query, subscribe } from "../api";
import { graphql } from "../gql";
import type { ConsoleRouterEventsSubscription, ConsoleRouterQuery } from "../gql/graphql";
import { ErrorLine } from "../layout";
import type { PageProps } from "../page";

const RouterDocument = graphql(`
  query ConsoleRouter {
    health { models { role model state detail } }
    routerStatus {
      mode stateStore criticalInflight
      backends {
        name gpu url healthy breaker lastError holds swapping inflight waiting queueDepth
        vramBudgetMb
      }
      leases { session traffic expiresAt expiresInSeconds }
      modelSets { orchestrator background }
      recentEvents { kind at backend reason error healthy breaker targetSet }
    }
  }
`);

const RouterEventsDocument = graphql(`
  subscription ConsoleRouterEvents {
    routerEvents {
      kind at backend reason error healthy breaker targetSet
    }
  }
`);

type Status = ConsoleRouterQuery["routerStatus"];
type Models = ConsoleRouterQuery["health"]["models"];
type RouterEvent = ConsoleRouterEventsSubscription["routerEvents"];
const REFRESH_MS = 3000;
const KEPT_EVENTS = 100;

function useRouter() {
  const [status, setStatus] = useState<Status | undefined>(undefined);
  const [models, setModels] = useState<Models>([]);
  const [events, setEvents] = useState<RouterEvent[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    const refresh = () =>
      query(RouterDocument, {}).then(
        (data) => {
          setStatus(data.routerStatus);
          setModels(data.health.models);
          setError(null);
        },
        (failure: ApiError) => setError(failure),
      );
    void refresh();
    const timer = window.setInterval(refresh, REFRESH_MS);
    const stop = subscribe(RouterEventsDocument, {}, (data) => {
      setEvents((old) => [data.routerEvents, ...old].slice(0, KEPT_EVENTS));
      void refresh();
    }, setError);
    return () => {
      window.clearInterval(timer);
      stop();
    };
  }, []);
  return { status, models, events, error };
}

function describe(event: RouterEvent): string {
  const parts = [
    event.backend,
    event.targetSet && `→ ${event.targetSet.toLowerCase()}`,
    event.healthy != null && (event.healthy ? "healthy" : "unhealthy"),
    event.breaker && `breaker ${event.breaker}`,
    event.reason,
    event.error,
  ];
  return parts.filter(Boolean).join(" · ");
}

// Before a Structure or an outcome's raw context finds out: which model answers, and why not.
function ModelTable(props: { models: Models }) {
  return (
    <table data-testid="models">
      <thead>
        <tr>
          <th>Used for</th><th>Model</th><th>State</th><th>Detail</th>
        </tr>
      </thead>
      <tbody>
        {props.models.map((model) => (
          <tr key={model.role} data-role={model.role}>
            <td>{model.role}</td>
            <td class="mono">{model.model ?? "—"}</td>
            <td class={model.state === "OK" ? "ok" : "bad"}>{model.state.toLowerCase().replace("_", " ")}</td>
            <td>{model.state === "OK" ? "" : model.detail}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Backends(props: { status: NonNullable<Status> }) {
  return (
    <table data-testid="backends">
      <thead>
        <tr>
          <th>Backend</th><th>Health</th><th>Breaker</th><th>Holds</th><th class="num">In flight</th>
          <th class="num">Waiting</th><th class="num">Queue</th><th>GPU</th><th>Last error</th>
        </tr>
      </thead>
      <tbody>
        {props.status.backends.map((backend) => (
          <tr key={backend.name} data-backend={backend.name}>
            <td>
              <b>{backend.name}</b> <span class="hint mono">{backend.url ?? ""}</span>
            </td>
            <td class={backend.healthy ? "ok" : "bad"}>{backend.healthy ? "healthy" : "unhealthy"}</td>
            <td>{backend.breaker}</td>
            <td>{backend.swapping ? "swapping…" : (backend.holds?.toLowerCase() ?? "—")}</td>
            <td class="num">{backend.inflight}</td>
            <td class="num">{backend.waiting}</td>
            <td class="num">{backend.queueDepth}</td>
            <td>{backend.gpu ? `yes (${backend.vramBudgetMb} MB)` : "no"}</td>
            <td class="bad">{backend.lastError ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Summary(props: { status: NonNullable<Status> }) {
  const { status } = props;
  return (
    <div class="cards">
      <div class="card">
        Mode <b>{status.mode}</b> · state in <b>{status.stateStore}</b> · critical in flight{" "}
        <b>{status.criticalInflight}</b>
      </div>
      <div class="card" data-testid="model-sets">
        Orchestrator set: <span class="mono">{status.modelSets.orchestrator.join(", ") || "—"}</span>
        <br />
        Background set: <span class="mono">{status.modelSets.background.join(", ") || "—"}</span>
      </div>
      <div class="card" data-testid="leases">
        Leases: {status.leases.length === 0 ? "none" : ""}
        {status.leases.map((lease, index) => (
          <div key={`${lease.session ?? "lease"}-${index}`}>
            {lease.session ?? "(session hidden)"} · {lease.traffic ? "traffic" : "idle"} · expires in{" "}
            {Math.round(lease.expiresInSeconds)} s
          </div>
        ))}
      </div>
    </div>
  );
}

export function RouterPage(_props: PageProps) {
  const { status, models, events, error } = useRouter();
  const shown = events.length > 0 ? events : [...(status?.recentEvents ?? [])].reverse();
  return (
    <div data-testid="router-page">
      <h1>Model router</h1>
      <ErrorLine error={error} />
      <h2>Models Kenning uses</h2>
      <ModelTable models={models} />
      {status === undefined && <p class="hint">Reading the router…</p>}
      {status === null && <p class="hint">This server runs no model router.</p>}
      {status && (
        <>
          <Summary status={status} />
          <h2>Backends and queues</h2>
          <Backends status={status} />
        </>
      )}
      <h2>Events {events.length > 0 ? "(live)" : "(recent)"}</h2>
      <table class="events" data-testid="events">
        <tbody>
          {shown.map((event, index) => (
            <tr key={`${event.at}-${index}`}>
              <td class="mono">{event.at.slice(11, 19)}</td>
              <td>{event.kind.toLowerCase().replace("_", " ")}</td>
              <td>{describe(event)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
