// Set-up of the smoke files that share one `npm start` (the "smoke-shared" project of vitest.config.ts): the stack boots
// as the run starts, beside the other projects' set-up and first files, instead of once in each file (a boot is
// PostgreSQL's initdb, the migrations and wrangler's build: most of such a file's time). The files reach it through a
// control URL (test/smoke/lib/stack.mjs, sharedStack()): GET / answers once it is ready, GET /output is what it printed.
import { createServer } from "node:http";
import { newDataDir, startStack } from "./stack.mjs";

export default async function setup(project) {
  // On an empty data dir, as a person's first `npm start`: initdb and every migration, once a run.
  const booting = startStack({ dataDir: newDataDir() });
  booting.catch(() => {}); // a failed boot is each file's failure, told by GET /
  const server = createServer(async (req, res) => {
    try {
      const stack = await booting;
      if (req.url === "/output") res.writeHead(200, { "content-type": "text/plain" }).end(stack.output());
      else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ base: stack.base, dataDir: stack.dataDir }));
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error?.message ?? error));
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  project.provide("sharedStack", `http://127.0.0.1:${server.address().port}`);
  return async () => {
    server.close();
    await (await booting.catch(() => undefined))?.stop();
  };
}
