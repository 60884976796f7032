// Search: a query box, the mode (HYBRID, VECTOR, KEYWORD), filters (kinds, knowledge
// types, tags, info types, source kinds, connections, nodes, stored and observed days) and
// HYBRID's vector weight; each hit shows its score, source and the nodes its chunk mentions, and a
// node opens in the graph explorer.

import "./search.css";
import { useState } from "preact/hooks";
import { query } from "../api";
import { graphql } from "../gql";
import type { SearchPageQuery } from "../gql/graphql";
import { ErrorLine } from "../layout";
import type { PageProps } from "../page";
import { href } from "../route";
import {
  EMPTY_FORM,
  KNOWLEDGE_TYPES,
  SEARCH_MODES,
  excerpt,
  memberError,
  scoreLabel,
  searchVariables,
} from "./searchForm";
import type { KnowledgeTypeName, SearchForm, SearchModeName } from "./searchForm";

const SearchDocument = graphql(`
  query SearchPage(
    $query: String!
    $mode: SearchMode!
    $limit: Int!
    $kinds: [String!]
    $tags: [String!]
    $knowledgeTypes: [KnowledgeType!]
    $filters: SearchFiltersInput
    $vectorWeight: Float
  ) {
    search(
      query: $query
      mode: $mode
      limit: $limit
      kinds: $kinds
      tags: $tags
      knowledgeTypes: $knowledgeTypes
      filters: $filters
      vectorWeight: $vectorWeight
    ) {
      __typename
      ... on SearchSuccess {
        hits {
          score
          vectorRank
          keywordRank
          sourceUrn
          kind
          graphRefs
          chunk { id ordinal content knowledgeType tags }
        }
      }
      ... on Error { code message field }
    }
  }
`);

type Answer = SearchPageQuery["search"];
type Hit = Extract<Answer, { __typename: "SearchSuccess" }>["hits"][number];

export function SearchPage(_props: PageProps) {
  const [form, setForm] = useState<SearchForm>(EMPTY_FORM);
  const [answer, setAnswer] = useState<{ mode: SearchModeName; result: Answer } | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const update = (patch: Partial<SearchForm>) => setForm({ ...form, ...patch });

  async function run(event: Event) {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const data = await query(SearchDocument, searchVariables(form));
      setAnswer({ mode: form.mode, result: data.search });
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  }

  function toggleType(type: KnowledgeTypeName, on: boolean) {
    const rest = form.knowledgeTypes.filter((item) => item !== type);
    update({ knowledgeTypes: on ? [...rest, type] : rest });
  }

  return (
    <section class="page search-page">
      <h1>Search</h1>
      <form class="search-form" onSubmit={run}>
        <input
          id="search-query"
          type="search"
          placeholder="What are you looking for?"
          value={form.query}
          onInput={(event) => update({ query: event.currentTarget.value })}
          required
        />
        <select
          id="search-mode"
          value={form.mode}
          onChange={(event) => update({ mode: event.currentTarget.value as SearchModeName })}
        >
          {SEARCH_MODES.map((mode) => (
            <option value={mode}>{mode}</option>
          ))}
        </select>
        <button id="search-run" type="submit" disabled={busy}>
          {busy ? "Searching…" : "Search"}
        </button>
        <details class="search-filters">
          <summary>Filters</summary>
          <label>
            Kinds <input id="search-kinds" placeholder="doc, note" value={form.kinds}
              onInput={(event) => update({ kinds: event.currentTarget.value })} />
          </label>
          <label>
            Tags <input id="search-tags" placeholder="ownership, auth" value={form.tags}
              onInput={(event) => update({ tags: event.currentTarget.value })} />
          </label>
          <fieldset>
            <legend>Knowledge types</legend>
            {KNOWLEDGE_TYPES.map((type) => (
              <label class="inline">
                <input type="checkbox" checked={form.knowledgeTypes.includes(type)}
                  onChange={(event) => toggleType(type, event.currentTarget.checked)} />
                {type}
              </label>
            ))}
          </fieldset>
          <MoreFilters form={form} update={update} />
          <label>
            Limit <input id="search-limit" type="number" min={1} max={100} value={form.limit}
              onInput={(event) => update({ limit: Number(event.currentTarget.value) || 10 })} />
          </label>
        </details>
      </form>
      <ErrorLine error={failure} />
      {answer && <Results mode={answer.mode} result={answer.result} />}
    </section>
  );
}

