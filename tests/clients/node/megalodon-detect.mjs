// megalodon 10's detector(): GET /.well-known/nodeinfo, then the 2.0/2.1 document it links;
// "mastodon" when software.name or metadata.upstream.name says so, else it throws.
//
//   node megalodon-detect.mjs <base-url>
//
// stdout: {"sns": "<what it detected>"}; a failure exits 1 with the error on stderr.
import { detector } from "megalodon";

import { report } from "./common.mjs";

const base = process.argv[2];
if (!base) {
  process.stderr.write("usage: node megalodon-detect.mjs <base-url>\n");
  process.exit(2);
}
try {
  report({ sns: await detector(base.replace(/\/+$/, "")) });
} catch (error) {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
}
