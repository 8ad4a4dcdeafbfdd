// The fuzz of every read (GET) operation of the served OpenAPI document: test/helpers/fuzz.ts says what it generates and
// what every answer must be. The writes are test/fuzz-writes.test.ts (two files, so each ends well within a minute).
import { fuzzFixtures, fuzzOperations } from "./helpers/fuzz";

fuzzFixtures();
fuzzOperations("reads");
