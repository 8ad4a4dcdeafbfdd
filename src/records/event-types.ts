// What events are called (docs/events.md): the resource types, their event types, and the patterns that name them
// (`task.created`, `task.*`, `*`) in GET /events?types= and in a webhook's `events`.
import { EVENT_SOURCES, type RESOURCES, type ResourceName } from "../core/resources";

type EventsOf<R> = R extends { events: infer E } ? keyof E & string : never;
/** The resource types of events, from the register (core/resources.ts). */
export type ResourceType = EventsOf<(typeof RESOURCES)[ResourceName]>;
export const RESOURCE_TYPES = Object.keys(EVENT_SOURCES) as [ResourceType, ...ResourceType[]];

const ACTIONS = ["created", "updated", "deleted"];

/** The actions of a resource type: its register entry's when it names them (made and removed, never changed; a member joins, changes, leaves), else created, updated, deleted. */
const actionsOf = (type: ResourceType): readonly string[] => EVENT_SOURCES[type].actions ?? ACTIONS;

/** Event types: `<resourceType>.<action>`, each type's actions. */
export const EVENT_TYPES: string[] = RESOURCE_TYPES.flatMap((type) => actionsOf(type).map((a) => `${type}.${a}`));

/** Resource types whose events only workspace ADMIN/OWNER see (and an API key's owner, its own key's). */
export const PRIVILEGED_TYPES: ResourceType[] = ["invite", "api_key", "webhook"];

/** Whether `pattern` names events: a type (`task.created`, `member.joined`), every type of a resource (`task.*`) or `*`. */
export function isEventPattern(pattern: string): boolean {
  if (pattern === "*" || EVENT_TYPES.includes(pattern)) return true;
  const dot = pattern.lastIndexOf(".");
  const [resource, action] = [pattern.slice(0, dot), pattern.slice(dot + 1)];
  if (!(RESOURCE_TYPES as readonly string[]).includes(resource)) return false;
  return action === "*" || actionsOf(resource as ResourceType).includes(action);
}
