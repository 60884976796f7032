// Types for every GraphQL document in src/ (written with `graphql(...)` from "./gql"), checked
// against the committed schema: a schema change that breaks the console fails `npm run check`.
// Documents are plain strings at run time (documentMode "string"): no GraphQL parser ships.
import type { CodegenConfig } from "@graphql-codegen/cli";

const config: CodegenConfig = {
  schema: "../../schema.graphql",
  documents: ["src/**/*.ts", "src/**/*.tsx", "!src/gql/**/*"],
  ignoreNoDocuments: true,
  generates: {
    "src/gql/": {
      preset: "client",
      config: {
        documentMode: "string",
        enumsAsTypes: true,
        useTypeImports: true,
        scalars: { DateTime: "string", JSON: "unknown", ID: "string" },
      },
      presetConfig: { fragmentMasking: false },
    },
  },
  silent: true,
};

export default config;
