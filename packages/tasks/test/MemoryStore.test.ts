/** The in-memory store keeps the TaskStore contract. */
import * as TaskStore from "@snodo/tasks/TaskStore"
import { contract } from "@snodo/tasks/TaskStoreContract"

contract("memory", TaskStore.layerMemory())
