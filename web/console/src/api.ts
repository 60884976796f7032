// The console's only way to the server: the public GraphQL API. Queries and mutations are
// POSTs to /graphql with the key in the Authorization header; subscriptions go over
// graphql-transport-ws to the same path, the key in connection_init (a browser cannot set
// a websocket's headers). Documents come from `graphql(...)` in ./gql, typed by codegen.
//
//   const data = await query(ViewerDocument, {});
//   const stop = subscribe(QueueDocument, { first: 20 }, (data) => setQueue(data.queueStatus));

import { createClient, type Client } from "graphql-ws";
import type { TypedDocumentString } from "./gql/graphql";
import { bearer } from "./session";

// Relative to the console's page (/console/), so a proxy's path prefix is kept.
const HTTP_URL = new URL("../graphql", window.location.href).href;
const WS_URL = HTTP_URL.replace(/^http/, "ws");

export interface GraphQLErrorItem {
  message: string;
  path?: readonly (string | number)[];
  extensions?: Record<string, unknown>;
}

/** A refused or failed request: HTTP status (0 for the websocket) and the server's words. */
export class ApiError extends Error {
  readonly status: number;
  readonly errors: readonly GraphQLErrorItem[];

  constructor(status: number, errors: readonly GraphQLErrorItem[]) {
    super(errors.map((error) => error.message).join("; ") || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.errors = errors;
  }

  /** True when the key is missing, unknown or revoked. */
  get unauthorized(): boolean {
    return this.status === 401;
  }
}

interface Answer<R> {
  data?: R | null;
  errors?: GraphQLErrorItem[];
}

/** Run a query or mutation; resolves to `data`, rejects with ApiError on any error. */
export async function query<R, V>(document: TypedDocumentString<R, V>, variables: V): Promise<R> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/graphql-response+json, application/json",
  };
  const auth = bearer();
  if (auth) headers.authorization = auth;
  let response: Response;
  try {
    response = await fetch(HTTP_URL, {
      method: "POST",
      headers,
      body: JSON.stringify({ query: document.toString(), variables }),
    });
  } catch (error) {
    throw new ApiError(0, [{ message: `the server cannot be reached (${String(error)})` }]);
  }
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("json")) {
    const text = (await response.text()).trim().slice(0, 300);
    throw new ApiError(response.status, [{ message: `${response.status}: ${text}` }]);
  }
  const answer = (await response.json()) as Answer<R>;
  if (answer.errors?.length || answer.data == null) {
    throw new ApiError(response.status, answer.errors ?? [{ message: "no data in the answer" }]);
  }
  return answer.data;
}

let client: Client | null = null;

function wsClient(): Client {
  if (client === null) {
    client = createClient({
      url: WS_URL,
      lazy: true,
      retryAttempts: Infinity,
      shouldRetry: () => true,
      connectionParams: () => {
        const auth = bearer();
        return auth ? { Authorization: auth } : {};
      },
    });
  }
  return client;
}

/** Close the websocket (after sign-out: the next subscription authenticates anew). */
export function resetSubscriptions(): void {
  const old = client;
  client = null;
  void old?.dispose();
}

/**
 * Subscribe; `onNext` gets each event's data, `onError` a failure (the client reconnects on
 * its own after a dropped socket). Returns the function that stops the subscription.
 */
export function subscribe<R, V>(
  document: TypedDocumentString<R, V>,
  variables: V,
  onNext: (data: R) => void,
  onError?: (error: ApiError) => void,
  onComplete?: () => void,
): () => void {
  return wsClient().subscribe<R>(
    { query: document.toString(), variables: variables as Record<string, unknown> },
    {
      next: (answer) => {
        if (answer.errors?.length) {
          onError?.(new ApiError(0, answer.errors as GraphQLErrorItem[]));
        } else if (answer.data != null) {
          onNext(answer.data);
        }
      },
      error: (error) => onError?.(new ApiError(0, [{ message: describe(error) }])),
      complete: () => onComplete?.(),
    },
  );
}

function describe(error: unknown): string {
  if (Array.isArray(error)) return error.map((item) => String(item?.message ?? item)).join("; ");
  if (error instanceof CloseEvent) return `the live feed closed (${error.code} ${error.reason})`;
  if (error instanceof Error) return error.message;
  return "the live feed failed";
}
