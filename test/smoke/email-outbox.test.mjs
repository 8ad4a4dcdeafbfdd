// `npm start` keeps the email it accepted: invites and sign-ups made right before a Ctrl-C are delivered before the
// stack stops (the stop waits for the email outbox) or, if they were not yet, at the next start on the same data; none
// twice. Before the outbox, Ctrl-C lost nearly all of them (PostgreSQL and wrangler stopped at once, the local queue
// with them). Boots the real start script twice; runs in Node, not workerd.
import { afterAll, describe, expect, it } from "vitest";
import { STARTUP_MS, signUp, startStack, unique } from "./lib/stack.mjs";

const EACH = 5;
let first;
let second;

afterAll(async () => {
  // The second run owns the data dir once it has started; stopping either removes it.
  await (second ?? first)?.stop();
}, 60_000);

describe("npm start stopped right after accepting email", () => {
  it(
    "delivers every invite and sign-up email exactly once, before the stop or after the next start",
    async () => {
      first = await startStack();
      const owner = await signUp(first, "outbox-owner");
      const invitees = Array.from({ length: EACH }, () => unique("outbox-invitee"));
      const signees = Array.from({ length: EACH }, () => unique("outbox-signup"));
      const answers = await Promise.all([
        ...invitees.map((email) => first.call("POST", "/invites", { key: owner.key, body: { email } })),
        ...signees.map((email) => first.call("POST", "/signup/start", { body: { email } })),
      ]);
      expect(answers.map((a) => a.status)).toEqual([...invitees.map(() => 201), ...signees.map(() => 200)]);

      const { ms, output } = await first.interrupt();
      expect(output).toMatch(/SIGINT: stopping/);
      expect(ms, output.slice(-3000)).toBeLessThan(20_000);

      second = await startStack({ dataDir: first.dataDir });
      for (const email of [...invitees, ...signees]) expect((await second.mail(email)).to).toBe(email);
      // A mail sent twice would arrive within the consumer's batch window (a second): wait that, then count.
      await new Promise((r) => setTimeout(r, 2000));
      for (const email of [...invitees, ...signees]) {
        const box = await second.call("GET", `/_dev/mailbox?to=${encodeURIComponent(email)}`);
        expect(box.body.messages, email).toHaveLength(1);
      }
      const invite = await second.mail(invitees[0]);
      expect(invite.subject).toMatch(/invited you/);
    },
    2 * STARTUP_MS + 60_000,
  );
});
