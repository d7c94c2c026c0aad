/**
 * The problem with a wire input request a low-level handler returned (`InputRequired`), checked
 * before it is sent: loaded by its `import()` when a round first ends with such requests, so a
 * server whose handlers return none does not load the elicitation form and sampling checks.
 *
 * @internal
 */
import * as ElicitationForm from "./ElicitationForm.ts"
import * as Sampling from "./Sampling.ts"
import { isObject } from "../../pipeline/internal/IsObject.ts"

/** The problem with a wire input request a low-level handler returned, if any. */
export const requestProblem = (request: unknown): string | undefined => {
  if (!isObject(request)) return "must be an object"
  const params = request["params"]
  switch (request["method"]) {
    case "elicitation/create": {
      if (!isObject(params) || typeof params["message"] !== "string" || params["message"] === "") {
        return "elicitation needs params with a message"
      }
      if (params["mode"] === "url") return typeof params["url"] === "string" ? ElicitationForm.checkUrl(params["url"]) : "url must be a string"
      if (params["mode"] !== undefined && params["mode"] !== "form") return "mode must be form or url"
      const problems = ElicitationForm.check(params["requestedSchema"])
      return problems.length === 0 ? undefined : problems.join("; ")
    }
    case "sampling/createMessage": {
      const problems = Sampling.checkRequest(params)
      return problems.length === 0 ? undefined : problems.join("; ")
    }
    case "roots/list":
      return params === undefined || isObject(params) ? undefined : "params must be an object"
    default:
      return "method must be elicitation/create, sampling/createMessage or roots/list"
  }
}
