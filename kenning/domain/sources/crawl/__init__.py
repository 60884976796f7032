"""Web crawling: which pages to fetch, in what order, and what a page becomes."""
