import { defineCommand } from "citty";
import { commonArgs } from "../argv";
import { printJson, printRecord } from "../output";
import { scopesText } from "../scopes";
import { openSession, unwrap } from "../session";
import { teamsText } from "./teams";

/** What the credential may do, in GET /me's answer (optional: an older API does not say). */
type Grants = { scopes?: string[]; teamIds?: string[] | null };

export const whoami = defineCommand({
  meta: { name: "pm whoami", description: "Who the credential belongs to, in which workspace, with which role" },
  args: commonArgs,
  async run({ args }) {
    const session = openSession(args);
    const answer = await unwrap(session.client.GET("/me"));
    const me = answer as typeof answer & Grants;
    if (args.json) return printJson(me);
    const teams = await teamsText(session, [me]);
    printRecord([
      ["user", `${me.user.name} <${me.user.email}>`],
      ["type", me.user.type],
      ["workspace", `${me.workspace.name} (${me.workspace.slug})`],
      ["role", me.role],
      ["scopes", scopesText(me.scopes)],
      ["teams", teams(me.teamIds)],
      ["api", session.baseUrl],
    ]);
  },
});
