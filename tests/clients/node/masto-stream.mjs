// masto 7 (the library Elk and Phanpy use) on the user stream: the streaming URL from
// GET /api/v2/instance (configuration.urls.streaming), one WebSocket to <that host>/api/v1/streaming
// with the access token as its first Sec-WebSocket-Protocol, then {"type":"subscribe","stream":"user"}.
//
//   node masto-stream.mjs <base-url> <access-token> [events=3] [timeout-s=30]
//
// stdout, one JSON object a line: {"ready":…} once the subscribe frame is sent, then one line per
// event masto yields: {"event","stream","id"} (update: the status id; notification: its id, plus
// "type" and "status"; delete: the deleted id; filters_changed: no id).
import { createRestAPIClient, createStreamingAPIClient } from "masto";
import WebSocket from "ws";

import { args, collector, report } from "./common.mjs";

const options = args("masto-stream.mjs");
let streaming;
const out = collector(options, () => streaming?.close());

// masto's own `ws` WebSocket; reports the subscribe frame once it has gone out, with the
// sub-protocol the server accepted (masto's `ws` refuses the handshake unless it is the token).
class ReportingWebSocket extends WebSocket {
  send(data, ...rest) {
    super.send(data, ...rest);
    const frame = JSON.parse(data);
    if (frame.type === "subscribe") {
      report({ ready: true, subscribed: frame.stream, protocolIsToken: this.protocol === options.token });
    }
  }
}

try {
  const rest = createRestAPIClient({ url: options.base, accessToken: options.token });
  const instance = await rest.v2.instance.fetch();
  const streamingApiUrl = instance.configuration.urls.streaming;
  report({ instance: instance.domain, streaming: streamingApiUrl });
  streaming = createStreamingAPIClient({
    streamingApiUrl,
    accessToken: options.token,
    implementation: ReportingWebSocket,
    retry: false,
  });
  for await (const { event, stream, payload } of streaming.user.subscribe()) {
    const line = { event, stream };
    if (event === "delete") line.id = payload;
    else if (payload !== undefined) line.id = payload.id;
    if (event === "notification") Object.assign(line, { type: payload.type, status: payload.status?.id });
    out.event(line);
  }
  out.fail(new Error("the stream ended"));
} catch (error) {
  out.fail(error);
}
