// GET /worklogs/summary (docs/api.md, "Time tracking"): the seconds of the worklogs that started in [from, to), summed by
// author, team, project or task, in ONE statement that authenticates itself: the caller's workspace and teams bound the
// rows in SQL (a team-bound key sums only its teams), and the credential's liveness comes back with the sums.
import { type SQL, sql } from "drizzle-orm";
import { projects, tasks, teams, users, worklogs } from "../../../drizzle/schema";
import type { Caller } from "../../auth/caller";
import { worklogRecord } from "./record";
import { instant, type SummaryParams, type WorklogSummaryDto } from "./schema";

/** Each grouping: the key and the name of a worklog's row (over worklogs `w`, its task `t` and the joins it names). */
const GROUPS: Record<SummaryParams["groupBy"], { key: SQL; name: SQL; join: SQL }> = {
  user: { key: sql`w.user_id`, name: sql`g.name`, join: sql`left join ${users} as g on g.id = w.user_id` },
  team: { key: sql`w.team_id`, name: sql`g.name`, join: sql`join ${teams} as g on g.id = w.team_id` },
  project: { key: sql`t.project_id`, name: sql`g.name`, join: sql`left join ${projects} as g on g.id = t.project_id` },
  task: {
    key: sql`w.task_id`,
    name: sql`g.prefix || '-' || t.number`,
    join: sql`join ${teams} as g on g.id = t.team_id`,
  },
};

export async function worklogSummary(caller: Caller, params: SummaryParams): Promise<WorklogSummaryDto> {
  const group = GROUPS[params.groupBy];
  const bounds = [
    params.from ? sql` and ${worklogs.startedAt} >= ${instant(params.from)}::timestamptz` : sql``,
    params.to ? sql` and ${worklogs.startedAt} < ${instant(params.to)}::timestamptz` : sql``,
  ];
  // `w`: the worklogs the caller reaches (the record's workspace and teams) that started in the range.
  const { rows } = await caller.db.execute<{ live: boolean; rows: WorklogSummaryDto["rows"] | null }>(sql`
    with w as (select ${worklogs}.* from ${worklogs} where ${worklogRecord.inReach(caller.actor)}${bounds[0]}${bounds[1]}),
      sums as (select ${group.key} as key, ${group.name} as name, sum(w.duration_seconds)::bigint as seconds
        from w join ${tasks} as t on t.id = w.task_id ${group.join}
        group by 1, 2)
    select ${caller.live} as live,
      (select json_agg(json_build_object('key', key, 'name', name, 'seconds', seconds) order by seconds desc, name, key) from sums) as rows`);
  const [row] = rows;
  if (!row.live) throw await caller.refused();
  caller.touch();
  const sums = row.rows ?? [];
  return { rows: sums, totalSeconds: sums.reduce((total, r) => total + Number(r.seconds), 0) };
}
