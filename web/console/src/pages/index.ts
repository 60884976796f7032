// The console's pages, one line each, in navigation order. The first is the start page.
// Register a page with `page(name, title, Component)` (see ../page.ts).

import { notYet, page, type Page } from "../page";
import { JobPage } from "./job";
import { QueuePage } from "./queue";
import { RouterPage } from "./router";

export const pages: Page[] = [
  page("queue", "Queue", QueuePage),
  notYet("search", "Search"),
  notYet("graph", "Graph"),
  page("router", "Router", RouterPage),
  notYet("memory", "Memory"),
  notYet("ingest", "Ingest"),
  page("jobs", "Job", JobPage, { nav: false }),
];
