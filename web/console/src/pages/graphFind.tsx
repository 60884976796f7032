// Finding a node by what a person knows of it (a name, part of a key, a typo) with
// `findNodes`: one exact match opens at once, otherwise the matches are listed to choose from.

import { query } from "../api";
import { ErrorLine } from "../layout";
import { GraphFindDocument } from "./graphQueries";
import type { NodeMatch } from "./graphQueries";
import { memberError } from "./searchForm";

const FIND_LIMIT = 12;

export type FindOutcome = { open: string } | { matches: NodeMatch[] } | { error: string };

/** What typing `text` leads to: the node to open, matches to choose from, or why not. */
export async function findNode(text: string): Promise<FindOutcome> {
  const answer = (await query(GraphFindDocument, { query: text, limit: FIND_LIMIT })).findNodes;
  if (answer.__typename !== "FoundNodes") return { error: memberError(answer) };
  const [first, second] = answer.matches;
  if (first?.exact && !second?.exact) return { open: first.key };
  return { matches: answer.matches };
}

export function MatchList(props: { matches: NodeMatch[] | null; onOpen: (key: string) => void }) {
  const { matches } = props;
  if (matches === null) return null;
  if (matches.length === 0) return <ErrorLine error="No visible node matches." />;
  return (
    <ol class="graph-matches" data-testid="graph-matches">
      {matches.map((match) => (
        <li key={match.key}>
          <button type="button" class="quiet" onClick={() => props.onOpen(match.key)}>
            <b>{match.label}</b> <span class="mono">{match.key}</span>
          </button>
          <span class="hint">
            {match.type} · {match.matchedOn.toLowerCase()} · {match.score.toFixed(2)}
          </span>
        </li>
      ))}
    </ol>
  );
}
