// The sign-in form: the key is checked with a `viewer` query before it is kept.

import { useState } from "preact/hooks";
import { ApiError, query } from "./api";
import { graphql } from "./gql";
import { ErrorLine } from "./layout";
import { forgetKey, storeKey, type Viewer } from "./session";

export const ViewerDocument = graphql(`
  query ConsoleViewer {
    viewer {
      keyId
      role
      anonymous
    }
  }
`);

/** The viewer behind the stored key; ApiError when the server refuses it. */
export async function loadViewer(): Promise<Viewer> {
  const data = await query(ViewerDocument, {});
  return data.viewer;
}

export function SignIn(props: { onSignedIn: (viewer: Viewer) => void; notice?: string | null }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(props.notice ?? null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    if (!key.trim()) {
      setError("Paste an API key (kn_…).");
      return;
    }
    setBusy(true);
    setError(null);
    storeKey(key);
    try {
      const viewer = await loadViewer();
      if (viewer.anonymous) throw new ApiError(401, [{ message: "the key was not accepted" }]);
      props.onSignedIn(viewer);
    } catch (failure) {
      forgetKey();
      setError(
        failure instanceof ApiError && failure.unauthorized
          ? "That key was not accepted: check it, or ask an admin for a new one."
          : `Sign-in failed: ${failure instanceof Error ? failure.message : String(failure)}`,
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="signin" onSubmit={submit}>
      <h1>Kenning console</h1>
      <label for="api-key">API key</label>
      <input
        id="api-key"
        name="api-key"
        type="password"
        autocomplete="off"
        value={key}
        onInput={(event) => setKey(event.currentTarget.value)}
        placeholder="kn_…"
      />
      <button type="submit" disabled={busy}>
        Sign in
      </button>
      <p class="hint">The key is kept for this browser tab only.</p>
      <ErrorLine error={error} />
    </form>
  );
}
