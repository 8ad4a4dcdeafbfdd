import { PgDialect } from "drizzle-orm/pg-core";

/**
 * The one SQL dialect: what the databases render statements with (client.ts), and what renders a statement's text ahead
 * of them (a record's JSON made once, event-context's BEGIN, the batched reads), so both give the same text.
 */
export const sqlDialect = new PgDialect();
