/** WebDAV XML: the safe reader, the writer, the streamed multistatus and the multistatus a client reads. */
export * from './parse.js'
export * from './write.js'
export * from './multistatus-stream.js'
export * from './multistatus-read.js'
