import { createRoute, z } from "@hono/zod-openapi";
import { emailOutbox } from "../../http/email-outbox";
import { createdResponse, errorResponses, jsonBody, jsonResponse } from "../../http/openapi";
import { oneRecord, reading } from "../../http/read-route";
import { protectedRoute, publicRoute } from "../../http/route-base";
import { created, fieldsQueryFor, IdParam, listDescription, listQueryFor, paginated } from "../../http/route-schemas";
import { newRouter } from "../../http/router";
import { publicBaseUrl } from "../../http/urls";
import { createInvite, deleteInvite, getInvite, listInvites, redeemInvite } from "./operations";
import {
  INVITE_TTL_DAYS,
  Invite,
  InviteCreate,
  type InviteCreateInput,
  InviteRedeem,
  InviteRedeemed,
  InviteSelection,
  inviteRecord,
} from "./record";

/** GET /invites/{id}'s answer, also what If-Match and the order of checks read. */
const readInvite = oneRecord("invite", inviteRecord.shape, getInvite);

const base = protectedRoute("Invites");

const create = createRoute({
  ...base,
  method: "post",
  operationId: "createInvite",
  path: "/invites",
  summary: "Invite someone to the workspace by email",
  description:
    `Needs workspace ADMIN or OWNER (agents never); a credential bound to teams invites only into its teams (another team: 404), into at least one, with \`role\` MEMBER (else 403). \`role\` is MEMBER (default) or ADMIN; OWNER is 422. \`teamRole\` (default MEMBER) ` +
    `is given in each of \`teamIds\`, which must be teams of this workspace (else 404). An address that already belongs to a member is 409. ` +
    `The invite email (through the queue) carries a single-use token, stored only hashed, valid ${INVITE_TTL_DAYS} days. ` +
    `Inviting an address that has a pending invite replaces that invite (its token stops working): this is how an invite is re-sent.`,
  request: jsonBody(InviteCreate),
  responses: {
    201: createdResponse(z.object({ invite: Invite }), "Invited"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"], { validation: true }),
  },
});

const list = createRoute({
  // The role decides before the list runs, so the caller is loaded first: auth + 1 query.
  ...base,
  method: "get",
  operationId: "listInvites",
  path: "/invites",
  summary: "List the workspace's pending invites",
  description: listDescription(
    inviteRecord.list,
    "Needs workspace ADMIN or OWNER. Only pending invites: accepted, expired and cancelled ones are not listed.",
  ),
  request: { query: listQueryFor(inviteRecord.list) },
  responses: {
    200: jsonResponse(paginated("invites", InviteSelection), "Pending invites"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN"], { validation: true }),
  },
});

const read = createRoute({
  ...base,
  method: "get",
  operationId: "getInvite",
  path: "/invites/{id}",
  summary: "Get a pending invite",
  description:
    "For workspace ADMIN/OWNER and the invite's sender (others: 403). Only a pending invite is found: once accepted, expired or cancelled it is 404, as in the list.",
  request: { params: IdParam, query: fieldsQueryFor(inviteRecord.shape) },
  responses: {
    200: jsonResponse(z.object({ invite: InviteSelection }), "The invite (narrowed by `fields`)"),
    ...errorResponses(["BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND"], { validation: true }),
  },
});

const remove = createRoute({
  ...base,
  method: "delete",
  operationId: "deleteInvite",
  path: "/invites/{id}",
  summary: "Cancel a pending invite",
  description:
    "Allowed for workspace ADMIN/OWNER and for the user who sent the invite (others: 403). The invite is deleted and its token refused from then on. An accepted or expired invite is no longer pending: 409.",
  request: { params: IdParam },
  responses: {
    204: { description: "Cancelled" },
    ...errorResponses(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "CONFLICT"]),
  },
});

const redeem = createRoute({
  // Its writes are by the account or membership it makes, whatever credential came along.
  ...publicRoute("Invites", { via: "sign_up", rateLimit: "ip" }),
  method: "post",
  operationId: "redeemInvite",
  path: "/invites/redeem",
  summary: "Accept an invite with the token from its email",
  description:
    "No credential. Creates the account when the invited address is new (with `name`) or joins the existing account (which keeps its name); " +
    "adds the workspace role and the team memberships (teams deleted since are skipped) and returns a new API key of the workspace. " +
    "An invite is accepted once: an unknown, cancelled, already accepted or expired token is 422 at `token`.",
  request: jsonBody(InviteRedeem),
  responses: {
    201: jsonResponse(InviteRedeemed, "Accepted"),
    ...errorResponses(["BAD_REQUEST", "CONFLICT", "UNAVAILABLE"], { validation: true }),
  },
});

export const inviteRoutes = newRouter()
  .openapi(create, async (c) => {
    const input = c.req.valid("json") as InviteCreateInput;
    const invite = await createInvite(c.get("caller"), emailOutbox(c), input, `${publicBaseUrl(c)}/invites/redeem`);
    return created(c, "invite", `/invites/${invite.id}`, invite);
  })
  .openapi(
    list,
    reading(list, ({ caller, url }) => listInvites(caller, url.searchParams)),
  )
  .openapi(redeem, async (c) => {
    const data = await redeemInvite(c.get("rdb").db, c.req.valid("json"));
    return c.json({ data }, 201);
  })
  .openapi(read, reading(read, readInvite))
  .openapi(remove, async (c) => {
    await deleteInvite(c.get("caller"), c.req.valid("param").id);
    return c.body(null, 204);
  });
