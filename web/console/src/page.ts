// One console page as the registry (pages/index.ts) lists it: the route name it answers
// (`#/<name>/...`), its title in the navigation, and its component.
//
//   page("search", "Search", SearchPage)            shown in the navigation
//   page("jobs", "Job", JobPage, { nav: false })    reached by links only
//   page("ingest", "Ingest", IngestPage, { writers: true })   in the navigation of keys
//                                                   that may write only

import type { ComponentType } from "preact";

export interface PageProps {
  /** The route's segments after the page's name, decoded: `#/jobs/42` gives ["42"]. */
  params: string[];
}

export interface Page {
  name: string;
  title: string;
  component: ComponentType<PageProps>;
  nav: boolean;
  /** Listed in the navigation only for keys that may write (the page says so to others). */
  writers: boolean;
}

export function page(
  name: string,
  title: string,
  component: ComponentType<PageProps>,
  options: { nav?: boolean; writers?: boolean } = {},
): Page {
  return { name, title, component, nav: options.nav ?? true, writers: options.writers ?? false };
}
