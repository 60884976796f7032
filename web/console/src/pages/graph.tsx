// Graph explorer: find a node by name, key or phrase (findNodes) or open one by key
// (`#/graph/<key>`), draw its neighbourhood with Cytoscape, expand a node on click (its
// neighbours join the drawing around it), click an edge for its type, confidence,
// provenance and evidence chunks, and highlight the shortest path between two nodes.
// Read ../graph/model.ts first: it holds the data, canvas.ts draws.

import "./graph.css";
import { useEffect, useRef, useState } from "preact/hooks";
import { query } from "../api";
import { GraphCanvas } from "../graph/canvas";
import type { EdgeData } from "../graph/model";
import { GraphModel, edgeId, pathSelection } from "../graph/model";
import { ErrorLine } from "../layout";
import type { PageProps } from "../page";
import { navigate } from "../route";
import { MatchList, findNode } from "./graphFind";
import { EdgePanel, NodePanel, PathForm } from "./graphPanels";
import {
  GraphEdgeEvidenceDocument,
  GraphNodeDetailDocument,
  GraphOpenDocument,
  GraphPathDocument,
} from "./graphQueries";
import type { EvidenceChunk, NodeDetail, NodeMatch } from "./graphQueries";

const MAX_PATH_DEPTH = 6;
const EXPAND_LIMIT = 200;

interface Stats {
  nodes: number;
  edges: number;
  drawMs: number | null;
  expandMs: number | null;
  truncated: boolean;
}

interface ChosenEdge {
  edge: EdgeData;
  evidence: EvidenceChunk[] | null;
  error: unknown;
}

/** Resolves after the browser has painted twice: the drawing is on screen. */
function painted(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}

/** A whole number from the route within [low, high], else `fallback`. */
function routeNumber(text: string | undefined, low: number, high: number, fallback: number): number {
  const value = Number(text);
  return Number.isInteger(value) && value >= low && value <= high ? value : fallback;
}

