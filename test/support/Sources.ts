/**
 * The Node flag that makes a child process run the packages' TypeScript sources (the
 * `@snodo/source` export condition) rather than their build in dist/. A child inherits it through
 * `NODE_OPTIONS` (the repository's `.npmrc`) unless it starts with a minimal environment, as the
 * official client's stdio transport does: those children get it on the command line.
 */
export const sourceCondition = "--conditions=@snodo/source"
