import type { PageProps } from "../page";

export function RouterPage(_props: PageProps) {
  return <h1>Router</h1>;
}
