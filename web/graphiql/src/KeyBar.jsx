// The key field above GraphiQL: paste a key, press "Use key" (or Enter), and every request
// from then on carries it. Stable ids for tests and for password managers to leave alone.

import { useState } from "react";

export function KeyBar({ activeKey, status, onUse }) {
  const [draft, setDraft] = useState(activeKey);

  function submit(event) {
    event.preventDefault();
    onUse(draft.trim());
  }

  function forget() {
    setDraft("");
    onUse("");
  }

  return (
    <form id="kenning-api-key-form" className="kenning-keybar" onSubmit={submit}>
      <label htmlFor="kenning-api-key">API key</label>
      <input
        id="kenning-api-key"
        name="api-key"
        type="password"
        autoComplete="off"
        spellCheck={false}
        placeholder="kn_…"
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
      />
      <button id="kenning-api-key-use" type="submit">
        Use key
      </button>
      <button id="kenning-api-key-forget" type="button" onClick={forget} disabled={!activeKey}>
        Forget
      </button>
      <span id="kenning-api-key-status" role="status">
        {status}
      </span>
      <span className="kenning-hint">
        Keys come from <code>kenning keys create --client &lt;id&gt; --role agent</code> (or{" "}
        <code>ui</code>, <code>admin</code>)
      </span>
    </form>
  );
}
