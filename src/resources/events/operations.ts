// The change feed's operations (docs/events.md): the workspace's event stream and a task's, project's or milestone's
// history. Called alike by the REST routes and the MCP tools.
import type { Caller } from "../../auth/caller";
import { eventsVisibleTo } from "../../auth/event-access";
import type { KeepAlive } from "../../db/event-watcher";
import type { EventRendering } from "../../records/events";
import { milestoneRecord } from "../milestones/record";
import { projectRecord } from "../projects/record";
import { taskRecord } from "../tasks/record";
import { eventStream, recordHistory } from "./stream";

export const listEvents = (rendering: EventRendering, caller: Caller, query: URLSearchParams, keepAlive?: KeepAlive) =>
  eventStream(rendering, caller, query, eventsVisibleTo, keepAlive);

const HISTORY_OF = { tasks: taskRecord, projects: projectRecord, milestones: milestoneRecord };
export type HistoryOf = keyof typeof HISTORY_OF;

export const recordEvents = (rendering: EventRendering, caller: Caller, of: HistoryOf, idOrRef: string, query: URLSearchParams) =>
  recordHistory(rendering, caller, HISTORY_OF[of], idOrRef, query, eventsVisibleTo);
