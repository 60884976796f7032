// Procedures matching a trigger or a description of the task: exact matches and similar
// ones, USER_DEFINED first, each with its steps, runs and score. Read only here: agents
// save procedures and record runs through the API.

import { useState } from "preact/hooks";
import { query } from "../api";
import type { MemoryProceduresQuery } from "../gql/graphql";
import { ErrorLine } from "../layout";
import { successText, when } from "./memoryView";
import { ProceduresDocument } from "./memoryQueries";

type Match = MemoryProceduresQuery["procedures"][number];

export function ProceduresSection() {
  const [text, setText] = useState("");
  const [matches, setMatches] = useState<Match[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function find(event: Event) {
    event.preventDefault();
    setError(null);
    try {
      setMatches((await query(ProceduresDocument, { text: text.trim() })).procedures);
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <section class="memory-section" data-testid="procedures">
      <h2>Procedures</h2>
      <form class="procedures-find" onSubmit={find}>
        <input id="procedures-text" placeholder="A trigger or what the task is" value={text} required
          onInput={(event) => setText(event.currentTarget.value)} />
        <button id="procedures-find" type="submit">Find</button>
      </form>
      <ErrorLine error={error} />
      {matches?.length === 0 && <p class="empty">No procedure matches.</p>}
      <ol class="procedures">
        {matches?.map(({ procedure, exactMatch, score }) => (
          <li key={procedure.id}>
            <b>{procedure.triggerPattern}</b> · {procedure.source} · score {score.toFixed(2)}
            {exactMatch && " · exact"} · {successText(procedure.successRate, procedure.usageCount)}
            {procedure.lastUsed && ` · last used ${when(procedure.lastUsed)}`}
            <p>{procedure.description}</p>
            <ol class="steps">
              {procedure.steps.map((step) => (
                <li>
                  {step.agent}: {step.action} <code>{JSON.stringify(step.parameters)}</code>
                </li>
              ))}
            </ol>
          </li>
        ))}
      </ol>
    </section>
  );
}
