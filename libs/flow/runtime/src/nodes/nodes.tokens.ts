/** Nest token of the flow-runtime's node registry (built-in and remote nodes register here). */
export const NODE_REGISTRY = Symbol('NODE_REGISTRY');
