// The console's entry: sign-in until a key is accepted, then the page the hash names,
// inside the layout. Everything it shows comes from the public GraphQL API.

import "./console.css";
import { render } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, resetSubscriptions } from "./api";
import { ErrorLine, Layout } from "./layout";
import { pages } from "./pages/index";
import { navigate, useRoute } from "./route";
import {
  SessionContext,
  canWrite,
  forgetKey,
  storedKey,
  useSession,
  type Session,
  type Viewer,
} from "./session";
import { SignIn, loadViewer } from "./signin";

type State =
  | { kind: "checking" }
  | { kind: "signed-out"; notice: string | null }
  | { kind: "signed-in"; viewer: Viewer };

function Routed() {
  const route = useRoute();
  const start = pages[0];
  const current = pages.find((entry) => entry.name === route.name);
  useEffect(() => {
    if (current === undefined && start !== undefined) navigate(start.name);
  }, [current, start]);
  const { viewer } = useSession();
  const nav = pages.filter((entry) => entry.nav && (!entry.writers || canWrite(viewer)));
  let body;
  if (current === undefined) body = null;
  else body = <current.component key={`${route.name}/${route.params.join("/")}`} params={route.params} />;
  return (
    <Layout nav={nav} current={route.name}>
      {body}
    </Layout>
  );
}

function App() {
  const [state, setState] = useState<State>(() =>
    storedKey() ? { kind: "checking" } : { kind: "signed-out", notice: null },
  );
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (state.kind !== "checking") return;
    loadViewer().then(
      (viewer) => setState({ kind: "signed-in", viewer }),
      (failure: unknown) => {
        if (failure instanceof ApiError && failure.unauthorized) {
          forgetKey();
          setState({ kind: "signed-out", notice: "The stored key is no longer accepted." });
        } else {
          setError(failure);
        }
      },
    );
  }, [state.kind]);

  const session = useMemo<Session | null>(
    () =>
      state.kind === "signed-in"
        ? {
            viewer: state.viewer,
            signOut: () => {
              forgetKey();
              resetSubscriptions();
              setState({ kind: "signed-out", notice: null });
            },
          }
        : null,
    [state],
  );

  if (state.kind === "signed-out") {
    return (
      <SignIn
        notice={state.notice}
        onSignedIn={(viewer) => setState({ kind: "signed-in", viewer })}
      />
    );
  }
  if (session === null) {
    return error ? <ErrorLine error={error} /> : <p class="hint">Checking the key…</p>;
  }
  return (
    <SessionContext.Provider value={session}>
      <Routed />
    </SessionContext.Provider>
  );
}

const root = document.getElementById("console");
if (root) render(<App />, root);
