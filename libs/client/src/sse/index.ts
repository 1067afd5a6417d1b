export * from './frames';
export { createFrameDecoder, readFrames, type FrameDecoder, type RawFrame } from './decoder';
export { type FrameStream, type ResumeOptions } from './stream';
export { streamChat, type ChatStream, type StreamChatOptions, type StreamCommonOptions } from './chat';
export { streamRun, type RunStream, type StreamRunOptions } from './run';
