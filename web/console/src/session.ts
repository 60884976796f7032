// Who is signed in: the API key (kept in sessionStorage only, so it leaves with the tab) and
// what the server says the key is (`viewer`: role and scope). The role decides which
// controls a page shows; the server enforces it either way.
//
//   const { viewer } = useSession();  if (canWrite(viewer)) { ...buttons... }

import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Role } from "./gql/graphql";

const STORAGE_KEY = "kenning.console.apiKey";

export interface Viewer {
  keyId: string;
  role: Role;
  anonymous: boolean;
}

export interface Session {
  viewer: Viewer;
  signOut: () => void;
}

export function storedKey(): string | null {
  try {
    return window.sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage disabled: the key lives only as long as the page
  }
}

export function storeKey(key: string): void {
  window.sessionStorage.setItem(STORAGE_KEY, key.trim());
}

export function forgetKey(): void {
  window.sessionStorage.removeItem(STORAGE_KEY);
}

/** The Authorization header's value, or null without a key. */
export function bearer(): string | null {
  const key = storedKey();
  return key ? `Bearer ${key}` : null;
}

/** Agent and admin keys write (ingest, steer the queue); ui keys read. */
export function canWrite(viewer: Viewer): boolean {
  return viewer.role === "AGENT" || viewer.role === "ADMIN";
}

/** Admin keys also manage keys. */
export function canManageKeys(viewer: Viewer): boolean {
  return viewer.role === "ADMIN";
}

export const SessionContext = createContext<Session | null>(null);

/** The signed-in session; only pages rendered after sign-in call it. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error("useSession outside a signed-in console");
  return session;
}
