// The frame around every page (navigation, who is signed in, sign-out) and the small pieces
// pages share: the degraded banner, an error line, a role-gated block.

import type { ComponentChildren } from "preact";
import { href } from "./route";
import { canWrite, useSession } from "./session";

export interface NavItem {
  name: string;
  title: string;
}

export function Layout(props: { nav: NavItem[]; current: string; children: ComponentChildren }) {
  const { viewer, signOut } = useSession();
  return (
    <div class="frame">
      <header class="top">
        <span class="brand">Kenning</span>
        <nav>
          {props.nav.map((item) => (
            <a
              key={item.name}
              href={href(item.name)}
              class={item.name === props.current ? "current" : undefined}
              aria-current={item.name === props.current ? "page" : undefined}
            >
              {item.title}
            </a>
          ))}
        </nav>
        <span class="who" data-testid="viewer">
          {viewer.keyId} · <b data-testid="role">{viewer.role.toLowerCase()}</b>
        </span>
        <button type="button" class="quiet" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>{props.children}</main>
    </div>
  );
}

/** The banner shown while a live feed is degraded (`when`), with what that means. */
export function Degraded(props: { when: boolean; children?: ComponentChildren }) {
  if (!props.when) return null;
  return (
    <div class="degraded" role="status" data-testid="degraded">
      {props.children ?? "Live updates are degraded: the view refreshes from the database every second."}
    </div>
  );
}

/** An error line, or nothing. */
export function ErrorLine(props: { error: unknown }) {
  if (props.error == null) return null;
  const message = props.error instanceof Error ? props.error.message : String(props.error);
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** Children only for keys that write (agent, admin). */
export function WriteOnly(props: { children: ComponentChildren }) {
  const { viewer } = useSession();
  return canWrite(viewer) ? <>{props.children}</> : null;
}
