// A batch item of a list or a nested list runs as a call of its route's read with the batch's caller: no request
// through the app, the same answer as the direct GET (its validation, scope and errors included).
import { beforeAll, describe, expect, it, vi } from "vitest";
import { app } from "../../../src/app";
import { api, get } from "../../helpers/api";
import { addMember, newTeam, newTenant, type TeamFixture, type Tenant } from "../../helpers/fixtures";

const batch = (requests: unknown, key?: string) => api("POST", "/batch", { body: { requests }, key });

describe("POST /batch list items", () => {
  let t: Tenant;
  let team: TeamFixture;

  beforeAll(async () => {
    t = await newTenant("Batch reads");
    team = await newTeam(t);
    await newTeam(t);
  });

  it("runs list and nested-list items as the list's read, not through the app, answering as the direct GET", async () => {
    const member = await addMember(t, "MEMBER");
    const requests = [
      "/teams",
      "/teams?limit=1",
      "/teams?limit=nope",
      "/teams?sort=nope",
      "/teams?limit=1&limit=2",
      `/teams/${team.id}/members`,
      "/teams/00000000-0000-0000-0000-000000000000/members",
      "/teams/not-a-uuid/members",
      "/projects?limit=2",
      "/labels",
      "/users",
    ];
    for (const key of [t.owner.key, member.key]) {
      const throughApp = vi.spyOn(app, "fetch");
      try {
        const res = await batch(requests, key);
        expect(res.status).toBe(200);
        expect(throughApp).not.toHaveBeenCalled();
        const direct = await Promise.all(requests.map((p) => get(p, key)));
        expect(res.body.results).toEqual(
          direct.map((d) =>
            d.status === 422
              ? {
                  error: {
                    code: "VALIDATION_FAILED",
                    message: expect.any(String),
                    details: { errors: d.body.errors },
                  },
                }
              : d.body,
          ),
        );
        expect(direct.map((d) => d.status)).toContain(200);
      } finally {
        throughApp.mockRestore();
      }
    }
  });
});
