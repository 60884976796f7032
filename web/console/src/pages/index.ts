// The console's pages, one line each, in navigation order. The first is the start page.
// Register a page with `page(name, title, Component)` (see ../page.ts).

import { page, type Page } from "../page";
import { GraphPage } from "./graph";
import { IngestPage } from "./ingest";
import { JobPage } from "./job";
import { MemoryPage } from "./memory";
import { QueuePage } from "./queue";
import { RouterPage } from "./router";
import { SearchPage } from "./search";

export const pages: Page[] = [
  page("queue", "Queue", QueuePage),
  page("search", "Search", SearchPage),
  page("graph", "Graph", GraphPage),
  page("router", "Router", RouterPage),
  page("memory", "Memory", MemoryPage),
  page("ingest", "Ingest", IngestPage, { writers: true }),
  page("jobs", "Job", JobPage, { nav: false }),
];