// `#/graph/<key>[/<depth>/<edge limit>]`: a link or bookmark opens the same drawing.
export function GraphPage({ params }: PageProps) {
  const routeKey = params[0] ?? "";
  const container = useRef<HTMLDivElement>(null);
  const canvas = useRef<GraphCanvas | null>(null);
  const model = useRef(new GraphModel());
  const chosenEdgeId = useRef<string | null>(null);
  const [find, setFind] = useState(routeKey);
  const [depth, setDepth] = useState(() => routeNumber(params[1], 1, 3, 1));
  const [limit, setLimit] = useState(() => routeNumber(params[2], 1, 1000, 300));
  const [stats, setStats] = useState<Stats | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [node, setNode] = useState<NodeDetail | null>(null);
  const [edge, setEdge] = useState<ChosenEdge | null>(null);
  const [ends, setEnds] = useState({ from: "", to: "" });
  const [pathOutcome, setPathOutcome] = useState<string | null>(null);
  const [matches, setMatches] = useState<NodeMatch[] | null>(null);

  function countStats(patch: Partial<Stats>) {
    const m = model.current;
    setStats((old) => ({
      drawMs: null,
      expandMs: null,
      ...old,
      nodes: m.nodes.size,
      edges: m.edges.size,
      truncated: m.truncated,
      ...patch,
    }));
  }

  async function showNode(key: string) {
    setEdge(null);
    chosenEdgeId.current = null;
    const data = await query(GraphNodeDetailDocument, { key });
    setNode(data.node ?? null);
  }

  async function open(key: string) {
    setBusy(true);
    setError(null);
    setPathOutcome(null);
    try {
      const data = await query(GraphOpenDocument, { key, depth, limit });
      if (!data.node) {
        setError(`No visible node has the key "${key}".`);
        return;
      }
      const m = model.current;
      m.clear();
      const { nodes, edges, truncated } = data.neighbors;
      m.merge({ nodes: [data.node, ...nodes], edges, truncated });
      const started = performance.now();
      await canvas.current?.replace(m.elements());
      await painted();
      countStats({ drawMs: performance.now() - started, expandMs: null });
      setEnds((old) => ({ ...old, from: data.node?.key ?? key }));
      await showNode(data.node.key);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  async function expand(key: string) {
    setError(null);
    try {
      const detail = showNode(key);
      const data = await query(GraphOpenDocument, { key, depth: 1, limit: EXPAND_LIMIT });
      const started = performance.now();
      const added = model.current.merge({ nodes: [...data.neighbors.nodes], edges: data.neighbors.edges, truncated: data.neighbors.truncated });
      canvas.current?.expand(key, model.current.elements(added.addedNodes, added.addedEdges));
      await painted();
      countStats({ expandMs: performance.now() - started });
      await detail;
    } catch (failure) {
      setError(failure);
    }
  }

  async function showEdge(id: string) {
    const chosen = model.current.edges.get(id);
    if (!chosen) return;
    chosenEdgeId.current = id;
    setNode(null);
    setEdge({ edge: chosen, evidence: null, error: null });
    try {
      const data = await query(GraphEdgeEvidenceDocument, { from: chosen.fromKey, edgeType: chosen.edgeType });
      const match = data.node?.edges.find((candidate) => edgeId(candidate) === id);
      if (chosenEdgeId.current === id) setEdge({ edge: chosen, evidence: match?.evidence ?? [], error: null });
    } catch (failure) {
      if (chosenEdgeId.current === id) setEdge({ edge: chosen, evidence: null, error: failure });
    }
  }

  async function findPath() {
    setBusy(true);
    setPathOutcome(null);
    try {
      const data = await query(GraphPathDocument, { ...ends, maxDepth: MAX_PATH_DEPTH });
      if (!data.path) {
        setPathOutcome(`No path of at most ${MAX_PATH_DEPTH} edges.`);
        canvas.current?.highlight([], []);
        return;
      }
      const path = data.path;
      const added = model.current.merge({ nodes: path.nodes, edges: path.edges });
      // Each node the drawing lacked goes beside the step before it, then the new edges.
      const fresh = new Set(added.addedNodes);
      path.nodes.forEach((step, index) => {
        const beside = path.nodes[index - 1] ?? path.nodes[index + 1];
        if (fresh.has(step.key)) canvas.current?.expand(beside?.key ?? step.key, model.current.elements([step.key], []));
      });
      canvas.current?.expand(ends.from, model.current.elements([], added.addedEdges));
      const selection = pathSelection(model.current, path);
      canvas.current?.highlight(selection.nodeKeys, selection.edgeIds);
      countStats({});
      const steps = path.nodes.map((step) => step.key).join(" → ");
      setPathOutcome(`${path.length} edge${path.length === 1 ? "" : "s"}: ${steps}`);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  function go(key: string) {
    setMatches(null);
    const route = [key, String(depth), String(limit)];
    // The page is keyed by its route: the same route again does not remount it.
    if (route.join("/") === params.join("/")) void open(key);
    else navigate("graph", ...route);
  }

  async function lookUp(text: string) {
    if (!text) return;
    setError(null);
    try {
      const outcome = await findNode(text);
      if ("open" in outcome) go(outcome.open);
      else if ("matches" in outcome) setMatches(outcome.matches);
      else setError(outcome.error);
    } catch (failure) {
      setError(failure);
    }
  }

  // Cytoscape's handlers outlive renders: they call the newest closures through a ref.
  const handlers = useRef({ expand, showEdge });
  handlers.current = { expand, showEdge };

  useEffect(() => {
    if (!container.current) return undefined;
    const drawn = new GraphCanvas(container.current, {
      onNode: (key) => void handlers.current.expand(key),
      onEdge: (id) => void handlers.current.showEdge(id),
    });
    canvas.current = drawn;
    return () => {
      drawn.destroy();
      canvas.current = null;
    };
  }, []);

  // Lines above the canvas (stats, errors, the path's outcome) come and go and move it.
  useEffect(() => canvas.current?.relocate());

  useEffect(() => {
    setFind(routeKey);
    if (routeKey) void open(routeKey);
  }, [routeKey]);

  return (
    <section class="page graph-page">
      <h1>Graph</h1>
      <form
        class="graph-find"
        onSubmit={(event) => {
          event.preventDefault();
          void lookUp(find.trim());
        }}
      >
        <input id="graph-key" placeholder="A name, key or phrase, e.g. billing" value={find}
          onInput={(event) => setFind(event.currentTarget.value)} />
        <label>
          Depth <select id="graph-depth" value={depth}
            onChange={(event) => setDepth(Number(event.currentTarget.value))}>
            {[1, 2, 3].map((value) => <option value={value}>{value}</option>)}
          </select>
        </label>
        <label>
          Edges <input id="graph-limit" type="number" min={1} max={1000} value={limit}
            onInput={(event) => setLimit(Number(event.currentTarget.value) || 300)} />
        </label>
        <button id="graph-open" type="submit" disabled={busy}>Open</button>
      </form>
      <MatchList matches={matches} onOpen={go} />
      <PathForm from={ends.from} to={ends.to} busy={busy} outcome={pathOutcome}
        onChange={(from, to) => setEnds({ from, to })} onFind={() => void findPath()} />
      <ErrorLine error={error} />
      <StatsLine stats={stats} />
      <div class="graph-body">
        <div ref={container} class="graph-canvas" data-testid="graph-canvas" />
        <aside class="graph-side">
          {node && (
            <NodePanel node={node}
              onPathFrom={(key) => setEnds({ ...ends, from: key })}
              onPathTo={(key) => setEnds({ ...ends, to: key })} />
          )}
          {edge && <EdgePanel edge={edge.edge} evidence={edge.evidence} error={edge.error} />}
          {!node && !edge && <p class="hint">Click a node to expand it, an edge for its evidence.</p>}
        </aside>
      </div>
    </section>
  );
}

function StatsLine({ stats }: { stats: Stats | null }) {
  if (!stats) return <p class="graph-stats">Nothing drawn yet.</p>;
  const ms = (value: number | null) => (value == null ? "" : `${Math.round(value)}`);
  return (
    <p class="graph-stats" data-testid="graph-stats" data-nodes={stats.nodes} data-edges={stats.edges}
      data-draw-ms={ms(stats.drawMs)} data-expand-ms={ms(stats.expandMs)}>
      {stats.nodes} nodes · {stats.edges} edges
      {stats.drawMs != null && ` · drawn in ${ms(stats.drawMs)} ms`}
      {stats.expandMs != null && ` · last expansion ${ms(stats.expandMs)} ms`}
      {stats.truncated && " · cut at the edge limit"}
    </p>
  );
}
