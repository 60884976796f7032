// The graph explorer's data: nodes and edges as the API returns them, merged by identity as
// the user expands nodes, and turned into Cytoscape elements. No DOM, no Cytoscape import,
// so it is checked by tsc alone.

export interface ScopeLike {
  clientId: string;
  projectId: string;
  groupId: string;
}

export interface NodeData {
  key: string;
  type: string;
  properties: unknown;
  degree?: number | null;
}

export interface EdgeData {
  edgeType: string;
  fromKey: string;
  toKey: string;
  confidence: number;
  evidenceCount: number;
  extractedBy?: string | null;
  extractionConfidence?: number | null;
  scope: ScopeLike;
}

export interface SubgraphData {
  nodes: readonly NodeData[];
  edges: readonly EdgeData[];
  truncated?: boolean;
}

export interface ElementData {
  group: "nodes" | "edges";
  data: Record<string, string | number>;
  position?: { x: number; y: number };
}

/** One edge row per (from, type, to, scope): the same triple at two scopes is two edges. */
export function edgeId(edge: Pick<EdgeData, "fromKey" | "edgeType" | "toKey" | "scope">): string {
  const { clientId, projectId, groupId } = edge.scope;
  return [edge.fromKey, edge.edgeType, edge.toKey, clientId, projectId, groupId].join("\u241f");
}

/** A short label: the node's name or label property, else the key without its type. */
export function nodeLabel(node: NodeData): string {
  const props = node.properties;
  if (props !== null && typeof props === "object") {
    for (const field of ["name", "label", "title"]) {
      const value = (props as Record<string, unknown>)[field];
      if (typeof value === "string" && value.trim() !== "") return value;
    }
  }
  const colon = node.key.indexOf(":");
  return colon >= 0 ? node.key.slice(colon + 1) : node.key;
}

const PALETTE = [
  "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
];

/** A stable colour per node type, so one type looks the same on every page. */
export function typeColour(type: string): string {
  let hash = 0;
  for (const char of type) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length] ?? "#888888";
}

/** "0.75 · 3 chunks · llm:qwen (0.9)": what an edge's label and tooltip say. */
export function describeEdge(edge: EdgeData): string {
  const parts = [
    `confidence ${edge.confidence.toFixed(2)}`,
    `${edge.evidenceCount} chunk${edge.evidenceCount === 1 ? "" : "s"}`,
  ];
  if (edge.extractedBy) {
    const own = edge.extractionConfidence;
    parts.push(own == null ? edge.extractedBy : `${edge.extractedBy} (${own.toFixed(2)})`);
  } else {
    parts.push("written");
  }
  return parts.join(" · ");
}

export interface MergeResult {
  addedNodes: string[];
  addedEdges: string[];
}

/** Every node and edge seen so far, keyed by identity; merging the same data twice adds nothing. */
export class GraphModel {
  readonly nodes = new Map<string, NodeData>();
  readonly edges = new Map<string, EdgeData>();
  truncated = false;

  merge(subgraph: SubgraphData): MergeResult {
    const addedNodes: string[] = [];
    const addedEdges: string[] = [];
    for (const node of subgraph.nodes) {
      if (!this.nodes.has(node.key)) addedNodes.push(node.key);
      this.nodes.set(node.key, { ...this.nodes.get(node.key), ...node });
    }
    for (const edge of subgraph.edges) {
      // An edge is drawn only between nodes the model holds (a cut subgraph may name others).
      if (!this.nodes.has(edge.fromKey) || !this.nodes.has(edge.toKey)) continue;
      const id = edgeId(edge);
      if (!this.edges.has(id)) addedEdges.push(id);
      this.edges.set(id, edge);
    }
    this.truncated = this.truncated || Boolean(subgraph.truncated);
    return { addedNodes, addedEdges };
  }

  clear(): void {
    this.nodes.clear();
    this.edges.clear();
    this.truncated = false;
  }

  /** Cytoscape elements for the given node keys and edge ids (all when omitted). */
  elements(nodeKeys?: readonly string[], edgeIds?: readonly string[]): ElementData[] {
    const keys = nodeKeys ?? [...this.nodes.keys()];
    const ids = edgeIds ?? [...this.edges.keys()];
    const out: ElementData[] = [];
    for (const key of keys) {
      const node = this.nodes.get(key);
      if (node) out.push(nodeElement(node));
    }
    for (const id of ids) {
      const edge = this.edges.get(id);
      if (edge) out.push(edgeElement(id, edge));
    }
    return out;
  }
}

export function nodeElement(node: NodeData): ElementData {
  return {
    group: "nodes",
    data: {
      id: node.key,
      label: nodeLabel(node),
      type: node.type,
      colour: typeColour(node.type),
    },
  };
}

export function edgeElement(id: string, edge: EdgeData): ElementData {
  return {
    group: "edges",
    data: {
      id,
      source: edge.fromKey,
      target: edge.toKey,
      label: edge.edgeType,
      // Line width grows with confidence: 1 px at 0.5, 4 px near 1.
      width: 1 + Math.max(0, edge.confidence - 0.5) * 6,
    },
  };
}

/**
 * Where new neighbours go: around the node they were expanded from, on an arc facing away
 * from `from` (the middle of what is drawn already), so they do not land on existing edges.
 */
export function ringPositions(
  centre: { x: number; y: number },
  count: number,
  from?: { x: number; y: number },
  radius = 90 + count * 4,
): { x: number; y: number }[] {
  const dx = from ? centre.x - from.x : 0;
  const dy = from ? centre.y - from.y : 0;
  const away = dx === 0 && dy === 0 ? null : Math.atan2(dy, dx);
  // A full circle when there is no "away"; else an arc that widens with the count.
  const spread = away === null ? 2 * Math.PI : Math.min(2 * Math.PI, 0.5 * count + Math.PI / 3);
  const step = away === null ? spread / Math.max(count, 1) : spread / Math.max(count - 1, 1);
  const first = away === null ? 0 : away - (count > 1 ? spread / 2 : 0);
  const out: { x: number; y: number }[] = [];
  for (let index = 0; index < count; index += 1) {
    const angle = first + step * index;
    out.push({ x: centre.x + radius * Math.cos(angle), y: centre.y + radius * Math.sin(angle) });
  }
  return out;
}

/** The node keys and edge ids of a path, to highlight (edges matched by ends and type). */
export function pathSelection(
  model: GraphModel,
  path: { nodes: readonly NodeData[]; edges: readonly EdgeData[] },
): { nodeKeys: string[]; edgeIds: string[] } {
  return {
    nodeKeys: path.nodes.map((node) => node.key),
    edgeIds: path.edges.map(edgeId).filter((id) => model.edges.has(id)),
  };
}

/** A layout suited to the graph's size: force-directed when small, concentric when large. */
export function layoutFor(nodeCount: number): Record<string, unknown> {
  if (nodeCount <= 150) {
    return { name: "cose", animate: false, randomize: false, nodeRepulsion: 8000, fit: true };
  }
  // cose on 500 nodes takes seconds; concentric rings by degree is linear and readable.
  return {
    name: "concentric",
    animate: false,
    fit: true,
    minNodeSpacing: 6,
    concentric: (node: { degree: (loops: boolean) => number }) => node.degree(false),
    levelWidth: () => 2,
  };
}
