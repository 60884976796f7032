// The search page's form as plain data: what the user typed becomes the query's variables.
// Empty filters are sent as null (no filter), never as an empty list (which matches nothing).

export const SEARCH_MODES = ["HYBRID", "VECTOR", "KEYWORD"] as const;
export type SearchModeName = (typeof SEARCH_MODES)[number];

export const KNOWLEDGE_TYPES = [
  "FACT",
  "INSTRUCTION",
  "PREFERENCE",
  "PROCEDURE",
  "NOTE",
  "EPISODIC",
] as const;
export type KnowledgeTypeName = (typeof KNOWLEDGE_TYPES)[number];

export interface SearchForm {
  query: string;
  mode: SearchModeName;
  kinds: string;
  tags: string;
  knowledgeTypes: readonly KnowledgeTypeName[];
  limit: number;
  infoTypes: string;
  sourceKinds: string;
  connectionIds: string;
  entityKeys: string;
  // Days as the date inputs give them ("2026-03-01"), "" for no bound.
  createdAfter: string;
  createdBefore: string;
  observedAfter: string;
  observedBefore: string;
  // HYBRID's weight of meaning against keywords, 0..1; "" for the server's.
  vectorWeight: string;
}

export const EMPTY_FORM: SearchForm = {
  query: "",
  mode: "HYBRID",
  kinds: "",
  tags: "",
  knowledgeTypes: [],
  limit: 10,
  infoTypes: "",
  sourceKinds: "",
  connectionIds: "",
  entityKeys: "",
  createdAfter: "",
  createdBefore: "",
  observedAfter: "",
  observedBefore: "",
  vectorWeight: "",
};

/** "2026-03-01" → the start of that day in UTC; "" → null (no bound). */
export function dayOrNull(day: string): string | null {
  return day === "" ? null : `${day}T00:00:00Z`;
}

/** The `filters` input: the set fields only, null when none is set. */
export function filtersOrNull(form: SearchForm) {
  const filters = {
    infoTypes: listOrNull(form.infoTypes),
    sourceKinds: listOrNull(form.sourceKinds),
    connectionIds: listOrNull(form.connectionIds),
    entityKeys: listOrNull(form.entityKeys),
    createdAfter: dayOrNull(form.createdAfter),
    createdBefore: dayOrNull(form.createdBefore),
    observedAfter: dayOrNull(form.observedAfter),
    observedBefore: dayOrNull(form.observedBefore),
  };
  const set = Object.entries(filters).filter(([, value]) => value !== null);
  return set.length > 0 ? Object.fromEntries(set) : null;
}

/** "a, b ,,c" → ["a", "b", "c"]; nothing → null (no filter). */
export function listOrNull(text: string): string[] | null {
  const items = text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items.length > 0 ? [...new Set(items)] : null;
}

export function searchVariables(form: SearchForm) {
  return {
    query: form.query.trim(),
    mode: form.mode,
    limit: form.limit,
    kinds: listOrNull(form.kinds),
    tags: listOrNull(form.tags),
    knowledgeTypes: form.knowledgeTypes.length > 0 ? [...form.knowledgeTypes] : null,
    filters: filtersOrNull(form),
    vectorWeight:
      form.mode === "HYBRID" && form.vectorWeight.trim() !== "" ? Number(form.vectorWeight) : null,
  };
}

/** A score as the page shows it: three decimals, with what it means in the chosen mode. */
export function scoreLabel(score: number, mode: SearchModeName): string {
  const meaning = { HYBRID: "fused rank", VECTOR: "cosine", KEYWORD: "text rank" }[mode];
  return `${score.toFixed(3)} ${meaning}`;
}

/** The first `max` characters of a chunk, cut at a word, for a hit's preview. */
export function excerpt(content: string, max = 280): string {
  const flat = content.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.lastIndexOf(" ", max);
  return `${flat.slice(0, cut > max / 2 ? cut : max)}…`;
}

/** A domain error member (`... on Error { code message field }`) as one line. */
export function memberError(error: { code: string; message: string; field?: string | null }) {
  return `${error.code}: ${error.message}${error.field ? ` (field: ${error.field})` : ""}`;
}
