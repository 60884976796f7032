// The caller's session memory (the newest unexpired entries of its client and project) and,
// for agent and admin keys, a form that appends an entry (optionally promoted to knowledge).

import { useState } from "preact/hooks";
import { query } from "../api";
import type { SessionSource } from "../gql/graphql";
import { ErrorLine, WriteOnly } from "../layout";
import { SESSION_SOURCES, when } from "./memoryView";
import { AppendSessionDocument, SessionDocument, useLoad } from "./memoryQueries";
import { memberError } from "./searchForm";

export function SessionSection() {
  const session = useLoad(() => query(SessionDocument, {}), []);
  const entries = session.data?.sessionMemory ?? [];
  return (
    <section class="memory-section" data-testid="session-memory">
      <h2>Session memory</h2>
      <ErrorLine error={session.error} />
      {session.data && entries.length === 0 && <p class="empty">No session entry.</p>}
      <ol class="session-entries">
        {entries.map((entry) => (
          <li key={entry.id}>
            <span class="hint">{when(entry.createdAt)} · {entry.source}</span> {entry.summary}
            {entry.taskId && <span class="hint"> · task {entry.taskId}</span>}
            {entry.promoted && <span class="tag">promoted</span>}
            <span class="hint"> · expires {when(entry.expiresAt)}</span>
          </li>
        ))}
      </ol>
      <WriteOnly>
        <AppendForm onAppended={session.reload} />
      </WriteOnly>
    </section>
  );
}

function AppendForm({ onAppended }: { onAppended: () => void }) {
  const [source, setSource] = useState<SessionSource>("CHAT");
  const [summary, setSummary] = useState("");
  const [promote, setPromote] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function append(event: Event) {
    event.preventDefault();
    setError(null);
    try {
      const answer = (await query(AppendSessionDocument, { source, summary, promote })).appendSessionEntry;
      if (answer.__typename !== "AppendSessionEntrySuccess") return setError(memberError(answer));
      setSummary("");
      onAppended();
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <form class="session-form" onSubmit={append}>
      <select id="session-source" value={source}
        onChange={(event) => setSource(event.currentTarget.value as SessionSource)}>
        {SESSION_SOURCES.map((name) => <option value={name}>{name}</option>)}
      </select>
      <input id="session-summary" maxLength={200} placeholder="What happened (≤ 200 characters)"
        value={summary} required onInput={(event) => setSummary(event.currentTarget.value)} />
      <label class="inline">
        <input type="checkbox" checked={promote} onChange={(event) => setPromote(event.currentTarget.checked)} />
        also ingest
      </label>
      <button id="session-append" type="submit">Append</button>
      <ErrorLine error={error} />
    </form>
  );
}
