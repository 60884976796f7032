// Kenning's GraphiQL page: a key bar over GraphiQL, everything served by Kenning itself.

import "./workers.js"; // first: Monaco looks for its workers as soon as GraphiQL loads
import "graphiql/style.css";
import "./page.css";

import { GraphiQL } from "graphiql";
import { useEffect, useMemo, useState } from "react";
import { createRoot } from "react-dom/client";
import { loadKey, saveKey } from "./apiKey.js";
import { describeKey, kenningFetcher } from "./fetcher.js";
import { KeyBar } from "./KeyBar.jsx";

const DEFAULT_QUERY = `# Paste an API key above, then run a query (Ctrl-Enter).

{
  health {
    postgres
    redis
    kenning
  }
}
`;

function App() {
  const [key, setKey] = useState(loadKey);
  // A new fetcher per key: GraphiQL then fetches the schema again with the new key.
  const client = useMemo(() => kenningFetcher(key), [key]);
  useEffect(() => () => client.dispose(), [client]);
  // Say at once whether the server takes the key, and as whom.
  const [status, setStatus] = useState("No key in use");
  useEffect(() => {
    let current = true;
    describeKey(key).then((text) => current && setStatus(text));
    return () => {
      current = false;
    };
  }, [key]);

  function applyKey(next) {
    saveKey(next);
    setKey(next);
  }

  return (
    <div className="kenning-page">
      <KeyBar activeKey={key} status={status} onUse={applyKey} />
      <div className="kenning-graphiql">
        <GraphiQL fetcher={client.fetcher} defaultQuery={DEFAULT_QUERY} />
      </div>
    </div>
  );
}

createRoot(document.getElementById("graphiql")).render(<App />);
