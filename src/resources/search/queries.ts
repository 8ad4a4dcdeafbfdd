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

// Every branch names its columns: the first one present names the union's.
function branches(types: SearchType[], ref: ReturnType<typeof parseReference>, teams: TeamScope): SQL[] {
  const out: SQL[] = [];
  const exact = (project: boolean, alias: string) =>
    ref && ref.project === project ? sql`(tm.prefix = ${ref.prefix} and ${sql.raw(alias)}.number = ${ref.number})` : sql`false`;
  if (types.includes("task"))
    out.push(sql`select 'task' as type, t.id, tm.prefix || '-' || t.number as reference, t.title, t.description,
      case when ${exact(false, "t")} then ${EXACT}::numeric else ${rank(sql`t.search_vector`)} end as score
      from tasks t join teams tm on tm.id = t.team_id
      where t.workspace_id = (select id from ws) and ${inTeams(teams, sql`t.team_id`)}
        and (t.search_vector @@ (select query from q) or ${exact(false, "t")})`);
  if (types.includes("project"))
    out.push(sql`select 'project' as type, p.id, tm.prefix || '-P' || p.number as reference, p.name as title, p.description,
      case when ${exact(true, "p")} then ${EXACT}::numeric else ${rank(sql`p.search_vector`)} end as score
      from projects p join teams tm on tm.id = p.team_id
      where p.workspace_id = (select id from ws) and ${inTeams(teams, sql`p.team_id`)}
        and (p.search_vector @@ (select query from q) or ${exact(true, "p")})`);
  if (types.includes("milestone"))
    out.push(sql`select 'milestone' as type, m.id, null as reference, m.name as title, m.description, ${rank(sql`m.search_vector`)} as score
      from milestones m join projects mp on mp.id = m.project_id
      where m.workspace_id = (select id from ws) and ${inTeams(teams, sql`mp.team_id`)} and m.search_vector @@ (select query from q)`);
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
