/** The SQLite store keeps the TaskStore contract (each test on a fresh in-memory database). */
import * as TasksSqlite from "@snodo/tasks-sqlite"
import { contract } from "@snodo/tasks/TaskStoreContract"

contract("sqlite", TasksSqlite.layer({ filename: ":memory:", migrate: true }))
