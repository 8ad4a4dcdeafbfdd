// A resource as one module (docs/architecture.md, "Adding a resource"): `src/resources/<name>/index.ts` exports one
// `ResourceModule`, and the list of them (src/resources/index.ts) is what the app mounts (in its order), what MCP offers
// (their tools) and what the route policies default to (their register entries). A module's routes declare their own
// policies (src/http/policy.ts); what they do not declare comes from its register entry.
import type { Hono } from "hono";
import type { Resource } from "../core/resources";
import { RESOURCE_TYPES, type ResourceType } from "../records/event-types";
import { type EventRecords, type EventRendering, eventRendering } from "../records/events";
import type { Field } from "../store/field-map";
import type { TransferPart } from "../store/transfer-part";
import type { AppEnv } from "./context";
import { assignRoutes } from "./policy";
import type { AppHandle } from "./read-route";
import type { ToolSpec } from "./tool";

export interface ResourceModule {
  /** The first segment of its paths (or its folder's name when its paths have none of their own). */
  name: string;
  /**
   * Its register entry: its OpenAPI tag, the scope its writes need, what the scope `read` reads there, whether its
   * PATCH and DELETE honour If-Match (and its table), its event types, its constraints' errors. The service's own are
   * their folders' register.ts, listed in src/core/resources.ts (the event types, scopes and error mapper below the routes
   * derive from them).
   */
  resource: Omit<Resource, "tag"> & { tag: string };
  /** Its tag's description, when the register's TAGS has none (a resource of its own tag, outside the register). */
  tagWords?: string;
  /**
   * Its routers, mounted in this order; a function of the built app and the modules it serves when they need them (the
   * batch runs the app's reads; what iterates the resources takes them from the modules, never from a list of its own).
   */
  routes: ReadonlyArray<Hono<AppEnv>> | ((app: AppHandle, modules: readonly ResourceModule[]) => ReadonlyArray<Hono<AppEnv>>);
  /**
   * Its MCP tools, each standing for one of its REST operations (src/http/tool.ts); a function of the modules the app
   * serves when they need them, as its routes (the event feed's render with their field maps).
   */
  tools?: readonly ToolSpec[] | ((modules: readonly ResourceModule[]) => readonly ToolSpec[]);
  /**
   * The field map each event type of its register entry renders with (its record's): an event's `data` and `changes`, a
   * webhook's body, a sync snapshot's records (records/events.ts). Required for every type its entry's `events` name.
   */
  eventRecords?: Partial<Record<ResourceType, Readonly<Record<string, Field>>>>;
  /** Its collection in the export document, which the export and the import iterate (src/store/transfer-part.ts). */
  transfer?: TransferPart;
}

/**
 * The module's routers for `app` serving `modules`, each assigned to it (their undeclared policies come from its
 * register entry).
 */
export function moduleRoutes(module: ResourceModule, app: AppHandle, modules: readonly ResourceModule[]): ReadonlyArray<Hono<AppEnv>> {
  const routers = typeof module.routes === "function" ? module.routes(app, modules) : module.routes;
  for (const router of routers) assignRoutes({ name: module.name, ...module.resource }, router.routes);
  return routers;
}

/**
 * The field map of each resource type's events, each from the module whose register entry writes them. Throws when one
 * of them declares none, or when no module writes a type the database's triggers write (its events would render empty).
 */
function eventRecordsOf(modules: readonly ResourceModule[]): EventRecords {
  const records: Partial<Record<string, Readonly<Record<string, Field>>>> = {};
  for (const module of modules) {
    for (const type of Object.keys(module.resource.events ?? {})) {
      const fields = module.eventRecords?.[type as ResourceType];
      if (!fields) throw new Error(`The module ${module.name} writes ${type} events but declares no field map for them (eventRecords)`);
      records[type] = fields;
    }
  }
  const missing = RESOURCE_TYPES.filter((type) => !records[type]);
  if (missing.length) throw new Error(`No module of the app writes ${missing.join(", ")} events: nothing would render them`);
  return records as EventRecords;
}

const renderings = new WeakMap<readonly ResourceModule[], EventRendering>();

/** How an app serving `modules` renders its events (records/events.ts), made once per list from their field maps. */
export function eventRenderingOf(modules: readonly ResourceModule[]): EventRendering {
  let rendering = renderings.get(modules);
  if (!rendering) {
    rendering = eventRendering(eventRecordsOf(modules));
    renderings.set(modules, rendering);
  }
  return rendering;
}
