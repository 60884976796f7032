// Hash routes: `#/queue`, `#/jobs/<id>`, `#/graph/<key>`. The first segment names a page of
// the registry (pages/index.ts); the rest are its decoded params.
//
//   <a href={href("graph", node.key)}>   navigate("jobs", jobId)

import { useEffect, useState } from "preact/hooks";

export interface Route {
  name: string;
  params: string[];
}

export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter((part) => part !== "");
  const [name = "", ...rest] = parts.map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  return { name, params: rest };
}

/** The hash link of page `name` with `params` (each encoded). */
export function href(name: string, ...params: string[]): string {
  return `#/${[name, ...params].map(encodeURIComponent).join("/")}`;
}

export function navigate(name: string, ...params: string[]): void {
  window.location.hash = href(name, ...params);
}

/** The current route, updated on every hash change. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(window.location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
