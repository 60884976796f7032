// One console page as the registry (pages/index.ts) lists it: the route name it answers
// (`#/<name>/...`), its title in the navigation, and its component.
//
//   page("search", "Search", SearchPage)            shown in the navigation
//   page("jobs", "Job", JobPage, { nav: false })    reached by links only
//   notYet("memory", "Memory")                      a placeholder until the page lands

import type { ComponentType } from "preact";

export interface PageProps {
  /** The route's segments after the page's name, decoded: `#/jobs/42` gives ["42"]. */
  params: string[];
}

export interface Page {
  name: string;
  title: string;
  component: ComponentType<PageProps> | null;
  nav: boolean;
}

export function page(
  name: string,
  title: string,
  component: ComponentType<PageProps>,
  options: { nav?: boolean } = {},
): Page {
  return { name, title, component, nav: options.nav ?? true };
}

export function notYet(name: string, title: string): Page {
  return { name, title, component: null, nav: true };
}
