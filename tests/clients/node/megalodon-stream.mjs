// megalodon 10 on the user stream: generator("mastodon", base, token).userStreaming() reads
// GET /api/v1/instance (urls.streaming_api) and opens
// <streaming_api>/api/v1/streaming?stream=user&access_token=<token>, no sub-protocol; it pings
// 10 s after opening and reconnects when no pong comes.
//
//   node megalodon-stream.mjs <base-url> <access-token> [events=3] [timeout-s=30]
//
// stdout, one JSON object a line: {"ready":true} on megalodon's "connect", then per event:
// update {"event","id"}, notification {"event","id","type","status"}, delete {"event","id"},
// and {"event":"pong"} (counted too) when the server answers megalodon's ping.
// megalodon knows no `filters_changed`: its parser fails on the missing payload and the stream
// emits "parser-error" with the raw frame in the message; that is reported as
// {"event":"parser-error","frame":<the frame as JSON>,"message"}. Transport errors ("error")
// and reconnects ("close" with a code other than 1000 is a reconnect) end the run as failures.
import megalodon from "megalodon";

import { args, collector, report } from "./common.mjs";

// megalodon is CommonJS: its default export is the `generator` function, under `default`.
const generator = megalodon.default;
const options = args("megalodon-stream.mjs");
let socket;
const out = collector(options, () => {
  socket?.removeAllListeners();
  socket?.stop();
});

try {
  const client = generator("mastodon", options.base, options.token);
  socket = await client.userStreaming();
  socket.on("connect", () => report({ ready: true }));
  socket.on("pong", () => out.event({ event: "pong" }));
  socket.on("update", (status) => out.event({ event: "update", id: status.id }));
  socket.on("notification", (n) =>
    out.event({ event: "notification", id: n.id, type: n.type, status: n.status?.id }),
  );
  socket.on("delete", (id) => out.event({ event: "delete", id }));
  socket.on("status_update", (status) => out.event({ event: "status_update", id: status.id }));
  socket.on("conversation", (c) => out.event({ event: "conversation", id: c.id }));
  socket.on("parser-error", (error) => {
    const raw = /^Error parsing websocket reply: (.*), error message: /s.exec(error.message);
    let frame = null;
    try {
      frame = raw ? JSON.parse(raw[1]) : null;
    } catch {
      frame = null;
    }
    out.event({ event: "parser-error", frame, message: error.message });
  });
  socket.on("error", (error) => out.fail(error ?? new Error("WebSocket error")));
} catch (error) {
  out.fail(error);
}
