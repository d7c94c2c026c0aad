/** The folder the bundle is written to. */
export declare const bundleDirectory: URL
/** The bundle's entry. */
export declare const bundleEntry: URL
/** Where the inputs of the bundle on disk are listed: `[path, size, mtimeMs]` each. */
export declare const inputsFile: URL
/** Whether `.bundle/` holds a bundle built from the files as they are now. */
export declare const bundleIsFresh: () => boolean