type Update = (patch: Partial<SearchForm>) => void;
type TextField = "infoTypes" | "sourceKinds" | "connectionIds" | "entityKeys";
type DayField = "createdAfter" | "createdBefore" | "observedAfter" | "observedBefore";

const TEXT_FILTERS: [TextField, string, string, string][] = [
  ["infoTypes", "search-info-types", "Info types", "context, instructions"],
  ["sourceKinds", "search-source-kinds", "Source kinds", "jira, wiki"],
  ["connectionIds", "search-connections", "Connections", "jira-main"],
  ["entityKeys", "search-entities", "Nodes", "service:billing"],
];
const DAY_FILTERS: [DayField, string, string][] = [
  ["createdAfter", "search-created-after", "Stored from"],
  ["createdBefore", "search-created-before", "Stored before"],
  ["observedAfter", "search-observed-after", "Observed from"],
  ["observedBefore", "search-observed-before", "Observed before"],
];

function MoreFilters({ form, update }: { form: SearchForm; update: Update }) {
  return (
    <>
      {TEXT_FILTERS.map(([field, id, label, hint]) => (
        <label>
          {label} <input id={id} placeholder={hint} value={form[field]}
            onInput={(event) => update({ [field]: event.currentTarget.value })} />
        </label>
      ))}
      {DAY_FILTERS.map(([field, id, label]) => (
        <label>
          {label} <input id={id} type="date" value={form[field]}
            onInput={(event) => update({ [field]: event.currentTarget.value })} />
        </label>
      ))}
      <label>
        Vector weight <input id="search-vector-weight" type="number" step="any"
          placeholder="0..1" value={form.vectorWeight}
          disabled={form.mode !== "HYBRID"}
          onInput={(event) => update({ vectorWeight: event.currentTarget.value })} />
      </label>
    </>
  );
}

function Results({ mode, result }: { mode: SearchModeName; result: Answer }) {
  if (result.__typename !== "SearchSuccess") {
    return <ErrorLine error={memberError(result)} />;
  }
  if (result.hits.length === 0) return <p class="empty">No chunk matches.</p>;
  return (
    <ol class="search-hits">
      {result.hits.map((hit) => (
        <HitItem hit={hit} mode={mode} />
      ))}
    </ol>
  );
}

function HitItem({ hit, mode }: { hit: Hit; mode: SearchModeName }) {
  const ranks = [
    hit.vectorRank != null ? `vector #${hit.vectorRank}` : null,
    hit.keywordRank != null ? `keyword #${hit.keywordRank}` : null,
  ].filter(Boolean);
  return (
    <li class="search-hit" data-chunk={hit.chunk.id}>
      <div class="hit-head">
        <span class="hit-score">{scoreLabel(hit.score, mode)}</span>
        {ranks.length > 0 && <span class="hit-ranks">{ranks.join(" · ")}</span>}
        <span class="hit-source">{hit.sourceUrn}</span>
        <span class="hit-kind">
          {hit.kind}
          {hit.chunk.knowledgeType ? ` · ${hit.chunk.knowledgeType}` : ""} · chunk {hit.chunk.ordinal}
        </span>
      </div>
      <p class="hit-content">{excerpt(hit.chunk.content)}</p>
      {hit.chunk.tags.length > 0 && (
        <p class="hit-tags">{hit.chunk.tags.map((tag) => <span class="tag">{tag}</span>)}</p>
      )}
      {hit.graphRefs.length > 0 && (
        <p class="hit-nodes">
          Nodes:{" "}
          {hit.graphRefs.map((key) => (
            <a class="node-link" href={href("graph", key)}>
              {key}
            </a>
          ))}
        </p>
      )}
    </li>
  );
}
