// The graph explorer's side panels: the chosen node (details, its chunks, path buttons),
// the chosen edge (type, confidence, provenance and its evidence chunks' text), and the
// shortest-path form.

import { ErrorLine } from "../layout";
import type { EdgeData } from "../graph/model";
import { describeEdge } from "../graph/model";
import type { EvidenceChunk, NodeDetail } from "./graphQueries";

export function NodePanel(props: {
  node: NodeDetail;
  onPathFrom: (key: string) => void;
  onPathTo: (key: string) => void;
}) {
  const { node } = props;
  const properties = JSON.stringify(node.properties, null, 2);
  return (
    <section class="panel node-panel" data-testid="node-panel">
      <h2>{node.key}</h2>
      <p>
        type <b>{node.type}</b> · {node.degree} edge{node.degree === 1 ? "" : "s"}
      </p>
      {properties !== "{}" && <pre class="properties">{properties}</pre>}
      <div class="buttons">
        <button type="button" onClick={() => props.onPathFrom(node.key)}>Path from here</button>
        <button type="button" onClick={() => props.onPathTo(node.key)}>Path to here</button>
      </div>
      {node.chunks.length > 0 && (
        <>
          <h3>Newest chunks</h3>
          <ChunkList chunks={node.chunks} />
        </>
      )}
    </section>
  );
}

export function EdgePanel(props: {
  edge: EdgeData;
  evidence: readonly EvidenceChunk[] | null;
  error: unknown;
}) {
  const { edge, evidence } = props;
  return (
    <section class="panel edge-panel" data-testid="edge-panel">
      <h2>
        {edge.fromKey} <span class="edge-type">-[{edge.edgeType}]-&gt;</span> {edge.toKey}
      </h2>
      <p data-testid="edge-facts">{describeEdge(edge)}</p>
      <h3>Evidence</h3>
      <ErrorLine error={props.error} />
      {evidence === null && props.error == null && <p class="loading">Loading evidence…</p>}
      {evidence !== null && evidence.length === 0 && <p class="empty">No visible evidence chunk.</p>}
      {evidence !== null && <ChunkList chunks={evidence} />}
    </section>
  );
}

function ChunkList(props: { chunks: readonly { id: string; sourceUrn: string; ordinal: number; content: string }[] }) {
  return (
    <ol class="chunks" data-testid="evidence">
      {props.chunks.map((chunk) => (
        <li key={chunk.id} class="chunk">
          <div class="chunk-source">
            {chunk.sourceUrn} · chunk {chunk.ordinal}
          </div>
          <p class="chunk-content">{chunk.content}</p>
        </li>
      ))}
    </ol>
  );
}

export function PathForm(props: {
  from: string;
  to: string;
  busy: boolean;
  onChange: (from: string, to: string) => void;
  onFind: () => void;
  outcome: string | null;
}) {
  return (
    <form
      class="path-form"
      onSubmit={(event) => {
        event.preventDefault();
        props.onFind();
      }}
    >
      <label>
        From <input id="path-from" value={props.from}
          onInput={(event) => props.onChange(event.currentTarget.value, props.to)} />
      </label>
      <label>
        To <input id="path-to" value={props.to}
          onInput={(event) => props.onChange(props.from, event.currentTarget.value)} />
      </label>
      <button id="path-find" type="submit" disabled={props.busy || !props.from || !props.to}>
        Shortest path
      </button>
      {props.outcome && <span class="path-outcome" data-testid="path-outcome">{props.outcome}</span>}
    </form>
  );
}
