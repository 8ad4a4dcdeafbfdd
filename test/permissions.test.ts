// The permissions of docs/api.md proven with real people: the owner signs up, builds a team through the API and invites a
// colleague, who joins through the email the queue delivered, as a user of the product would.
import { beforeAll, describe, expect, it } from "vitest";
import { del, get, patch, post, uniqueEmail } from "./helpers/api";
import { mailTo, startSignup } from "./helpers/signup";

const tokenIn = (mail: { text: string }) => /Invite token: (\S+)/.exec(mail.text)![1];

/** Invites `email` as `by` and accepts the invite with the token read from the delivered email. */
async function joinByInvite(by: string, body: Record<string, unknown>, name: string) {
  const sent = await post("/invites", body, by);
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  const mail = await mailTo(String(body.email));
  expect(mail.html).toContain(tokenIn(mail));
  const res = await post("/invites/redeem", { token: tokenIn(mail), name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const key = res.body.data.api_token as string;
  const me = (await get("/me", key)).body;
  return { key, userId: me.user.id as string, role: me.role as string };
}

describe("permissions with a colleague who joined by invite", () => {
  let owner: string;
  let ownerId: string;
  let teamId: string;
  let prefix: string;
  let colleague: { key: string; userId: string };
  let ownerTask: any;
  let ownerProject: any;
  let ownerComment: any;

  beforeAll(async () => {
    const email = uniqueEmail("founder");
    const { token, code } = await startSignup(email);
    const done = await post("/signup/complete", { signup_token: token, code, name: "Founder", workspace_name: "Permissions Inc" });
    expect(done.status).toBe(201);
    owner = done.body.data.api_token;
    ownerId = (await get("/me", owner)).body.user.id;
    prefix = `P${Date.now().toString(36).slice(-5).toUpperCase()}`;
    const team = await post("/teams", { name: "Product", prefix }, owner);
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    teamId = team.body.team.id;
    ownerProject = (await post("/projects", { name: "Roadmap", teamId }, owner)).body.project;
    ownerTask = (await post("/tasks", { title: "Owner's task", teamId, projectId: ownerProject.id }, owner)).body.task;
    ownerComment = (await post("/comments", { taskId: ownerTask.id, content: "By the owner" }, owner)).body.comment;
    expect([ownerProject?.id, ownerTask?.id, ownerComment?.id].every(Boolean)).toBe(true);

    const joined = await joinByInvite(owner, { email: uniqueEmail("colleague"), teamIds: [teamId], teamRole: "VIEWER" }, "Colleague");
    expect(joined.role).toBe("MEMBER");
    colleague = joined;
  });

  const membershipOf = async (userId: string) => {
    const members = (await get(`/teams/${teamId}/members`, owner)).body.members;
    return members.find((m: any) => m.id === userId) as { membershipId: string; role: string };
  };

  it("as a team VIEWER: reads tasks and projects, cannot create or update them (403)", async () => {
    expect((await membershipOf(colleague.userId)).role).toBe("VIEWER");
    const k = colleague.key;
    expect((await get("/tasks", k)).body.tasks.map((t: any) => t.id)).toContain(ownerTask.id);
    expect((await get(`/tasks/${ownerTask.reference}`, k)).status).toBe(200);
    expect((await get("/projects", k)).body.projects.map((p: any) => p.id)).toContain(ownerProject.id);
    expect((await get(`/projects/${ownerProject.id}`, k)).status).toBe(200);
    expect((await get(`/tasks/${ownerTask.id}/comments`, k)).body.comments).toHaveLength(1);
    const refused = [
      await post("/tasks", { title: "Nope", teamId }, k),
      await patch(`/tasks/${ownerTask.id}`, { title: "Renamed" }, k),
      await post("/projects", { name: "Nope", teamId }, k),
      await patch(`/projects/${ownerProject.id}`, { name: "Renamed" }, k),
      await post("/milestones", { projectId: ownerProject.id, name: "Nope" }, k),
      await post("/comments", { taskId: ownerTask.id, content: "Nope" }, k),
      await del(`/tasks/${ownerTask.id}`, k),
    ];
    for (const res of refused) {
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.error.code).toBe("FORBIDDEN");
    }
    expect((await get(`/tasks/${ownerTask.id}`, owner)).body.task.title).toBe("Owner's task");
  });

  describe("after the owner makes them a team MEMBER", () => {
    let mine: { task: any; project: any; milestone: any; comment: any };

    beforeAll(async () => {
      const { membershipId } = await membershipOf(colleague.userId);
      const res = await patch(`/team-members/${membershipId}`, { role: "MEMBER" }, owner);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.teamMember.role).toBe("MEMBER");
    });

    it("writes tasks, projects, milestones and comments", async () => {
      const k = colleague.key;
      const project = await post("/projects", { name: "Colleague's project", teamId }, k);
      expect(project.status, JSON.stringify(project.body)).toBe(201);
      expect((await patch(`/projects/${project.body.project.id}`, { status: "ACTIVE" }, k)).status).toBe(200);
      expect((await patch(`/projects/${ownerProject.id}`, { description: "Edited by a member" }, k)).status).toBe(200);
      const task = await post("/tasks", { title: "Colleague's task", teamId, projectId: project.body.project.id }, k);
      expect(task.status, JSON.stringify(task.body)).toBe(201);
      expect((await patch(`/tasks/${ownerTask.id}`, { status: "IN_PROGRESS" }, k)).status).toBe(200);
      const milestone = await post("/milestones", { projectId: project.body.project.id, name: "Beta" }, k);
      expect(milestone.status, JSON.stringify(milestone.body)).toBe(201);
      expect((await patch(`/milestones/${milestone.body.milestone.id}`, { status: "IN_PROGRESS" }, k)).status).toBe(200);
      const comment = await post("/comments", { taskId: ownerTask.id, content: "By the colleague" }, k);
      expect(comment.status, JSON.stringify(comment.body)).toBe(201);
      expect((await patch(`/comments/${comment.body.comment.id}`, { content: "Edited by its author" }, k)).status).toBe(200);
      mine = { task: task.body.task, project: project.body.project, milestone: milestone.body.milestone, comment: comment.body.comment };
    });

    it("a comment is edited by its author alone, even against the workspace OWNER (403 both ways)", async () => {
      const byOwner = await patch(`/comments/${mine.comment.id}`, { content: "Owner rewrites it" }, owner);
      expect(byOwner.status).toBe(403);
      expect(byOwner.body.error.code).toBe("FORBIDDEN");
      const byColleague = await patch(`/comments/${ownerComment.id}`, { content: "Colleague rewrites it" }, colleague.key);
      expect(byColleague.status).toBe(403);
      expect((await get(`/comments/${mine.comment.id}`, owner)).body.comment.content).toBe("Edited by its author");
      // Deleting is another matter: a workspace OWNER may delete any comment, a member only their own.
      expect((await del(`/comments/${ownerComment.id}`, colleague.key)).status).toBe(403);
      expect((await del(`/comments/${mine.comment.id}`, owner)).status).toBe(204);
    });

    it("a team MEMBER cannot delete the team or demote or remove its OWNER; the last OWNER stays (409)", async () => {
      const ownerMembership = await membershipOf(ownerId);
      expect(ownerMembership.role).toBe("OWNER");
      for (const res of [
        await del(`/teams/${teamId}`, colleague.key),
        await patch(`/team-members/${ownerMembership.membershipId}`, { role: "MEMBER" }, colleague.key),
        await del(`/team-members/${ownerMembership.membershipId}`, colleague.key),
      ]) {
        expect(res.status, JSON.stringify(res.body)).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
      }
      // Nor make themself OWNER.
      const self = await membershipOf(colleague.userId);
      expect((await patch(`/team-members/${self.membershipId}`, { role: "OWNER" }, colleague.key)).status).toBe(403);
      // The owner alone holds OWNER: neither removing nor demoting them is allowed, even by themself.
      const removed = await del(`/team-members/${ownerMembership.membershipId}`, owner);
      expect(removed.status).toBe(409);
      expect(removed.body.error.code).toBe("CONFLICT");
      expect((await patch(`/team-members/${ownerMembership.membershipId}`, { role: "ADMIN" }, owner)).status).toBe(409);
      expect((await get(`/teams/${teamId}`, colleague.key)).status).toBe(200);
      expect((await membershipOf(ownerId)).role).toBe("OWNER");
    });
  });

  it("an invited workspace ADMIN can invite and cancel invites; an invited MEMBER cannot (403)", async () => {
    const admin = await joinByInvite(owner, { email: uniqueEmail("admin"), role: "ADMIN" }, "Admin");
    expect(admin.role).toBe("ADMIN");
    const third = await joinByInvite(admin.key, { email: uniqueEmail("third"), teamIds: [teamId] }, "Third");
    expect(third.role).toBe("MEMBER");
    expect((await membershipOf(third.userId)).role).toBe("MEMBER");
    expect((await get("/invites", admin.key)).status).toBe(200);

    const pendingByOwner = await post("/invites", { email: uniqueEmail("pending") }, owner);
    const refused = await post("/invites", { email: uniqueEmail("refused") }, colleague.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("FORBIDDEN");
    expect((await get("/invites", colleague.key)).status).toBe(403);
    expect((await del(`/invites/${pendingByOwner.body.invite.id}`, colleague.key)).status).toBe(403);
    expect((await del(`/invites/${pendingByOwner.body.invite.id}`, admin.key)).status).toBe(204);
  });
});
