import type { PageProps } from "../page";

export function QueuePage(_props: PageProps) {
  return <h1>Queue</h1>;
}
