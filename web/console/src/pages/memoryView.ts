// The memory page's plain logic: the fixed orders the API uses, and how a
// rule's version line and a timestamp read.

export const RULE_TYPES = [
  "ROUTING",
  "NOTIFICATION",
  "VALIDATION",
  "PROCESSING",
  "SECURITY",
  "CUSTOM",
] as const;
export type RuleTypeName = (typeof RULE_TYPES)[number];

export const SESSION_SOURCES = ["CHAT", "BACKGROUND", "ORCHESTRATOR_DECISION"] as const;

export const KNOWLEDGE_CATEGORIES = [
  "PREFERENCE",
  "DOMAIN",
  "TEAM",
  "TECH_STACK",
  "PERSONAL",
  "GENERAL",
] as const;

/** "2026-11-25 20:31" in the browser's time zone; "" for nothing. */
export function when(iso: string | null | undefined): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number) => String(value).padStart(2, "0");
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

export interface RuleVersion {
  version: number;
  createdAt: string;
  supersededAt?: string | null;
  deletedAt?: string | null;
}

/** "v3 · current", "v2 · superseded 2026-…", "v4 · deleted 2026-…". */
export function versionState(rule: RuleVersion): string {
  if (rule.deletedAt) return `v${rule.version} · deleted ${when(rule.deletedAt)}`;
  if (rule.supersededAt) return `v${rule.version} · superseded ${when(rule.supersededAt)}`;
  return `v${rule.version} · current`;
}

/** A project id from the form: blank means the key's default (null to the API). */
export function projectOrNull(text: string): string | null {
  const trimmed = text.trim();
  return trimmed === "" ? null : trimmed;
}

/** A success rate as a person reads it: "80 % of 5 runs", "never run". */
export function successText(rate: number | null | undefined, runs: number): string {
  if (rate == null || runs === 0) return "never run";
  return `${Math.round(rate * 100)} % of ${runs} run${runs === 1 ? "" : "s"}`;
}
