// `npm run db:migrate`: applies the migrations (the versioned ones, then the SQL functions' files) to DATABASE_URL, as
// `npm start` and the tests do (scripts/lib/migrate.mjs). Production runs it with Neon's direct connection string
// before deploying the code (docs/deploy.md).
import { applyMigrations } from "./lib/migrate.mjs";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL is not set: the connection string of the database to migrate (Neon's direct one)");
  process.exit(1);
}
const { versioned, functions } = await applyMigrations(url);
console.log(`migrations applied: ${versioned} versioned; functions: ${functions.join(", ") || "none changed"}`);
