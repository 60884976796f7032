// The ingest page's two forms as plain data: a document for `ingest`, free text for
// `structureKnowledge`. What the user typed becomes the mutation's input.

export interface DocumentForm {
  sourceUrn: string;
  kind: string;
  content: string;
  tags: string;
  relationships: string;
}

export interface StructureForm {
  text: string;
  hints: string;
  sourceUrn: string;
  dryRun: boolean;
}

export const EMPTY_DOCUMENT: DocumentForm = {
  sourceUrn: "",
  kind: "doc",
  content: "",
  tags: "",
  relationships: "",
};

export const EMPTY_STRUCTURE: StructureForm = { text: "", hints: "", sourceUrn: "", dryRun: true };

/** One relationship per non-blank line (`a|rel|b`, `a->rel->b` or `a -[rel]-> b`). */
export function relationshipLines(text: string): string[] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

export function commaList(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

export function ingestInput(form: DocumentForm) {
  return {
    sourceUrn: form.sourceUrn.trim(),
    kind: form.kind.trim(),
    content: form.content,
    tags: commaList(form.tags),
    relationships: relationshipLines(form.relationships),
  };
}

export function structureInput(form: StructureForm) {
  const hints = form.hints.trim();
  const sourceUrn = form.sourceUrn.trim();
  return {
    text: form.text,
    hints: hints === "" ? null : hints,
    sourceUrn: sourceUrn === "" ? null : sourceUrn,
    dryRun: form.dryRun,
  };
}

export interface Triple {
  from: string;
  edgeType: string;
  to: string;
}

/** `from -[type]-> to`, as the README writes an edge. */
export function tripleText(edge: Triple): string {
  return `${edge.from} -[${edge.edgeType}]-> ${edge.to}`;
}

export interface GraphFile {
  nodes: number;
  edges: number;
  pieces: number;
}

/** How many pieces, nodes and edges a knowledge file holds (what a dry run would load). */
export function countKnowledge(knowledge: unknown): GraphFile {
  const file = (knowledge ?? {}) as { pieces?: unknown; graph?: { nodes?: unknown; edges?: unknown } };
  const size = (value: unknown) => (Array.isArray(value) ? value.length : 0);
  return {
    pieces: size(file.pieces),
    nodes: size(file.graph?.nodes),
    edges: size(file.graph?.edges),
  };
}

/** The edges of a knowledge file as triples, whatever field names the file uses for ends. */
export function knowledgeEdges(knowledge: unknown): Triple[] {
  const graph = (knowledge as { graph?: { edges?: unknown } } | null)?.graph;
  if (!Array.isArray(graph?.edges)) return [];
  const out: Triple[] = [];
  for (const raw of graph.edges as Record<string, unknown>[]) {
    const from = raw["from"] ?? raw["source"];
    const to = raw["to"] ?? raw["target"];
    const type = raw["edgeType"] ?? raw["type"] ?? raw["relation"];
    if (typeof from === "string" && typeof to === "string" && typeof type === "string") {
      out.push({ from, edgeType: type, to });
    }
  }
  return out;
}
