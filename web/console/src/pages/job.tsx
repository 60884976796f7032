import type { PageProps } from "../page";

export function JobPage(_props: PageProps) {
  return <h1>Job</h1>;
}
