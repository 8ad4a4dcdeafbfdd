// What events are called (docs/events.md): the resource types, their event types, and the patterns that name them
// (`task.created`, `task.*`, `*`) in GET /events?types= and in a webhook's `events`.

export const RESOURCE_TYPES = [
  "task",
  "task_relation",
  "attachment",
  "project",
  "milestone",
  "comment",
  "label",
  "team",
  "team_member",
  "field",
  "member",
  "workspace",
  "invite",
  "api_key",
  "agent",
  "webhook",
] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

const ACTIONS = ["created", "updated", "deleted"];
/** Made and removed, never changed: relations and attachments. */
const ONCE_MADE: ResourceType[] = ["task_relation", "attachment"];

/** The actions of a resource type: a relation is made or removed, never changed; a member joins, changes, leaves. */
const actionsOf = (type: ResourceType) => {
  if (type === "member") return ["joined", "updated", "removed"];
  return ONCE_MADE.includes(type) ? ["created", "deleted"] : ACTIONS;
};

/** Event types: `<resourceType>.created|updated|deleted`, a relation's `created`/`deleted`, a member's `joined`/`updated`/`removed`. */
export const EVENT_TYPES: string[] = RESOURCE_TYPES.flatMap((type) => actionsOf(type).map((a) => `${type}.${a}`));

/** Resource types whose events only workspace ADMIN/OWNER see (and an API key's owner, its own key's). */
export const PRIVILEGED_TYPES: ResourceType[] = ["invite", "api_key", "webhook"];

/** Whether `pattern` names events: a type (`task.created`, `member.joined`), every type of a resource (`task.*`) or `*`. */
export function isEventPattern(pattern: string): boolean {
  if (pattern === "*" || EVENT_TYPES.includes(pattern)) return true;
  const dot = pattern.lastIndexOf(".");
  const [resource, action] = [pattern.slice(0, dot), pattern.slice(dot + 1)];
  if (!(RESOURCE_TYPES as readonly string[]).includes(resource)) return false;
  return action === "*" || (ONCE_MADE.includes(resource as ResourceType) ? actionsOf(resource as ResourceType) : ACTIONS).includes(action);
}
