// Memory: the client's hard rules with their history, what is known about the user by
// category, the session's recent entries and procedures. Every key reads them; agent and
// admin keys also get the write forms (the server refuses ui keys either way).

import "./memory.css";
import type { PageProps } from "../page";
import { ProceduresSection } from "./memoryProcedures";
import { RulesSection } from "./memoryRules";
import { SessionSection } from "./memorySession";
import { UserSection } from "./memoryUser";

export function MemoryPage(_props: PageProps) {
  return (
    <section class="page memory-page">
      <h1>Memory</h1>
      <RulesSection />
      <UserSection />
      <SessionSection />
      <ProceduresSection />
    </section>
  );
}
