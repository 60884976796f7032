// GraphiQL's fetcher for this server: HTTP POST to /graphql on this origin, subscriptions
// over graphql-transport-ws at ws(s)://<this host>/graphql. The key goes in the
// Authorization header over HTTP (headers typed in GraphiQL's editor still win) and in the
// connection_init payload over the websocket, where a browser cannot set headers.

import { createGraphiQLFetcher } from "@graphiql/toolkit";
import { parse } from "graphql";
import { createClient } from "graphql-ws";
import { bearer } from "./apiKey.js";

// The page is served at the GraphQL endpoint itself, whatever prefix a proxy adds.
const HTTP_URL = new URL(window.location.pathname, window.location.href).href;
const WS_URL = HTTP_URL.replace(/^http/, "ws");

// Kenning's refusals (401, 413, 503, ...) are GraphQL-shaped JSON and pass through; an
// answer that is not JSON (a proxy's error page) is shown as a GraphQL error with the
// server's words, instead of GraphiQL's JSON parse error.
async function fetchShowingRefusals(input, init) {
  const response = await fetch(input, init);
  const type = response.headers.get("content-type") ?? "";
  if (response.ok || type.includes("json")) return response;
  const text = (await response.text()).trim();
  const hint = response.status === 401 ? " (paste an API key in the field above)" : "";
  const body = { errors: [{ message: `${response.status}: ${text}${hint}` }] };
  return new Response(JSON.stringify(body), {
    status: response.status,
    headers: { "content-type": "application/json" },
  });
}

// The toolkit picks the websocket when the document GraphiQL hands it is a subscription,
// but GraphiQL parses the editor after a debounce: run right after a paste and it hands
// over the previous document and operation name, sending a subscription over HTTP or
// naming an operation the text no longer has. Parse what is sent instead.
function currentDocument(query, fallback) {
  try {
    return parse(query);
  } catch {
    return fallback; // invalid: the server's error says why
  }
}

// The operation to run: the one named, if the document has it; else the document's only
// operation (a name left over from the previous text); else the name as given.
function currentOperationName(document, name) {
  const operations = (document?.definitions ?? []).filter(
    (definition) => definition.kind === "OperationDefinition",
  );
  if (operations.some((operation) => operation.name?.value === name)) return name;
  return operations.length === 1 ? (operations[0].name?.value ?? null) : name;
}

/** A fetcher and its websocket client for one API key; call dispose() when replaced. */
export function kenningFetcher(key) {
  const wsClient = createClient({ url: WS_URL, connectionParams: () => bearer(key) });
  const toolkitFetcher = createGraphiQLFetcher({
    url: HTTP_URL,
    headers: bearer(key),
    wsClient,
    fetch: fetchShowingRefusals,
  });
  const fetcher = (params, opts) => {
    const documentAST = currentDocument(params.query, opts?.documentAST);
    const operationName = currentOperationName(documentAST, params.operationName);
    return toolkitFetcher({ ...params, operationName }, { ...opts, documentAST });
  };
  return { fetcher, dispose: () => wsClient.dispose() };
}

/** What the server says of a key: "Key in use: ADMIN of client acme", or why it refused. */
export async function describeKey(key) {
  if (!key) return "No key in use";
  try {
    const response = await fetch(HTTP_URL, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(key) },
      body: JSON.stringify({ query: "{ viewer { role scope { clientId projectId groupId } } }" }),
    });
    const body = await response.json();
    const viewer = body?.data?.viewer;
    if (!viewer) return `Key refused: ${body?.errors?.[0]?.message ?? response.status}`;
    const { clientId, projectId, groupId } = viewer.scope;
    const where = [clientId && `client ${clientId}`, projectId && `project ${projectId}`,
      groupId && `group ${groupId}`].filter(Boolean).join(", ") || "every client (global)";
    return `Key in use for this browser session: ${viewer.role} of ${where}`;
  } catch (error) {
    return `Key in use for this browser session (not checked: ${error})`;
  }
}
