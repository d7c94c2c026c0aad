/** The PostgreSQL store keeps the TaskStore contract, in a random schema dropped afterwards. */
import * as TasksPostgres from "@snodo/postgres"
import { contract } from "@snodo/tasks/TaskStoreContract"
import { Layer } from "effect"
import { client, testSchema } from "./Database.ts"

const schema = testSchema()

contract("postgres", TasksPostgres.PgTaskStore.layer({ schema }).pipe(Layer.provide(client())))
