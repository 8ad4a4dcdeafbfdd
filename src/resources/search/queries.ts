import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { inTeams, type Reach, type TeamScope } from "../../db/scope";
import type { SearchType } from "./schema";

export interface SearchRow {
  type: SearchType;
  id: string;
  reference: string | null;
  title: string;
  snippet: string;
  score: string;
}

export interface SearchInput {
  q: string;
  types: SearchType[];
  limit: number;
  after?: { score: string; id: string };
}

// An exact reference outranks every text match (ts_rank_cd stays far below 1000).
const EXACT = 1000;
// Scores are rounded numerics so the keyset (score desc, id) compares exactly what the cursor carried.
const rank = (vector: SQL) => sql`round(ts_rank_cd(${vector}, (select query from q))::numeric, 6)`;
const headline = (text: SQL) =>
  sql`ts_headline('simple', ${text}, (select query from q), 'StartSel=«, StopSel=», MaxWords=25, MinWords=8, MaxFragments=1, FragmentDelimiter=" … "')`;

/** `ENG-12` or `eng-p3`: the team prefix, whether it names a project, and the number. */
function parseReference(q: string) {
  const m = /^([A-Za-z][A-Za-z0-9]*)-(P?)(\d{1,9})$/i.exec(q.trim());
  return m ? { prefix: m[1].toUpperCase(), project: m[2] !== "", number: Number(m[3]) } : null;
}

/**
 * At most this many text matches of each type are ranked (docs/api.md, search): a query matching more ranks the first
 * ones the index yields, in storage order, so its cost stays that of a few thousand rows however large the workspace.
 * Below it every match is ranked and the answer is exact.
 */
export const RANKED_MATCHES = 2000;

// Every branch names its columns: the first one present names the union's. A task's or project's exact reference is a
// branch of its own, so the cap on text matches never leaves it out.
function branches(types: SearchType[], ref: ReturnType<typeof parseReference>, teams: TeamScope): SQL[] {
  const out: SQL[] = [];
  const capped = (select: SQL) => sql`(${select} limit ${RANKED_MATCHES})`;
  const exact = (project: boolean, alias: string) =>
    ref && ref.project === project ? sql`(tm.prefix = ${ref.prefix} and ${sql.raw(alias)}.number = ${ref.number})` : null;
  /** A task's or project's branch: its exact reference (score 1000) and its ranked text matches. */
  const referenced = (project: boolean, select: SQL, from: SQL, vector: SQL) => {
    const isExact = exact(project, project ? "p" : "t");
    if (isExact) out.push(sql`(${select}, ${EXACT}::numeric as score ${from} and ${isExact})`);
    out.push(
      capped(
        sql`${select}, ${rank(vector)} as score ${from} and ${vector} @@ (select query from q)${isExact ? sql` and not ${isExact}` : sql``}`,
      ),
    );
  };
  if (types.includes("task"))
    referenced(
      false,
      sql`select 'task' as type, t.id, tm.prefix || '-' || t.number as reference, t.title, t.description`,
      sql`from tasks t join teams tm on tm.id = t.team_id where t.workspace_id = (select id from ws) and ${inTeams(teams, sql`t.team_id`)}`,
      sql`t.search_vector`,
    );
  if (types.includes("project"))
    referenced(
      true,
      sql`select 'project' as type, p.id, tm.prefix || '-P' || p.number as reference, p.name as title, p.description`,
      sql`from projects p join teams tm on tm.id = p.team_id where p.workspace_id = (select id from ws) and ${inTeams(teams, sql`p.team_id`)}`,
      sql`p.search_vector`,
    );
  if (types.includes("milestone"))
    out.push(
      capped(sql`select 'milestone' as type, m.id, null as reference, m.name as title, m.description, ${rank(sql`m.search_vector`)} as score
      from milestones m join projects mp on mp.id = m.project_id
      where m.workspace_id = (select id from ws) and ${inTeams(teams, sql`mp.team_id`)} and m.search_vector @@ (select query from q)`),
    );
  return out;
}

/** One statement: the caller's workspace and teams (from the credential), the ranked matches, and the page's snippets. */
export async function searchRows(db: Db, { workspace, teams }: Reach, input: SearchInput): Promise<SearchRow[]> {
  const after = input.after
    ? sql`where (score < ${input.after.score}::numeric or (score = ${input.after.score}::numeric and id > ${input.after.id}))`
    : sql``;
  const result = await db.execute(sql`
    with ws as (select ${workspace} as id), q as (select websearch_to_tsquery('simple', ${input.q}) as query),
    hits as (${sql.join(branches(input.types, parseReference(input.q), teams), sql` union all `)}),
    page as (select * from hits ${after} order by score desc, id limit ${input.limit})
    select type, id, reference, title, score::text as score,
      case when to_tsvector('simple', description) @@ (select query from q) then ${headline(sql`description`)}
        else ${headline(sql`title`)} end as snippet
    from page order by score desc, id`);
  return result.rows as unknown as SearchRow[];
}
