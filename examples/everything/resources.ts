/**
 * The everything server's resources, template, prompts and completion.
 */
import * as Completion from "@snodo/core/Completion"
import * as Content from "@snodo/core/Content"
import * as Prompt from "@snodo/core/Prompt"
import * as Resource from "@snodo/core/Resource"
import * as ResourceTemplate from "@snodo/core/ResourceTemplate"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { imageBase64 } from "./fixtures.ts"

export const staticText = Resource.make({
  uri: "test://static-text",
  name: "static-text",
  title: "Static Text Resource",
  description: "A static text resource for testing",
  mimeType: "text/plain"
}, Effect.succeed(Content.textContents("test://static-text", "This is the content of the static text resource.", "text/plain")))

export const staticBinary = Resource.make({
  uri: "test://static-binary",
  name: "static-binary",
  title: "Static Binary Resource",
  description: "A static binary resource (image) for testing",
  mimeType: "image/png"
}, () => Effect.succeed(Content.blobContents("test://static-binary", imageBase64, "image/png")))

export const template = ResourceTemplate.make({
  uriTemplate: "test://template/{id}/data",
  name: "template",
  title: "Resource Template",
  description: "A resource template with parameter substitution",
  mimeType: "application/json",
  complete: { id: Completion.fromList(["123", "456", "789"]) }
}, ({ uri, variables }) => // variables: { readonly id: string }, typed from the template
  Effect.succeed(Content.textContents(
    uri,
    JSON.stringify({ id: variables.id, templateTest: true, data: `Data for ID: ${variables.id}` }),
    "application/json"
  )))

export const simplePrompt = Prompt.make("test_simple_prompt", {
  title: "Simple Test Prompt",
  description: "A simple prompt without arguments"
}, () => Effect.succeed([Prompt.user("This is a simple prompt for testing.")]))

export const promptWithArguments = Prompt.make("test_prompt_with_arguments", {
  title: "Prompt With Arguments",
  description: "A prompt with required arguments",
  arguments: Schema.Struct({
    arg1: Schema.String.annotate({ description: "First test argument" }),
    arg2: Schema.String.annotate({ description: "Second test argument" })
  }),
  complete: { arg1: Completion.fromList(["testValue1", "testValue2", "test"]) }
}, ({ arg1, arg2 }) => Effect.succeed([Prompt.user(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)]))

export const promptWithEmbeddedResource = Prompt.make("test_prompt_with_embedded_resource", {
  title: "Prompt With Embedded Resource",
  description: "A prompt that includes an embedded resource",
  arguments: { resourceUri: { description: "URI of the resource to embed", required: true } }
}, ({ resourceUri }) =>
  Effect.succeed([
    Prompt.user(Content.resource(Content.textContents(resourceUri, "Embedded resource content for testing.", "text/plain"))),
    Prompt.user("Please process the embedded resource above.")
  ]))

export const promptWithImage = Prompt.make("test_prompt_with_image", {
  title: "Prompt With Image",
  description: "A prompt that includes image content"
}, () =>
  Effect.succeed([
    Prompt.user(Content.image(imageBase64, "image/png")),
    Prompt.user("Please analyze the image above.")
  ]))
