import { defineCommand } from "citty";
import { commonArgs } from "../argv";
import { printJson, printRecord } from "../output";
import { openSession, unwrap } from "../session";

export const whoami = defineCommand({
  meta: { name: "pm whoami", description: "Who the credential belongs to, in which workspace, with which role" },
  args: commonArgs,
  async run({ args }) {
    const { baseUrl, client } = openSession(args["base-url"]);
    const me = await unwrap(client.GET("/me"));
    if (args.json) return printJson(me);
    printRecord([
      ["user", `${me.user.name} <${me.user.email}>`],
      ["type", me.user.type],
      ["workspace", `${me.workspace.name} (${me.workspace.slug})`],
      ["role", me.role],
      ["api", baseUrl],
    ]);
  },
});
