// Bodies as the serializers build them, whole, with nulls, and narrowed by `fields`, are valid against the responses
// the served document declares for them (JSON Schema 2020-12, as OpenAPI 3.1 uses).
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { targetCommentLists } from "../../src/resources/comments/record";
import { projectRecord } from "../../src/resources/projects/record";
import { taskRecord } from "../../src/resources/tasks/record";
import { parseFields, projectFields } from "../../src/store/list";
import { type OpenApiDocument, openapiDocument } from "./openapi-node";

const at = new Date("2026-01-02T03:04:05.006Z");
const team = { id: "team_01", name: "Engineering", prefix: "ENG" };
const ada = { id: "user_01", name: "Ada", email: "ada@example.com", avatarUrl: null, humanId: null };

// A Task is built by PostgreSQL from its field map (resources/tasks/record.ts): here the same JSON, by hand.
const task = {
  id: "task_01",
  reference: "ENG-12",
  title: "Write the engine",
  status: "TODO",
  statusCategory: "unstarted",
  startedAt: null,
  completedAt: null,
  canceledAt: null,
  priority: "HIGH",
  description: "",
  dueDate: null,
  estimate: null,
  timeTracking: { estimateSeconds: null, remainingSeconds: null, spentSeconds: 0, totalSpentSeconds: 0 },
  teamId: team.id,
  team,
  projectId: null,
  milestoneId: null,
  parentId: null,
  assigneeId: null,
  assignee: null,
  delegateId: null,
  session: null,
  cycleId: null,
  labels: [],
  customFields: {},
  blockedByCount: 0,
  subtaskCounts: { total: 0, done: 0 },
  claim: null,
  createdAt: at.toISOString(),
  updatedAt: at.toISOString(),
};
// A Project too (resources/projects/record.ts).
const project = {
  id: "proj_01",
  reference: "ENG-P3",
  name: "Launch",
  status: "PLANNING",
  description: "",
  teamId: team.id,
  team,
  labels: [{ id: "label_01", name: "Bug", color: "#FF0000" }],
  leadId: null,
  lead: null,
  startDate: null,
  targetDate: "2026-03-31",
  customFields: {},
  createdAt: at.toISOString(),
  updatedAt: at.toISOString(),
};
// A Comment is built by PostgreSQL from its field map (resources/comments/record.ts): here the task list's, by hand.
const briefComment = {
  id: "cmnt_01",
  content: "Looks **good**",
  authorId: ada.id,
  author: { id: ada.id, name: ada.name, email: ada.email },
  taskId: task.id,
  projectId: null,
  milestoneId: null,
  createdAt: at.toISOString(),
  updatedAt: at.toISOString(),
};

let doc: OpenApiDocument;
let ajv: Ajv2020;

beforeAll(async () => {
  doc = await openapiDocument({ PUBLIC_BASE_URL: "http://127.0.0.1:8787" });
  // OpenAPI's own keywords (example, …) are not JSON Schema's: not strict about them.
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi");
}, 60_000);

/** Errors of `body` against the JSON response `status` of `method path` (null when valid). */
function check(method: string, path: string, status: number, body: unknown) {
  const pointer = ["paths", path, method, "responses", String(status), "content", "application/json", "schema"]
    .map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1"))
    .join("/");
  const validate = ajv.compile({ $ref: `openapi#/${pointer}` });
  return validate(body) ? null : validate.errors;
}

const narrowed = <T>(value: T, fields: string, shape = taskRecord.shape) => projectFields(value, parseFields(fields, shape));
const page = <K extends string, T>(key: K, items: T[]) => ({ [key]: items, pagination: { limit: 50, nextCursor: null } });

describe("responses in the served document", () => {
  it("admit a task without assignee, project or due date, whole and narrowed", () => {
    expect(check("post", "/tasks", 201, { task })).toBeNull();
    expect(check("patch", "/tasks/{id}", 200, { task })).toBeNull();
    expect(check("get", "/tasks/{id}", 200, { task })).toBeNull();
    expect(check("get", "/tasks/{id}", 200, { task: narrowed(task, "reference,assignee{name},team{prefix},labels{name}") })).toBeNull();
    expect(check("get", "/tasks", 200, page("tasks", [narrowed(task, "id,title,assignee")]))).toBeNull();
  });

  it("admit an assigned task narrowed inside the assignee", () => {
    const assigned = { ...task, assigneeId: ada.id, assignee: ada };
    expect(check("get", "/tasks/{id}", 200, { task: narrowed(assigned, "assignee{name,avatarUrl}") })).toBeNull();
    expect(check("get", "/tasks/{id}", 200, { task: assigned })).toBeNull();
  });

  it("admit a project without lead, whole and narrowed", () => {
    expect(check("post", "/projects", 201, { project })).toBeNull();
    expect(
      check("get", "/projects", 200, page("projects", [narrowed(project, "reference,lead{name},labels{name}", projectRecord.shape)])),
    ).toBeNull();
  });

  it("admit the task comment list's brief author (no avatarUrl)", () => {
    expect(check("get", "/tasks/{id}/comments", 200, page("comments", [briefComment]))).toBeNull();
    const shape = targetCommentLists.task.shape;
    expect(check("get", "/tasks/{id}/comments", 200, page("comments", [narrowed(briefComment, "content,author{name}", shape)]))).toBeNull();
  });

  it("refuse what the serializers never produce", () => {
    expect(check("get", "/tasks/{id}", 200, { task: { ...task, assignee: "ada" } })).not.toBeNull();
    expect(check("post", "/tasks", 201, { task: { ...task, reference: undefined } })).not.toBeNull();
    expect(check("get", "/tasks", 200, page("tasks", [{ ...task, statusCategory: "someday" }]))).not.toBeNull();
  });
});
