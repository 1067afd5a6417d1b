// The address policy lives in @flowplane/llm, shared by this node and every model call.
export { isIpLiteral, refusalReason } from '@flowplane/llm';
