import { defineCommand } from "citty";
import { commonArgs } from "../argv";
import { printJson, printRecord } from "../output";
import { scopesText } from "../scopes";
import { openSession, unwrap } from "../session";

export const whoami = defineCommand({
  meta: { name: "pm whoami", description: "Who the credential belongs to, in which workspace, with which role" },
  args: commonArgs,
  async run({ args }) {
    const session = openSession(args);
    const me = await unwrap(session.client.GET("/me"));
    if (args.json) return printJson(me);
    printRecord([
      ["user", `${me.user.name} <${me.user.email}>`],
      ["type", me.user.type],
      ["workspace", `${me.workspace.name} (${me.workspace.slug})`],
      ["role", me.role],
      ["scopes", scopesText(me.scopes)],
      // GET /me names the credential's teams by prefix, also for a credential that may not read teams.
      ["teams", me.teams === null ? "all" : me.teams.map((team) => team.prefix)],
      ["api", session.baseUrl],
    ]);
  },
});
